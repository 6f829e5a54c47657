package benchstack

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ServerTiming returns the duration of the named metric of a response's
// Server-Timing headers (W3C Server Timing: `name;desc="…";dur=1.234`, in
// milliseconds, metrics separated by commas, possibly over several header
// lines), and whether it was there with a duration.
func ServerTiming(h http.Header, name string) (time.Duration, bool) {
	for _, line := range h.Values("Server-Timing") {
		for _, metric := range strings.Split(line, ",") {
			params := strings.Split(metric, ";")
			if !strings.EqualFold(strings.TrimSpace(params[0]), name) {
				continue
			}
			for _, p := range params[1:] {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(k), "dur") {
					continue
				}
				ms, err := strconv.ParseFloat(strings.Trim(strings.TrimSpace(v), `"`), 64)
				if err != nil || ms < 0 {
					return 0, false
				}
				return time.Duration(ms * float64(time.Millisecond)), true
			}
			return 0, false
		}
	}
	return 0, false
}
