package pricing

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestCostRoundsUp(t *testing.T) {
	sim := Price{Input: 500_000, Output: 1_500_000}
	cases := []struct {
		name    string
		p       Price
		in, out int64
		want    int64
	}{
		{"nothing", sim, 0, 0, 0},
		// 1×500,000 = 500,000 → 0.5 µ$ → 1.
		{"one input token rounds up", sim, 1, 0, 1},
		// 2×500,000 = 1,000,000 exactly → 1, no extra micro-dollar.
		{"exact multiple", sim, 2, 0, 1},
		// 3×500,000 = 1,500,000 → 1.5 → 2.
		{"half rounds up", sim, 3, 0, 2},
		// 812 in, 100 out: 406,000,000 + 150,000,000 = 556,000,000 → 556 exactly.
		{"issue example size", sim, 812, 100, 556},
		// gpt-4o-mini: 1,000×150,000 + 1×600,000 = 150,600,000 → 150.6 → 151.
		{"mixed", Price{Input: 150_000, Output: 600_000}, 1000, 1, 151},
		// 1 token at 1 µ$/1M = 0.000001 µ$ → still 1: any usage costs something.
		{"tiny price", Price{Input: 1, Output: 1}, 1, 0, 1},
		{"free model", Price{}, 1_000_000, 1_000_000, 0},
		{"negative tokens count as zero", sim, -5, 2, 3},
	}
	for _, c := range cases {
		if got := Cost(c.p, c.in, c.out); got != c.want {
			t.Errorf("%s: Cost(%v, %d, %d) = %d, want %d", c.name, c.p, c.in, c.out, got, c.want)
		}
	}
}

func TestFeeRoundsUp(t *testing.T) {
	cases := map[int64]int64{
		0:    0,
		1:    1,  // 0.03 → 1
		33:   1,  // 0.99 → 1
		34:   2,  // 1.02 → 2
		100:  3,  // exactly 3
		101:  4,  // 3.03 → 4
		556:  17, // 16.68 → 17
		-10:  0,
		1000: 30,
	}
	for cost, want := range cases {
		if got := Fee(cost); got != want {
			t.Errorf("Fee(%d) = %d, want %d", cost, got, want)
		}
	}
	if got := Total(556); got != 573 {
		t.Errorf("Total(556) = %d, want 573", got)
	}
}

// The integer formulas agree with exact rational arithmetic, including where
// int64 products would overflow.
func TestCostAndFeeMatchExactArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	million := big.NewInt(PerMillion)
	ceilDiv := func(n, d *big.Int) *big.Int {
		q, m := new(big.Int).QuoRem(n, d, new(big.Int))
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	maxI := big.NewInt(math.MaxInt64)
	for i := 0; i < 5000; i++ {
		var p Price
		var in, out int64
		if i%2 == 0 {
			p = Price{Input: r.Int64N(MaxPrice + 1), Output: r.Int64N(MaxPrice + 1)}
			in, out = r.Int64N(2_000_000), r.Int64N(200_000)
		} else { // huge values: products far beyond int64
			p = Price{Input: r.Int64(), Output: r.Int64()}
			in, out = r.Int64N(1<<40), r.Int64N(1<<40)
		}
		n := new(big.Int).Mul(big.NewInt(in), big.NewInt(p.Input))
		n.Add(n, new(big.Int).Mul(big.NewInt(out), big.NewInt(p.Output)))
		want := ceilDiv(n, million)
		if want.Cmp(maxI) > 0 {
			want = maxI
		}
		got := Cost(p, in, out)
		if got != want.Int64() {
			t.Fatalf("Cost(%v,%d,%d) = %d, want %s", p, in, out, got, want)
		}
		fee := ceilDiv(new(big.Int).Mul(big.NewInt(got), big.NewInt(FeePercent)), big.NewInt(100))
		if fee.Cmp(maxI) > 0 {
			fee = maxI
		}
		if f := Fee(got); f != fee.Int64() {
			t.Fatalf("Fee(%d) = %d, want %s", got, f, fee)
		}
		total := Total(got)
		if total < got || total < 0 {
			t.Fatalf("Total(%d) = %d: wrapped", got, total)
		}
	}
}

func TestSaturatesInsteadOfWrapping(t *testing.T) {
	p := Price{Input: math.MaxInt64, Output: math.MaxInt64}
	if got := Cost(p, math.MaxInt64, math.MaxInt64); got != math.MaxInt64 {
		t.Fatalf("Cost at the limits = %d, want MaxInt64", got)
	}
	if got := Fee(math.MaxInt64); got <= 0 {
		t.Fatalf("Fee(MaxInt64) = %d, wrapped", got)
	}
	if got := Total(math.MaxInt64); got != math.MaxInt64 {
		t.Fatalf("Total(MaxInt64) = %d, want MaxInt64", got)
	}
	// Just below the saturation point the exact ceil is still returned.
	if got := Cost(Price{Input: PerMillion}, math.MaxInt64, 0); got != math.MaxInt64 {
		t.Fatalf("Cost(MaxInt64 tokens at 1 µ$ each) = %d", got)
	}
	if got := Cost(Price{Input: PerMillion}, math.MaxInt64-1, 0); got != math.MaxInt64-1 {
		t.Fatalf("Cost(MaxInt64-1 tokens at 1 µ$ each) = %d", got)
	}
}

func TestWorstCaseAndQuote(t *testing.T) {
	sim := Default[SimModel]
	// 1,000 in + 1,024 out: 500,000,000 + 1,536,000,000 = 2,036,000,000 → 2,036; fee 61.08 → 62.
	if got := WorstCase(sim, 1000, 1024); got != 2036+62 {
		t.Fatalf("WorstCase = %d, want %d", got, 2036+62)
	}
	q := Quote(sim, 812, 100)
	if q != (Amounts{CostMicros: 556, FeeMicros: 17, TotalMicros: 573}) {
		t.Fatalf("Quote = %+v", q)
	}
	// The actual answer never costs more than the reservation.
	for out := int64(0); out <= 1024; out += 37 {
		if Quote(sim, 1000, out).TotalMicros > WorstCase(sim, 1000, 1024) {
			t.Fatalf("answer with %d output tokens costs more than the worst case", out)
		}
	}
}

func TestLookup(t *testing.T) {
	tab := Default
	for _, model := range []string{"agentic-sim", "agentic-sim+cut5", "agentic-sim:latency=20ms", "gpt-4o-mini", "gpt-4o-mini-2024-07-18"} {
		if _, err := tab.Lookup(model); err != nil {
			t.Errorf("Lookup(%q): %v", model, err)
		}
	}
	if p, _ := tab.Lookup("gpt-4o-mini-2024-07-18"); p != tab["gpt-4o-mini"] {
		t.Errorf("snapshot priced %v, want %v", p, tab["gpt-4o-mini"])
	}
	for _, model := range []string{"", "llama3.1:8b", "agentic-simulator", "gpt-4o-mini-turbo"} {
		if _, err := tab.Lookup(model); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("Lookup(%q) = %v, want ErrUnknownModel", model, err)
		}
	}
}

func TestLoad(t *testing.T) {
	tab, err := Load("")
	if err != nil || tab[SimModel] != Default[SimModel] {
		t.Fatalf("Load(\"\") = %v, %v", tab, err)
	}
	tab, err = Load(`{"llama3.1:8b":{"input":0,"output":0},"agentic-sim":{"input":1,"output":2}}`)
	if err != nil {
		t.Fatal(err)
	}
	if tab["agentic-sim"] != (Price{1, 2}) || tab["gpt-4o-mini"] != Default["gpt-4o-mini"] {
		t.Fatalf("override not applied over defaults: %v", tab)
	}
	if _, err := tab.Lookup("llama3.1:8b"); err != nil {
		t.Fatalf("configured model unknown: %v", err)
	}
	if Default["agentic-sim"] == (Price{1, 2}) {
		t.Fatal("Load mutated Default")
	}
	for _, bad := range []string{
		`[1]`,
		`{"m":{"input":1}}`,
		`{"m":{"input":1.5,"output":1}}`,
		`{"m":{"input":-1,"output":1}}`,
		`{"m":{"input":1,"output":1,"cached":1}}`,
		`{"m":{"input":"1","output":1}}`,
		`{"m":{"input":1,"output":1000000000000001}}`,
	} {
		if _, err := Load(bad); err == nil {
			t.Errorf("Load(%s) accepted", bad)
		}
	}
}
