package pricing

import "math"

// What a consumer of a listed agent pays per answer (issue 28, "Who pays
// what"): the owner's and a subscriber's answers cost cost + fee; a
// consumer's add the creator's markup and, on the conversation's first
// charged answer, the greeting cost:
//
//	markupMicros   = ceil(costMicros × markupPercent / 100)
//	greetingMicros = greetingCostCents × 10,000
//	totalMicros    = costMicros + feeMicros + markupMicros + greetingMicros

// MicrosPerCent converts cents to micro-dollars.
const MicrosPerCent = 10_000

// Parts is the priced breakdown of one answer, every part included in
// TotalMicros (Markup and Greeting are 0 but for a consumer).
type Parts struct {
	CostMicros     int64
	FeeMicros      int64
	MarkupMicros   int64
	GreetingMicros int64
	TotalMicros    int64
}

// Markup is the creator's markup on a cost: ceil(cost × percent / 100),
// computed as percent×(cost/100) + ceil(percent×(cost%100)/100) so that
// cost × percent never overflows; saturates at math.MaxInt64. A cost or
// percent ≤ 0 has no markup.
func Markup(costMicros int64, percent int) int64 {
	if costMicros <= 0 || percent <= 0 {
		return 0
	}
	p := int64(percent)
	q, r := costMicros/100, costMicros%100
	extra := (r*p + 99) / 100 // r < 100, p is an int: no overflow for any sane percent
	if q > (math.MaxInt64-extra)/p {
		return math.MaxInt64
	}
	return q*p + extra
}

// Greeting is a greeting cost in cents as micro-dollars (≤ 0: none).
func Greeting(cents int) int64 {
	if cents <= 0 {
		return 0
	}
	return int64(cents) * MicrosPerCent
}

// add sums non-negative amounts, saturating at math.MaxInt64.
func add(vs ...int64) int64 {
	var sum int64
	for _, v := range vs {
		if v <= 0 {
			continue
		}
		if sum > math.MaxInt64-v {
			return math.MaxInt64
		}
		sum += v
	}
	return sum
}

// PartsOf prices a cost: its fee, the markup at markupPercent and the
// greeting (micro-dollars, already decided: the first charged answer's).
func PartsOf(costMicros int64, markupPercent int, greetingMicros int64) Parts {
	costMicros = max(costMicros, 0)
	greetingMicros = max(greetingMicros, 0)
	p := Parts{CostMicros: costMicros, FeeMicros: Fee(costMicros), MarkupMicros: Markup(costMicros, markupPercent),
		GreetingMicros: greetingMicros}
	p.TotalMicros = add(p.CostMicros, p.FeeMicros, p.MarkupMicros, p.GreetingMicros)
	return p
}

// QuoteParts prices an answer that used inTokens input and outTokens output
// tokens (Quote plus the markup and the greeting).
func QuoteParts(p Price, inTokens, outTokens int64, markupPercent int, greetingMicros int64) Parts {
	return PartsOf(Cost(p, inTokens, outTokens), markupPercent, greetingMicros)
}

// WorstCaseParts is what the wallet holds before the model is called for a
// consumer: the worst cost (all maxOutputTokens written) with its fee, its
// markup and the greeting: worstCost + ceil(worstCost×3/100) +
// ceil(worstCost×markup/100) + greeting. With no markup and no greeting it
// is WorstCase.
func WorstCaseParts(p Price, inputTokens, maxOutputTokens int64, markupPercent int, greetingMicros int64) int64 {
	return PartsOf(Cost(p, inputTokens, maxOutputTokens), markupPercent, greetingMicros).TotalMicros
}

// CapAt returns the parts billed when they exceed what was held (the
// provider counted beyond the reservation's margin): the total becomes the
// hold, and the parts still sum to it. The order:
//
//  1. the greeting is kept whole (it does not depend on tokens; only a hold
//     smaller than the greeting itself, which cannot happen since the hold
//     includes it, cuts it to the hold);
//  2. the rest is what the tokens may cost: the fee and the markup become
//     their percentages of the largest cost whose cost + fee + markup fits
//     in it (at least the reservation's worst cost, so they are never below
//     what the reservation assumed);
//  3. the cost takes what remains (that largest cost plus the rounding
//     remainder), so cost + fee + markup + greeting = hold.
//
// markupPercent is the percent the parts were priced with. Parts within
// the hold are returned unchanged.
func (a Parts) CapAt(hold int64, markupPercent int) Parts {
	if a.TotalMicros <= hold {
		return a
	}
	hold = max(hold, 0)
	out := Parts{TotalMicros: hold, GreetingMicros: min(a.GreetingMicros, hold)}
	rest := hold - out.GreetingMicros
	c := largestCostWithin(rest, markupPercent)
	out.FeeMicros = Fee(c)
	out.MarkupMicros = Markup(c, markupPercent)
	out.CostMicros = rest - out.FeeMicros - out.MarkupMicros
	return out
}

// largestCostWithin is the largest cost c ≥ 0 with c + Fee(c) +
// Markup(c, percent) ≤ budget (binary search: the sum grows with c).
func largestCostWithin(budget int64, percent int) int64 {
	if budget <= 0 {
		return 0
	}
	lo, hi := int64(0), budget
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if add(mid, Fee(mid), Markup(mid, percent)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
