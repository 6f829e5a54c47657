package benchstack

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Quantile of sorted durations (nearest rank); 0 for none.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// SortedCopy is d sorted, d unchanged.
func SortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

// MS formats d in milliseconds.
func MS(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// Dist summarises durations: p50, p90, p99, max, mean and n ("n=0" for none).
func Dist(d []time.Duration) string {
	if len(d) == 0 {
		return "n=0"
	}
	s := SortedCopy(d)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s  mean %s  (n=%d)", MS(Quantile(s, .5)), MS(Quantile(s, .9)),
		MS(Quantile(s, .99)), MS(s[len(s)-1]), MS(sum/time.Duration(len(s))), len(s))
}
