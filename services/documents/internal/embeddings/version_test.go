package embeddings

import "testing"

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		version string
		want    bool
	}{
		{"0.8.0", true}, {"0.8.6", true}, {"0.10.1", true}, {"1.0", true},
		{"0.7.4", false}, {"0.5.1", false}, {"", false}, {"0", false}, {"x.y", false},
	} {
		if got := versionAtLeast(c.version, 0, 8); got != c.want {
			t.Errorf("versionAtLeast(%q, 0, 8) = %v, want %v", c.version, got, c.want)
		}
	}
}
