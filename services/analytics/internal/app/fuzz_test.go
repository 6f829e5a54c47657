package app

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

// No query string makes the read endpoints answer 5xx against a real
// database.
func FuzzAnalyticsQueries(f *testing.F) {
	app := start(f, startKafka(f), dbtest.NewURL(f, "analytics"), "analytics-fuzz")
	for _, s := range apitest.QuerySeeds() {
		f.Add(s)
	}
	f.Add("day")
	f.Add("agent")
	f.Fuzz(func(t *testing.T, v string) {
		e := url.QueryEscape(v)
		for _, p := range []string{
			"/api/activities?limit=" + e,
			"/api/dashboard/stats?x=" + e,
			"/api/usage?from=" + e,
			"/api/usage?to=" + e,
			"/api/usage?groupBy=" + e,
			"/api/usage?from=2026-01-01&to=" + e + "&groupBy=" + e,
		} {
			apitest.No5xx(t, http.MethodGet, app.base+p, "token-fuzz", nil)
		}
	})
}
