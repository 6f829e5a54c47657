package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every service gets APP_ENV: production by default (and in the production
// profile), development only in the local profile (docs/reliability.md).
func TestAppEnvPerProfile(t *testing.T) {
	for _, c := range []struct {
		p    profile
		want string
	}{{defaults, "production"}, {production, "production"}, {local, "development"}, {allServicesLoc, "development"}} {
		ty := decodeAll(t, c.p)
		n := 0
		for _, cm := range ty.configMaps {
			if _, isService := cm.Data["HTTP_ADDR"]; !isService {
				continue
			}
			n++
			if got := cm.Data["APP_ENV"]; got != c.want {
				t.Errorf("%s: ConfigMap %s APP_ENV = %q, want %q", c.p.name, cm.Name, got, c.want)
			}
		}
		if n == 0 {
			t.Errorf("%s: no service ConfigMap", c.p.name)
		}
	}
}

// Rendering refuses the Auth emulator in production and an unknown appEnv.
func TestAppEnvRefusals(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct{ set, want string }{
		{"firebase.authEmulatorHost=127.0.0.1:9099", "firebase.authEmulatorHost is refused with appEnv=production"},
		{"appEnv=staging", `appEnv must be production or development, not "staging"`},
	} {
		out, err := exec.Command(helmBinary(t), "template", release, filepath.Join(root, chartDir), "--set", c.set).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("--set %s: err %v, output %s", c.set, err, out)
		}
	}
}
