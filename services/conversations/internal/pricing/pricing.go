// Package pricing is the one price table of the models the conversations
// service may call, and the exact integer arithmetic of what an answer costs
// (issue 14, "Metering"):
//
//	costMicros  = ceil((inputTokens × inputPrice + outputTokens × outputPrice) / 1,000,000)
//	feeMicros   = ceil(costMicros × 3 / 100)
//	totalMicros = costMicros + feeMicros
//
// with prices in micro-dollars per 1M tokens. Money never goes through
// floating point: the products are computed in 128 bits, so no token count or
// price that fits an int64 can overflow, and a result beyond int64 saturates
// at math.MaxInt64 (a reservation that large is refused by the wallet rather
// than wrapping around to a small or negative amount).
package pricing

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PerMillion is the unit of prices: they are per 1,000,000 tokens.
const PerMillion = 1_000_000

// FeePercent is the platform's service fee on top of the model cost (SPEC,
// Business constants: 3%).
const FeePercent = 3

// MaxPrice bounds a configured price (micro-dollars per 1M tokens): $1,000,000
// per 1M tokens is far above any real model and catches a price typed in the
// wrong unit.
const MaxPrice = 1_000_000_000_000

// Price is what a model costs, in micro-dollars per 1M tokens.
type Price struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Table maps model ids to prices.
type Table map[string]Price

// SimModel is the LLM simulator's model id (internal/llmsim).
const SimModel = "agentic-sim"

// Default is the checked-in table. Real models at their list prices
// (USD per 1M tokens × 1,000,000); the simulator has a price so that local
// costs are visible in the UI and the wallet.
var Default = Table{
	SimModel:        {Input: 500_000, Output: 1_500_000},    // $0.50 / $1.50
	"gpt-4o-mini":   {Input: 150_000, Output: 600_000},      // $0.15 / $0.60
	"gpt-4o":        {Input: 2_500_000, Output: 10_000_000}, // $2.50 / $10.00
	"gpt-4.1":       {Input: 2_000_000, Output: 8_000_000},  // $2.00 / $8.00
	"gpt-4.1-mini":  {Input: 400_000, Output: 1_600_000},    // $0.40 / $1.60
	"gpt-4.1-nano":  {Input: 100_000, Output: 400_000},      // $0.10 / $0.40
	"o4-mini":       {Input: 1_100_000, Output: 4_400_000},  // $1.10 / $4.40
	"gpt-5-mini":    {Input: 250_000, Output: 2_000_000},    // $0.25 / $2.00
	"gpt-5":         {Input: 1_250_000, Output: 10_000_000}, // $1.25 / $10.00
	"gpt-3.5-turbo": {Input: 500_000, Output: 1_500_000},    // $0.50 / $1.50
}

// ErrUnknownModel: the model has no price; the service refuses to call it
// (an unpriced answer could not be metered).
var ErrUnknownModel = errors.New("pricing: model has no price")

// Clone returns a copy of t.
func (t Table) Clone() Table {
	c := make(Table, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

// Models returns the priced model ids, sorted.
func (t Table) Models() []string {
	ids := make([]string, 0, len(t))
	for k := range t {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return ids
}

// snapshotSuffix matches the date OpenAI appends to a resolved model id
// ("gpt-4o-mini-2024-07-18"), which is the same model at the same price.
var snapshotSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}$`)

// Lookup returns the price of model. Besides an exact match it accepts:
//   - a dated snapshot of a priced model ("gpt-4o-mini-2024-07-18"), which
//     OpenAI reports back for an undated request;
//   - the simulator's model with fault-injection options
//     ("agentic-sim+cut5", "agentic-sim:latency=20ms"), which is still the
//     simulator at its price.
//
// Anything else is ErrUnknownModel: configure it in LLM_PRICES.
func (t Table) Lookup(model string) (Price, error) {
	if p, ok := t[model]; ok {
		return p, nil
	}
	if base := snapshotSuffix.ReplaceAllString(model, ""); base != model {
		if p, ok := t[base]; ok {
			return p, nil
		}
	}
	if rest, ok := strings.CutPrefix(model, SimModel); ok && rest != "" && strings.ContainsRune("+:", rune(rest[0])) {
		if p, ok := t[SimModel]; ok {
			return p, nil
		}
	}
	return Price{}, fmt.Errorf("%w: %q (set its price in LLM_PRICES)", ErrUnknownModel, model)
}

// Validate checks that every price is within [0, MaxPrice].
func (t Table) Validate() error {
	for _, id := range t.Models() {
		p := t[id]
		if strings.TrimSpace(id) == "" {
			return errors.New("pricing: empty model id")
		}
		if p.Input < 0 || p.Output < 0 || p.Input > MaxPrice || p.Output > MaxPrice {
			return fmt.Errorf("pricing: %q: prices must be between 0 and %d micro-dollars per 1M tokens", id, int64(MaxPrice))
		}
	}
	return nil
}

// Load returns Default with the overrides of config applied: the value of
// LLM_PRICES, a JSON object {"model": {"input": n, "output": n}, ...} with
// integer micro-dollars per 1M tokens. A listed model replaces its default
// entry as a whole (both prices are required, so a typo cannot leave a price
// at zero); other defaults stay. Empty config returns Default.
func Load(config string) (Table, error) {
	t := Default.Clone()
	if strings.TrimSpace(config) == "" {
		return t, nil
	}
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(config), &raw); err != nil {
		return nil, fmt.Errorf("pricing: LLM_PRICES is not a JSON object of {\"model\":{\"input\":n,\"output\":n}}: %w", err)
	}
	for id, fields := range raw {
		var p Price
		for _, f := range []struct {
			name string
			dst  *int64
		}{{"input", &p.Input}, {"output", &p.Output}} {
			n, ok := fields[f.name]
			if !ok {
				return nil, fmt.Errorf("pricing: LLM_PRICES %q: missing %q", id, f.name)
			}
			// Only a bare JSON integer: "1", 1.5 or 1e3 are refused rather
			// than guessed at, since a price is money.
			v, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("pricing: LLM_PRICES %q: %q must be an integer (micro-dollars per 1M tokens), got %s", id, f.name, n)
			}
			*f.dst = v
		}
		for k := range fields {
			if k != "input" && k != "output" {
				return nil, fmt.Errorf("pricing: LLM_PRICES %q: unknown field %q", id, k)
			}
		}
		t[id] = p
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Cost is the model cost of inTokens input and outTokens output tokens in
// micro-dollars, rounded up: ceil((in×p.Input + out×p.Output) / 1,000,000).
// Negative counts or prices count as zero. Saturates at math.MaxInt64.
func Cost(p Price, inTokens, outTokens int64) int64 {
	hi1, lo1 := bits.Mul64(nonNeg(inTokens), nonNeg(p.Input))
	hi2, lo2 := bits.Mul64(nonNeg(outTokens), nonNeg(p.Output))
	lo, carry := bits.Add64(lo1, lo2, 0)
	hi, overflow := bits.Add64(hi1, hi2, carry)
	if overflow != 0 || hi >= PerMillion {
		// The quotient would not fit in 64 bits (bits.Div64 requires hi < divisor).
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, PerMillion)
	if q >= math.MaxInt64 {
		return math.MaxInt64
	}
	if r != 0 {
		q++ // ceil; cannot wrap: q < math.MaxInt64 here.
	}
	return int64(q)
}

// Fee is the service fee on a cost: ceil(cost × 3 / 100). Computed as
// 3×(cost/100) + ceil(3×(cost%100)/100) so cost×3 never overflows.
func Fee(costMicros int64) int64 {
	if costMicros <= 0 {
		return 0
	}
	q, r := costMicros/100, costMicros%100
	extra := (r*FeePercent + 99) / 100
	if q > (math.MaxInt64-extra)/FeePercent {
		return math.MaxInt64
	}
	return q*FeePercent + extra
}

// Total is cost plus its fee, saturating at math.MaxInt64.
func Total(costMicros int64) int64 {
	if costMicros <= 0 {
		return 0
	}
	fee := Fee(costMicros)
	if costMicros > math.MaxInt64-fee {
		return math.MaxInt64
	}
	return costMicros + fee
}

// Amounts is the priced breakdown of one answer.
type Amounts struct {
	CostMicros  int64 `json:"costMicros"`
	FeeMicros   int64 `json:"feeMicros"`
	TotalMicros int64 `json:"totalMicros"`
}

// Quote prices an answer that used inTokens input and outTokens output tokens.
func Quote(p Price, inTokens, outTokens int64) Amounts {
	c := Cost(p, inTokens, outTokens)
	return Amounts{CostMicros: c, FeeMicros: Fee(c), TotalMicros: Total(c)}
}

// WorstCase is the most an answer to a prompt of inputTokens can cost, fee
// included, when the model writes all maxOutputTokens: what the wallet holds
// before the model is called.
func WorstCase(p Price, inputTokens, maxOutputTokens int64) int64 {
	return Total(Cost(p, inputTokens, maxOutputTokens))
}

func nonNeg(v int64) uint64 {
	if v < 0 {
		return 0
	}
	return uint64(v)
}
