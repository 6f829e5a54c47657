package pricing

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMarkupRoundsUp(t *testing.T) {
	cases := []struct {
		cost    int64
		percent int
		want    int64
	}{
		{0, 20, 0},
		{1, 20, 1},     // 0.2 → 1
		{5, 20, 1},     // exactly 1
		{6, 20, 2},     // 1.2 → 2
		{556, 20, 112}, // 111.2 → 112
		{556, 0, 0},
		{556, 300, 1668},
		{100, 1, 1},
		{-5, 20, 0},
		{math.MaxInt64, 300, math.MaxInt64},
	}
	for _, c := range cases {
		if got := Markup(c.cost, c.percent); got != c.want {
			t.Errorf("Markup(%d, %d) = %d, want %d", c.cost, c.percent, got, c.want)
		}
	}
	// Against the definition for random costs and percents.
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		cost, pct := r.Int64N(1_000_000_000), r.IntN(301)
		want := (cost*int64(pct) + 99) / 100
		if got := Markup(cost, pct); got != want {
			t.Fatalf("Markup(%d, %d) = %d, want %d", cost, pct, got, want)
		}
	}
}

func TestGreeting(t *testing.T) {
	if Greeting(0) != 0 || Greeting(-3) != 0 || Greeting(1) != 10_000 || Greeting(500) != 5_000_000 {
		t.Errorf("Greeting: %d %d %d %d", Greeting(0), Greeting(-3), Greeting(1), Greeting(500))
	}
}

// The example size: 556 µ$ of tokens, 20% markup, a 5¢ greeting.
func TestPartsOfAConsumerAnswer(t *testing.T) {
	sim := Price{Input: 500_000, Output: 1_500_000}
	p := QuoteParts(sim, 812, 100, 20, Greeting(5))
	want := Parts{CostMicros: 556, FeeMicros: 17, MarkupMicros: 112, GreetingMicros: 50_000, TotalMicros: 556 + 17 + 112 + 50_000}
	if p != want {
		t.Errorf("QuoteParts = %+v, want %+v", p, want)
	}
	// No markup, no greeting: exactly Quote.
	q := Quote(sim, 812, 100)
	if p := QuoteParts(sim, 812, 100, 0, 0); p.CostMicros != q.CostMicros || p.FeeMicros != q.FeeMicros ||
		p.TotalMicros != q.TotalMicros || p.MarkupMicros != 0 || p.GreetingMicros != 0 {
		t.Errorf("QuoteParts without markup = %+v, Quote = %+v", p, q)
	}
}

func TestWorstCaseParts(t *testing.T) {
	sim := Price{Input: 500_000, Output: 1_500_000}
	worstCost := Cost(sim, 1000, 1024)
	want := worstCost + Fee(worstCost) + Markup(worstCost, 50) + 20_000
	if got := WorstCaseParts(sim, 1000, 1024, 50, 20_000); got != want {
		t.Errorf("WorstCaseParts = %d, want %d", got, want)
	}
	if got, base := WorstCaseParts(sim, 1000, 1024, 0, 0), WorstCase(sim, 1000, 1024); got != base {
		t.Errorf("WorstCaseParts without markup = %d, WorstCase = %d", got, base)
	}
	// Saturates instead of wrapping.
	if got := WorstCaseParts(Price{Input: MaxPrice, Output: MaxPrice}, math.MaxInt64, math.MaxInt64, 300, 5_000_000); got != math.MaxInt64 {
		t.Errorf("huge worst case = %d", got)
	}
}

func TestCapAtKeepsGreetingThenPercentagesAndSums(t *testing.T) {
	// Within the hold: unchanged.
	p := PartsOf(1000, 20, 50_000)
	if got := p.CapAt(p.TotalMicros, 20); got != p {
		t.Errorf("CapAt(total) = %+v, want %+v", got, p)
	}
	// The provider counted beyond the hold of a worst cost of 1,000.
	hold := PartsOf(1000, 20, 50_000).TotalMicros
	actual := PartsOf(1300, 20, 50_000)
	got := actual.CapAt(hold, 20)
	if got.TotalMicros != hold || got.CostMicros+got.FeeMicros+got.MarkupMicros+got.GreetingMicros != hold {
		t.Fatalf("capped parts %+v do not sum to the hold %d", got, hold)
	}
	if got.GreetingMicros != 50_000 {
		t.Errorf("greeting not kept: %+v", got)
	}
	// Fee and markup are those of the reserved worst cost (1,000).
	if got.FeeMicros != Fee(1000) || got.MarkupMicros != Markup(1000, 20) || got.CostMicros != 1000 {
		t.Errorf("capped = %+v", got)
	}
	// A hold below the greeting (cannot happen in practice) keeps only greeting.
	if g := actual.CapAt(30_000, 20); g.GreetingMicros != 30_000 || g.CostMicros != 0 || g.FeeMicros != 0 || g.MarkupMicros != 0 || g.TotalMicros != 30_000 {
		t.Errorf("CapAt(30,000) = %+v", g)
	}
	// Random: always sums to the hold, never negative, greeting first.
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		pct := r.IntN(301)
		greet := Greeting(r.IntN(501))
		worst := r.Int64N(5_000_000)
		hold := PartsOf(worst, pct, greet).TotalMicros
		a := PartsOf(worst+1+r.Int64N(1_000_000), pct, greet)
		c := a.CapAt(hold, pct)
		if c.TotalMicros != hold || c.CostMicros+c.FeeMicros+c.MarkupMicros+c.GreetingMicros != hold ||
			c.CostMicros < 0 || c.FeeMicros < 0 || c.MarkupMicros < 0 || c.GreetingMicros != greet {
			t.Fatalf("CapAt(%d, %d) of %+v = %+v", hold, pct, a, c)
		}
		if c.FeeMicros < Fee(worst) || c.MarkupMicros < Markup(worst, pct) || c.CostMicros < worst {
			t.Fatalf("capped below the reservation's parts: worst %d, %+v", worst, c)
		}
	}
}
