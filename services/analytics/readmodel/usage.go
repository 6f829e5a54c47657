package readmodel

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Usage ranges (GET /api/usage).
const (
	// DefaultUsageDays is the length of the default range, ending today (UTC).
	DefaultUsageDays = 30
	// MaxUsageDays is the longest range, both ends included.
	MaxUsageDays = 366
	// DateLayout is the layout of from, to and each day's date.
	DateLayout = "2006-01-02"
)

// Groupings of GET /api/usage.
const (
	GroupByDay   = "day"
	GroupByAgent = "agent"
)

// Spend entry kinds (spend_entries.kind).
const (
	SpendAnswer   = "answer"
	SpendAgentFee = "agent_fee"
)

// UsageError is a usage request the caller got wrong: Code is the API's
// error code (invalid_range or invalid_query).
type UsageError struct {
	Code    string
	Message string
}

func (e *UsageError) Error() string { return e.Message }

// Error codes of UsageError.
const (
	CodeInvalidRange = "invalid_range"
	CodeInvalidQuery = "invalid_query"
)

// UsageRequest is the raw query of GET /api/usage (empty = absent).
type UsageRequest struct {
	From, To, GroupBy string
}

// UsageRange is a validated request: whole UTC days From..To (both included).
type UsageRange struct {
	From, To time.Time // midnight UTC
	GroupBy  string
}

// Days is the number of days in the range, both ends included.
func (r UsageRange) Days() int { return int(r.To.Sub(r.From)/(24*time.Hour)) + 1 }

// ResolveUsageRange validates a request against today's date (UTC): to
// defaults to today, from to 29 days before to (30 days in all); groupBy to
// day. A range must not start after it ends nor span more than 366 days.
func ResolveUsageRange(req UsageRequest, now time.Time) (UsageRange, error) {
	r := UsageRange{GroupBy: req.GroupBy}
	switch r.GroupBy {
	case "":
		r.GroupBy = GroupByDay
	case GroupByDay, GroupByAgent:
	default:
		return UsageRange{}, &UsageError{Code: CodeInvalidQuery, Message: "groupBy must be day or agent"}
	}
	today := now.UTC().Truncate(24 * time.Hour)
	r.To = today
	if req.To != "" {
		to, err := time.Parse(DateLayout, req.To)
		if err != nil {
			return UsageRange{}, &UsageError{Code: CodeInvalidRange, Message: "to must be a date (YYYY-MM-DD)"}
		}
		r.To = to
	}
	r.From = r.To.AddDate(0, 0, -(DefaultUsageDays - 1))
	if req.From != "" {
		from, err := time.Parse(DateLayout, req.From)
		if err != nil {
			return UsageRange{}, &UsageError{Code: CodeInvalidRange, Message: "from must be a date (YYYY-MM-DD)"}
		}
		r.From = from
	}
	if r.From.After(r.To) {
		return UsageRange{}, &UsageError{Code: CodeInvalidRange, Message: "from must not be after to"}
	}
	if r.Days() > MaxUsageDays {
		return UsageRange{}, &UsageError{Code: CodeInvalidRange, Message: "the range must be at most 366 days"}
	}
	return r, nil
}

// Usage is what one user spent in a range: every day of the range (zeros
// included, so a chart has a continuous axis) and the per-agent totals.
type Usage struct {
	From, To    string // YYYY-MM-DD
	TotalMicros int64
	// FeeMicros is the part of TotalMicros that is monthly agent fees.
	FeeMicros int64
	Days      []UsageDay
	Agents    []AgentUsage
}

// UsageDay is one UTC day. Agents is empty when the request grouped by agent.
type UsageDay struct {
	Date         string
	TotalMicros  int64
	Interactions int64
	Agents       []AgentUsage
}

// AgentUsage is the spend on one agent (answers + monthly fees) and the
// number of answers.
type AgentUsage struct {
	AgentID      string
	AgentName    string
	AmountMicros int64
	Interactions int64
	// FeeMicros is the part of AmountMicros that is the agent's monthly fee
	// (the wallet lists fees apart from usage).
	FeeMicros int64
}

// Usage implements Service: the caller's own spend (entries they paid) in the
// range, per day and per agent.
func (s *Store) Usage(ctx context.Context, uid string, req UsageRequest) (Usage, error) {
	r, err := ResolveUsageRange(req, s.now())
	if err != nil {
		return Usage{}, err
	}
	rows, err := s.pool.Query(ctx, `
		SELECT to_char(timezone('UTC', e.occurred_at), 'YYYY-MM-DD') AS day, e.agent_id,
		       sum(e.amount_micros)::bigint,
		       count(*) FILTER (WHERE e.kind = 'answer'),
		       COALESCE(sum(e.amount_micros) FILTER (WHERE e.kind = 'agent_fee'), 0)::bigint,
		       COALESCE(max(g.name), ''),
		       COALESCE((array_agg(e.agent_name_hint ORDER BY e.occurred_at DESC, e.entry_id DESC)
		                   FILTER (WHERE e.agent_name_hint <> ''))[1], ''),
		       max(e.occurred_at)
		FROM spend_entries e
		LEFT JOIN agents g ON g.agent_id = e.agent_id
		WHERE e.payer_uid = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3
		GROUP BY 1, 2`, uid, r.From, r.To.AddDate(0, 0, 1))
	if err != nil {
		return Usage{}, fmt.Errorf("query usage: %w", err)
	}
	defer rows.Close()

	var cells []usageCell
	for rows.Next() {
		var c usageCell
		if err := rows.Scan(&c.Day, &c.Agent.AgentID, &c.Agent.AmountMicros, &c.Agent.Interactions, &c.Agent.FeeMicros,
			&c.Agent.AgentName, &c.Hint, &c.Last); err != nil {
			return Usage{}, fmt.Errorf("scan usage: %w", err)
		}
		cells = append(cells, c)
	}
	if err := rows.Err(); err != nil {
		return Usage{}, fmt.Errorf("query usage: %w", err)
	}
	return buildUsage(r, cells), nil
}

// usageCell is one (day, agent) aggregate. Agent.AgentName is the agent's
// current name from the catalog ("" if unknown); Hint is the latest name the
// spend events carried and Last the time of the latest entry.
type usageCell struct {
	Day   string
	Agent AgentUsage
	Hint  string
	Last  time.Time
}

// buildUsage assembles the answer: every day of the range (zeros where
// nothing was spent), each day's agents and the per-agent totals, sorted by
// amount (largest first), then name, then id. An agent's name is its catalog
// name, else the latest name an event carried, else UnknownAgentName.
func buildUsage(r UsageRange, cells []usageCell) Usage {
	catalog := map[string]string{}
	hints := map[string]usageCell{}
	for _, c := range cells {
		id := c.Agent.AgentID
		if c.Agent.AgentName != "" {
			catalog[id] = c.Agent.AgentName
		}
		if h, ok := hints[id]; c.Hint != "" && (!ok || c.Last.After(h.Last)) {
			hints[id] = c
		}
	}
	name := func(id string) string {
		if n := catalog[id]; n != "" {
			return n
		}
		if h, ok := hints[id]; ok {
			return h.Hint
		}
		return UnknownAgentName
	}

	u := Usage{From: r.From.Format(DateLayout), To: r.To.Format(DateLayout), Days: make([]UsageDay, 0, r.Days()), Agents: []AgentUsage{}}
	index := map[string]int{}
	for d, i := r.From, 0; !d.After(r.To); d, i = d.AddDate(0, 0, 1), i+1 {
		date := d.Format(DateLayout)
		index[date] = i
		u.Days = append(u.Days, UsageDay{Date: date, Agents: []AgentUsage{}})
	}
	totals := map[string]*AgentUsage{}
	for _, c := range cells {
		i, ok := index[c.Day]
		if !ok {
			continue
		}
		a := c.Agent
		a.AgentName = name(a.AgentID)
		day := &u.Days[i]
		day.TotalMicros += a.AmountMicros
		day.Interactions += a.Interactions
		if r.GroupBy == GroupByDay {
			day.Agents = append(day.Agents, a)
		}
		u.TotalMicros += a.AmountMicros
		u.FeeMicros += a.FeeMicros
		t := totals[a.AgentID]
		if t == nil {
			t = &AgentUsage{AgentID: a.AgentID, AgentName: a.AgentName}
			totals[a.AgentID] = t
		}
		t.AmountMicros += a.AmountMicros
		t.Interactions += a.Interactions
		t.FeeMicros += a.FeeMicros
	}
	for _, t := range totals {
		u.Agents = append(u.Agents, *t)
	}
	slices.SortFunc(u.Agents, compareAgentUsage)
	for i := range u.Days {
		slices.SortFunc(u.Days[i].Agents, compareAgentUsage)
	}
	return u
}

func compareAgentUsage(a, b AgentUsage) int {
	return cmp.Or(cmp.Compare(b.AmountMicros, a.AmountMicros), cmp.Compare(b.Interactions, a.Interactions),
		cmp.Compare(a.AgentName, b.AgentName), cmp.Compare(a.AgentID, b.AgentID))
}
