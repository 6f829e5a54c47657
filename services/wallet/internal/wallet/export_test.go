package wallet

import (
	"context"
	"errors"
	"testing"
)

func TestFormatMicros(t *testing.T) {
	for m, want := range map[int64]string{0: "0.00", 12_500_000: "12.50", 1_234: "0.001234", 10_000: "0.01",
		-2_500_000: "-2.50", 1_000_000_000_000: "1000000.00", 1_000_001: "1.000001"} {
		if got := FormatMicros(m); got != want {
			t.Errorf("FormatMicros(%d) = %s, want %s", m, got, want)
		}
	}
}

func TestExportFilters(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	fund(t, s, "exp", 10*MicrosPerDollar)
	for i, d := range []string{"50% off", "50 percent", `back\slash`, "under_score", "underXscore"} {
		if _, err := s.Post(ctx, Posting{UID: "exp", Type: TypeExpense, AmountMicros: 1, IdempotencyKey: "e" + d,
			Description: d, Provider: ProviderPlatform}); err != nil {
			t.Fatal(i, err)
		}
	}
	for search, want := range map[string]int{"50%": 1, `\s`: 1, "under_": 1, "UNDER": 2, "": 6} {
		rows, err := s.ExportTransfers(ctx, "exp", ExportFilter{Search: search})
		if err != nil || len(rows) != want {
			t.Errorf("search %q: %d rows, %v; want %d", search, len(rows), err, want)
		}
	}
	if rows, _ := s.ExportTransfers(ctx, "exp", ExportFilter{Type: "deposit"}); len(rows) != 1 {
		t.Errorf("deposits: %d", len(rows))
	}
	var ve *ValidationError
	if err := ValidateExportFilter(ExportFilter{Type: "hold"}); !errors.As(err, &ve) {
		t.Errorf("hold type accepted: %v", err)
	}
}
