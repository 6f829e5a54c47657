package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// quantile of sorted durations (nearest rank); 0 for none.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func sortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// dist summarises durations: p50, p90, p99, max, mean and n.
func dist(d []time.Duration) string {
	if len(d) == 0 {
		return "n=0"
	}
	s := sortedCopy(d)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s  mean %s  (n=%d)", ms(quantile(s, .5)), ms(quantile(s, .9)),
		ms(quantile(s, .99)), ms(s[len(s)-1]), ms(sum/time.Duration(len(s))), len(s))
}
