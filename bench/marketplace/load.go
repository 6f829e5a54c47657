package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// The operations (one row each in the figures) and the group whose target
// they count towards.
const (
	groupBrowse     = "browse"
	groupSearch     = "search"
	groupProfile    = "profile"
	groupCategories = "categories"
)

var sorts = []string{"popular", "rating", "newest", "price"}

// groupWeights: of 100 requests, 35 browse a list, 40 search, 20 open a
// profile, 5 read the categories (the filter's options).
var groupWeights = []struct {
	group  string
	weight int
}{{groupBrowse, 35}, {groupSearch, 40}, {groupProfile, 20}, {groupCategories, 5}}

// searchClasses are the kinds of search text, each with and without a
// category where that makes sense.
var searchClasses = []string{"common", "common + category", "topic", "topic + category", "rare", "rare + category",
	"as you type", "broad", "broad + category"}

// broadWords each occur in about a quarter of the descriptions (templates).
var broadWords = []string{"questions", "explanations", "helps", "language"}

// request is one planned request.
type request struct {
	group, op string
	path      string // path and query, after the gateway origin
	slug      string // profile: the slug asked for
}

// workload plans requests like the web app sends them (sort and limit=20
// always; searches mostly by relevance, the API's default, and by the
// web app's default sort, popular).
type workload struct {
	agents  []benchAgent
	cats    []string
	topics  []topicOf
	cursors map[string][]string // sort → cursors of pages 2…
}

type topicOf struct{ text, category string }

func newWorkload(agents []benchAgent, cursors map[string][]string) *workload {
	w := &workload{agents: agents, cursors: cursors}
	for _, c := range categories {
		w.cats = append(w.cats, c.name)
		for _, t := range c.topics {
			w.topics = append(w.topics, topicOf{strings.ToLower(t), c.name})
		}
	}
	return w
}

func listPath(q url.Values) string { return "/api/marketplace/agents?" + q.Encode() }

// next draws the next request.
func (w *workload) next(rng *rand.Rand) request {
	x := rng.IntN(100)
	group := groupWeights[len(groupWeights)-1].group
	for _, g := range groupWeights {
		if x < g.weight {
			group = g.group
			break
		}
		x -= g.weight
	}
	q := url.Values{"limit": {"20"}}
	switch group {
	case groupBrowse:
		// 4 first pages, 4 cursor pages, 1 category page: equally likely.
		v := rng.IntN(2*len(sorts) + 1)
		sort := sorts[v%len(sorts)]
		q.Set("sort", sort)
		switch {
		case v == 2*len(sorts):
			sort = sorts[rng.IntN(len(sorts))]
			q.Set("sort", sort)
			q.Set("category", w.cats[rng.IntN(len(w.cats))])
			return request{group: group, op: "browse category", path: listPath(q)}
		case v >= len(sorts) && len(w.cursors[sort]) > 0:
			cs := w.cursors[sort]
			q.Set("cursor", cs[rng.IntN(len(cs))])
			return request{group: group, op: "browse " + sort + " (cursor)", path: listPath(q)}
		default:
			return request{group: group, op: "browse " + sort, path: listPath(q)}
		}
	case groupSearch:
		class := searchClasses[rng.IntN(len(searchClasses))]
		text, cat := w.searchText(rng, class)
		q.Set("q", text)
		if cat != "" {
			q.Set("category", cat)
		}
		// Half by relevance (no sort: the API's default with q), the rest as
		// the web app sends it (its sort select: popular by default).
		switch s := rng.IntN(10); {
		case s < 5:
			q.Del("sort")
		case s < 8:
			q.Set("sort", "popular")
		default:
			q.Set("sort", sorts[1+rng.IntN(len(sorts)-1)])
		}
		return request{group: group, op: "search " + class, path: listPath(q)}
	case groupProfile:
		a := w.agents[rng.IntN(len(w.agents))]
		return request{group: group, op: "profile", path: "/api/marketplace/agents/" + a.Slug, slug: a.Slug}
	default:
		return request{group: groupCategories, op: "categories", path: "/api/marketplace/categories"}
	}
}

// searchText is the text (and category filter) of a search of class.
func (w *workload) searchText(rng *rand.Rand, class string) (text, category string) {
	randomCat := func() string { return w.cats[rng.IntN(len(w.cats))] }
	switch class {
	case "common":
		return strings.ToLower(roles[rng.IntN(len(roles))]), ""
	case "common + category":
		return strings.ToLower(roles[rng.IntN(len(roles))]), randomCat()
	case "topic":
		return w.topics[rng.IntN(len(w.topics))].text, ""
	case "topic + category":
		t := w.topics[rng.IntN(len(w.topics))]
		return t.text, t.category
	case "rare":
		return rareWords[rng.IntN(len(rareWords))], ""
	case "rare + category":
		return rareWords[rng.IntN(len(rareWords))], randomCat()
	case "as you type":
		// A topic and the start of a role: "python tut", "kubernetes me".
		t := w.topics[rng.IntN(len(w.topics))].text
		r := strings.ToLower(roles[rng.IntN(len(roles))])
		return t + " " + r[:2+rng.IntN(3)], ""
	case "broad":
		return broadWords[rng.IntN(len(broadWords))], ""
	default: // broad + category
		return broadWords[rng.IntN(len(broadWords))], randomCat()
	}
}

// --- clients -------------------------------------------------------------------

// newClient is one simulated visitor's HTTP client: keep-alive, no proxy,
// connecting from src (nil: the system's choice).
func newClient(src net.IP) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if src != nil {
		d.LocalAddr = &net.TCPAddr{IP: src}
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         d.DialContext,
		MaxIdleConns:        4,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// sourceAddr is client i's loopback address when the clients are spread:
// 127.0.0.2, 127.0.0.3, … (127.0.0.1 is left to everyone else).
func sourceAddr(i int) net.IP { return net.IPv4(127, 0, 0, byte(2+i)) }

// outcome of one request.
type outcome struct {
	status int // 0: transport error
	items  int // list pages: items returned
	err    string
}

// listPage is the part of a MarketplacePage the bench reads.
type listPage struct {
	Items []struct {
		Slug string `json:"slug"`
	} `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// do sends r and reads the whole answer.
func do(ctx context.Context, hc *http.Client, base string, r request) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+r.path, nil)
	if err != nil {
		return outcome{err: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{err: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return outcome{status: resp.StatusCode, err: "read: " + err.Error()}
	}
	o := outcome{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		o.err = fmt.Sprintf("HTTP %d %s", resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 160)])))
		return o
	}
	switch r.group {
	case groupBrowse, groupSearch:
		var p listPage
		if err := json.Unmarshal(body, &p); err != nil {
			o.status, o.err = 0, "decode: "+err.Error()
		}
		o.items = len(p.Items)
	case groupProfile:
		var p struct {
			Slug string `json:"slug"`
		}
		if err := json.Unmarshal(body, &p); err != nil || p.Slug != r.slug {
			o.status, o.err = 0, fmt.Sprintf("profile %s: got slug %q (%v)", r.slug, p.Slug, err)
		}
	}
	return o
}

// opStats are one operation's measurements.
type opStats struct {
	group   string
	lat     []time.Duration // 200 answers only
	errors  int             // transport errors, 5xx, 4xx other than 429, bad bodies
	limited int             // 429
	items   int             // list items over the 200 answers
	errSeen []string        // the first few distinct errors
}

func (s *opStats) add(o outcome, d time.Duration) {
	switch {
	case o.status == http.StatusOK && o.err == "":
		s.lat = append(s.lat, d)
		s.items += o.items
	case o.status == http.StatusTooManyRequests:
		s.limited++
	default:
		s.errors++
		if len(s.errSeen) < 3 && !slices.Contains(s.errSeen, o.err) {
			s.errSeen = append(s.errSeen, o.err)
		}
	}
}

// results are every client's measurements merged.
type results struct {
	ops     map[string]*opStats
	elapsed time.Duration
}

func (r *results) merge(ops map[string]*opStats) {
	for name, s := range ops {
		t := r.ops[name]
		if t == nil {
			t = &opStats{group: s.group}
			r.ops[name] = t
		}
		t.lat = append(t.lat, s.lat...)
		t.errors += s.errors
		t.limited += s.limited
		t.items += s.items
		for _, e := range s.errSeen {
			if len(t.errSeen) < 3 && !slices.Contains(t.errSeen, e) {
				t.errSeen = append(t.errSeen, e)
			}
		}
	}
}

// loadConfig is the measured run.
type loadConfig struct {
	base             string
	clients          int
	spread           bool
	warmup, duration time.Duration
	maxRequests      int           // 0: no bound but the duration
	think            time.Duration // mean pause between a client's requests (exponential; 0: closed loop)
	seed             uint64
	onMeasure        func() // called when the recorded part starts (nil: nothing)
}

// runLoad runs cfg.clients closed-loop clients (each sends its next request
// when the last is answered, after a pause of mean cfg.think) for the
// warm-up, then records for the duration (or until maxRequests are
// recorded).
func runLoad(ctx context.Context, cfg loadConfig, w *workload) *results {
	var (
		mu       sync.Mutex
		res      = &results{ops: map[string]*opStats{}}
		recorded int
		wg       sync.WaitGroup
	)
	start := time.Now()
	measureFrom := start.Add(cfg.warmup)
	end := measureFrom.Add(cfg.duration)
	stopEarly := make(chan struct{})
	var stopOnce sync.Once
	if cfg.onMeasure != nil {
		t := time.AfterFunc(cfg.warmup, cfg.onMeasure)
		defer t.Stop()
	}
	for i := range cfg.clients {
		var src net.IP
		if cfg.spread {
			src = sourceAddr(i)
		}
		hc := newClient(src)
		rng := rand.New(rand.NewPCG(cfg.seed, uint64(i)+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer hc.CloseIdleConnections()
			ops := map[string]*opStats{}
			batch := 0
			flush := func() {
				mu.Lock()
				res.merge(ops)
				recorded += batch
				over := cfg.maxRequests > 0 && recorded >= cfg.maxRequests
				mu.Unlock()
				clear(ops)
				batch = 0
				if over {
					stopOnce.Do(func() { close(stopEarly) })
				}
			}
			defer flush()
			for {
				now := time.Now()
				if !now.Before(end) || ctx.Err() != nil {
					return
				}
				select {
				case <-stopEarly:
					return
				default:
				}
				if cfg.think > 0 {
					pause := time.Duration(rng.ExpFloat64() * float64(cfg.think))
					select {
					case <-time.After(min(pause, time.Until(end))):
					case <-stopEarly:
						return
					case <-ctx.Done():
						return
					}
					if !time.Now().Before(end) {
						return
					}
				}
				r := w.next(rng)
				t0 := time.Now()
				o := do(ctx, hc, cfg.base, r)
				d := time.Since(t0)
				if t0.Before(measureFrom) || ctx.Err() != nil {
					continue
				}
				s := ops[r.op]
				if s == nil {
					s = &opStats{group: r.group}
					ops[r.op] = s
				}
				s.add(o, d)
				if batch++; batch >= 50 || cfg.maxRequests > 0 {
					flush()
				}
			}
		}()
	}
	wg.Wait()
	res.elapsed = min(time.Since(measureFrom), cfg.duration)
	if res.elapsed <= 0 {
		res.elapsed = time.Since(start)
	}
	return res
}

// collectCursors follows the first pages of every sort (limit 20) and keeps
// the next pages' cursors: the cursor pages the clients ask for (pages
// 2…pages+1, as someone scrolling the list).
func collectCursors(ctx context.Context, hc *http.Client, base string, pages int) (map[string][]string, error) {
	out := map[string][]string{}
	for _, sort := range sorts {
		cursor := ""
		for range pages {
			q := url.Values{"sort": {sort}, "limit": {"20"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			var p listPage
			if err := getJSON(ctx, hc, base+listPath(q), &p); err != nil {
				return nil, fmt.Errorf("%s pages: %w", sort, err)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
			out[sort] = append(out[sort], cursor)
		}
	}
	return out, nil
}

// errRateLimited: the catalog answered 429 during setup.
var errRateLimited = errors.New("429 rate_limited")

func getJSON(ctx context.Context, hc *http.Client, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return errRateLimited
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d %s", u, resp.StatusCode, strings.TrimSpace(string(b[:min(len(b), 200)])))
	}
	return json.Unmarshal(b, out)
}

// --- the figures ---------------------------------------------------------------

// quantiles of d (sorted copy): p50, p95, p99, max.
func quantiles(d []time.Duration) (p50, p95, p99, mx time.Duration) {
	s := benchstack.SortedCopy(d)
	if len(s) == 0 {
		return
	}
	return benchstack.Quantile(s, .50), benchstack.Quantile(s, .95), benchstack.Quantile(s, .99), s[len(s)-1]
}

// total is every recorded request, answered or not.
func (r *results) total() int {
	n := 0
	for _, s := range r.ops {
		n += len(s.lat) + s.errors + s.limited
	}
	return n
}

// groupStats merges the operations of group.
func (r *results) groupStats(group string) *opStats {
	g := &opStats{group: group}
	for _, s := range r.ops {
		if s.group == group {
			g.lat = append(g.lat, s.lat...)
			g.errors += s.errors
			g.limited += s.limited
			g.items += s.items
		}
	}
	return g
}

// opOrder is the order of the rows: browse, search, profile, categories,
// each group's operations by name.
func (r *results) opOrder() []string {
	rank := map[string]int{groupBrowse: 0, groupSearch: 1, groupProfile: 2, groupCategories: 3}
	names := make([]string, 0, len(r.ops))
	for n := range r.ops {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := rank[r.ops[a].group] - rank[r.ops[b].group]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

// targets of issue 27: p99 of browse and search ≤ 30 ms, of a profile ≤ 15 ms.
type targets map[string]time.Duration

// verdict says whether group's p99 holds its target: a run with 429s or
// errors in the group does not count (the limit or a failure answered for
// the service).
func verdict(g *opStats, target time.Duration) (string, bool) {
	if len(g.lat) == 0 {
		return "no answers", false
	}
	_, _, p99, _ := quantiles(g.lat)
	switch {
	case g.limited > 0:
		return fmt.Sprintf("not judged: %d answers were 429 (raise RATE_LIMIT_MARKETPLACE)", g.limited), false
	case g.errors > 0:
		return fmt.Sprintf("not judged: %d errors", g.errors), false
	case p99 <= target:
		return fmt.Sprintf("p99 %s ms ≤ %s ms: met", ms(p99), ms(target)), true
	default:
		return fmt.Sprintf("p99 %s ms > %s ms: NOT met", ms(p99), ms(target)), false
	}
}

// print writes the table and the verdicts; it reports whether every target
// holds.
func (r *results) print(out io.Writer, t targets) bool {
	fmt.Fprintf(out, "\n%-30s %7s %6s %6s %8s %8s %8s %8s %7s\n", "operation", "count", "errors", "429", "p50 ms", "p95 ms", "p99 ms", "max ms", "items")
	row := func(name string, s *opStats) {
		p50, p95, p99, mx := quantiles(s.lat)
		items := ""
		if (s.group == groupBrowse || s.group == groupSearch) && len(s.lat) > 0 {
			items = fmt.Sprintf("%.1f", float64(s.items)/float64(len(s.lat)))
		}
		fmt.Fprintf(out, "%-30s %7d %6d %6d %8s %8s %8s %8s %7s\n", name, len(s.lat), s.errors, s.limited, ms(p50), ms(p95), ms(p99), ms(mx), items)
	}
	var total, errs, limited int
	for _, n := range r.opOrder() {
		s := r.ops[n]
		row(n, s)
		total += len(s.lat) + s.errors + s.limited
		errs += s.errors
		limited += s.limited
	}
	fmt.Fprintln(out)
	ok := true
	for _, g := range []string{groupBrowse, groupSearch, groupProfile, groupCategories} {
		gs := r.groupStats(g)
		row(g+" (all)", gs)
		if tg, has := t[g]; has {
			v, good := verdict(gs, tg)
			ok = ok && good
			fmt.Fprintf(out, "%30s target: %s\n", "", v)
		}
	}
	fmt.Fprintf(out, "\n%d requests in %s: %.0f requests/s; %d errors, %d answered 429\n", total, r.elapsed.Round(time.Millisecond),
		float64(total)/r.elapsed.Seconds(), errs, limited)
	for _, n := range r.opOrder() {
		for _, e := range r.ops[n].errSeen {
			fmt.Fprintf(out, "  %s: %s\n", n, e)
		}
	}
	return ok
}
