// Package tests checks the Helm chart in charts/agentic without a cluster:
// it renders the chart with `helm template` for every values profile, decodes
// every object strictly into its Kubernetes API type, applies policy checks,
// and validates the rendered Envoy bootstrap with go-control-plane.
//
// Helm comes from $HELM or <repo>/bin/helm (bash charts/install-helm.sh).
package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

const (
	release   = "agentic"
	namespace = "agentic"
)

// profile is one way of rendering the chart.
type profile struct {
	name        string
	valuesFiles []string // relative to the repo root
	apiVersions []string // extra --api-versions (cluster capabilities)
}

var (
	chartDir       = "charts/agentic"
	defaults       = profile{name: "defaults"}
	production     = profile{name: "production", valuesFiles: []string{"charts/agentic/values-production.yaml"}}
	productionMon  = profile{name: "production+prometheus-operator", valuesFiles: []string{"charts/agentic/values-production.yaml"}, apiVersions: []string{"monitoring.coreos.com/v1"}}
	local          = profile{name: "local", valuesFiles: []string{"charts/agentic/values-local.yaml"}}
	allServices    = profile{name: "all-services", valuesFiles: []string{"charts/agentic/values-production.yaml", "charts/tests/testdata/values-all-services.yaml"}, apiVersions: []string{"monitoring.coreos.com/v1"}}
	allServicesLoc = profile{name: "all-services-local", valuesFiles: []string{"charts/agentic/values-local.yaml", "charts/tests/testdata/values-all-services.yaml"}}
	identityOnly   = profile{name: "identity-only", valuesFiles: []string{"charts/agentic/values-production.yaml", "charts/tests/testdata/values-identity-only.yaml"}, apiVersions: []string{"monitoring.coreos.com/v1"}}
	profiles       = []profile{defaults, production, productionMon, local, allServices, allServicesLoc, identityOnly}
)

// repoRoot is the repository root (two levels up from charts/tests).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func helmBinary(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	h := filepath.Join(repoRoot(t), "bin", "helm")
	if _, err := os.Stat(h); err != nil {
		t.Fatalf("helm not found: set HELM or run `bash charts/install-helm.sh` (%v)", err)
	}
	return h
}

// object is one rendered manifest: its kind, name and YAML.
type object struct {
	APIVersion string
	Kind       string
	Name       string
	Source     string
	YAML       []byte
}

func (o object) String() string { return fmt.Sprintf("%s/%s (%s)", o.Kind, o.Name, o.Source) }

var (
	renderMu    sync.Mutex
	renderCache = map[string][]object{}
)

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// render runs `helm template` for the profile (cached per test binary).
func render(t testing.TB, p profile) []object {
	t.Helper()
	renderMu.Lock()
	defer renderMu.Unlock()
	if objs, ok := renderCache[p.name]; ok {
		return objs
	}
	root := repoRoot(t)
	args := []string{"template", release, filepath.Join(root, chartDir), "--namespace", namespace}
	for _, f := range p.valuesFiles {
		args = append(args, "--values", filepath.Join(root, f))
	}
	for _, v := range p.apiVersions {
		args = append(args, "--api-versions", v)
	}
	cmd := exec.Command(helmBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var objs []object
	for _, doc := range docSep.Split(stdout.String(), -1) {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s: rendered YAML does not parse: %v\n%s", p.name, err, doc)
		}
		if head.Kind == "" {
			if strings.TrimSpace(stripComments(doc)) != "" {
				t.Fatalf("%s: document without kind:\n%s", p.name, doc)
			}
			continue
		}
		src := ""
		if m := regexp.MustCompile(`(?m)^# Source: (.*)$`).FindStringSubmatch(doc); m != nil {
			src = m[1]
		}
		objs = append(objs, object{APIVersion: head.APIVersion, Kind: head.Kind, Name: head.Metadata.Name, Source: src, YAML: []byte(doc)})
	}
	if len(objs) == 0 {
		t.Fatalf("%s: helm rendered nothing", p.name)
	}
	renderCache[p.name] = objs
	return objs
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func find(objs []object, kind, name string) (object, bool) {
	for _, o := range objs {
		if o.Kind == kind && o.Name == name {
			return o, true
		}
	}
	return object{}, false
}
