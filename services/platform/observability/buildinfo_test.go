package observability

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNewRegistryServesBuildInfo(t *testing.T) {
	reg := NewRegistry()
	RegisterBuildInfo(reg, "catalog")
	RegisterBuildInfo(reg, "catalog") // idempotent
	b := BuildInfo()
	t.Logf("build info: %+v", b)
	want := `
# HELP agentic_build_info Build information of the running service: always 1, labelled with service, version, VCS revision and Go version.
# TYPE agentic_build_info gauge
agentic_build_info{go_version="` + b.GoVersion + `",revision="` + b.Revision + `",service="catalog",version="` + b.Version + `"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), BuildInfoName); err != nil {
		t.Fatal(err)
	}
	if b.GoVersion == "" || b.Version == "" || b.Revision == "" {
		t.Fatalf("empty label in %+v", b)
	}
}

func TestBuildInfoSources(t *testing.T) {
	read := func(bi *debug.BuildInfo) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return bi, bi != nil }
	}
	vcs := &debug.BuildInfo{
		GoVersion: "go1.99.1",
		Main:      debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	cases := []struct {
		name          string
		version, rev  string
		bi            *debug.BuildInfo
		wantV, wantR  string
		wantGoVersion string
	}{
		{"embedded vcs info", "", "", vcs, "v1.2.3", "abc123-dirty", "go1.99.1"},
		{"ldflags win", "2.0.0", "def456", vcs, "2.0.0", "def456", "go1.99.1"},
		{"workspace build without vcs", "", "", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "(devel)"}}, "devel", "unknown", "go1.99.1"},
		{"no build info", "", "", nil, "devel", "unknown", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := buildInfoFrom(c.version, c.rev, read(c.bi))
			if b.Version != c.wantV || b.Revision != c.wantR {
				t.Fatalf("got %+v, want version %q revision %q", b, c.wantV, c.wantR)
			}
			if c.wantGoVersion != "" && b.GoVersion != c.wantGoVersion {
				t.Fatalf("go_version %q", b.GoVersion)
			}
			if b.GoVersion == "" {
				t.Fatal("empty go_version")
			}
		})
	}
}
