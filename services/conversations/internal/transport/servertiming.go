package transport

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
)

// serverTiming formats one Server-Timing metric (W3C Server Timing) in
// milliseconds with microsecond precision.
func serverTiming(name, desc string, d time.Duration) string {
	return name + `;desc="` + desc + `";dur=` + strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64)
}

// addAnswerTiming adds the split of a streamed answer's time to first token
// to the response's headers, sent with that first token: the model's part,
// the platform's part before it, and that part's stages (lookup, limit,
// context, begin, reserve). A replay has no model part and gets none. The
// benchmark subtracts each answer's own model part from the time to first
// token its client saw (docs/conversations.md, Benchmarks).
func addAnswerTiming(h http.Header, info conversations.StartInfo) {
	if info.ModelFirstToken <= 0 {
		return
	}
	metrics := []string{
		serverTiming("model", "model to first token", info.ModelFirstToken),
		serverTiming("platform", "before the model", info.Before),
	}
	for _, st := range info.Stages {
		metrics = append(metrics, serverTiming(st.Name, "stage", st.Took))
	}
	h.Add("Server-Timing", strings.Join(metrics, ", "))
}
