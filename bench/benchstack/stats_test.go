package benchstack

import (
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	s := SortedCopy(d)
	for q, want := range map[float64]time.Duration{.5: 50 * time.Millisecond, .99: 99 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := Quantile(s, q); got != want {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if Quantile(nil, .5) != 0 {
		t.Error("empty: want 0")
	}
	if got := Quantile([]time.Duration{7}, .99); got != 7 {
		t.Errorf("one: %v", got)
	}
	if d[0] != 100*time.Millisecond {
		t.Error("SortedCopy changed its input")
	}
	if got := Dist(nil); got != "n=0" {
		t.Errorf("Dist(nil) = %q", got)
	}
}
