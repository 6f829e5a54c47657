package observability

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Version and Revision identify the build in agentic_build_info. Set them at
// link time when the build has them, e.g.
//
//	go build -ldflags "-X github.com/agentic-app/agentic/services/platform/observability.Version=1.4.0 \
//	  -X github.com/agentic-app/agentic/services/platform/observability.Revision=$(git rev-parse HEAD)"
//
// When empty, BuildInfo falls back to the binary's embedded build information
// (the main module's version; vcs.revision, with a "-dirty" suffix when
// vcs.modified, which go build records unless -buildvcs=false), then to
// "devel" and "unknown".
var (
	Version  string
	Revision string
)

// Build describes the running binary.
type Build struct {
	Version   string
	Revision  string
	GoVersion string
}

// BuildInfo returns the running binary's version, revision and Go version.
func BuildInfo() Build {
	return buildInfoFrom(Version, Revision, debug.ReadBuildInfo)
}

func buildInfoFrom(version, revision string, read func() (*debug.BuildInfo, bool)) Build {
	b := Build{Version: version, Revision: revision, GoVersion: runtime.Version()}
	if bi, ok := read(); ok && bi != nil {
		if bi.GoVersion != "" {
			b.GoVersion = bi.GoVersion
		}
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		if b.Revision == "" {
			var rev string
			var modified bool
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
			if rev != "" && modified {
				rev += "-dirty"
			}
			b.Revision = rev
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Revision == "" {
		b.Revision = "unknown"
	}
	return b
}

// BuildInfoName is the name of the build information metric.
const BuildInfoName = "agentic_build_info"

// NewBuildInfoCollector returns the constant gauge
//
//	agentic_build_info{service,version,revision,go_version} 1
//
// for service and the running binary (BuildInfo).
func NewBuildInfoCollector(service string) prometheus.Collector {
	b := BuildInfo()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: BuildInfoName,
		Help: "Build information of the running service: always 1, labelled with service, version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{
			"service":    service,
			"version":    b.Version,
			"revision":   b.Revision,
			"go_version": b.GoVersion,
		},
	})
	g.Set(1)
	return g
}

// RegisterBuildInfo registers agentic_build_info for service on reg; calling
// it again for the same service and registry is harmless. server.Middleware
// calls it, so every service's /metrics exposes the metric.
func RegisterBuildInfo(reg prometheus.Registerer, service string) {
	if reg == nil {
		return
	}
	if err := reg.Register(NewBuildInfoCollector(service)); err != nil {
		if _, ok := err.(prometheus.AlreadyRegisteredError); ok {
			return
		}
		panic(err)
	}
}
