package app

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

func downloadCSV(t *testing.T, app running, uid, query string) (int, http.Header, [][]string) {
	t.Helper()
	req, _ := http.NewRequest("GET", app.http+"/api/user/transactions.csv"+query, nil)
	req.Header.Set("Authorization", "Bearer token-"+uid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return resp.StatusCode, resp.Header, nil
	}
	rows, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, raw)
	}
	return resp.StatusCode, resp.Header, rows
}

// allPages reads the JSON history page by page (the table's rows).
func allPages(t *testing.T, app running, uid string) []map[string]any {
	t.Helper()
	var out []map[string]any
	snapshot := ""
	for offset := 0; ; offset += 7 {
		code, body := call(t, "GET", fmt.Sprintf("%s/api/user/transactions?limit=7&offset=%d%s", app.http, offset, snapshot), "token-"+uid, "")
		if code != 200 {
			t.Fatalf("page: %d %v", code, body)
		}
		d := body["data"].(map[string]any)
		for _, it := range d["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		meta := d["meta"].(map[string]any)
		snapshot = fmt.Sprintf("&snapshot=%d", int64(meta["snapshot"].(float64)))
		if meta["hasMore"] != true {
			return out
		}
	}
}

// TestTransactionsCSV: the export has exactly the table's rows (every page),
// the filter applied, descriptions with commas, quotes, line breaks and
// formula characters escaped.
func TestTransactionsCSV(t *testing.T) {
	app := start(t, redisURL())
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("yuri")
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 50_000_000, IdempotencyKey: "fund", Description: "Payout"}); err != nil {
		t.Fatal(err)
	}
	_, payURL := checkout(t, app, uid, 1000)
	payHosted(t, payURL)
	descs := []string{`Math "Tutor", v2`, "Two\nlines", `=HYPERLINK("http://x")`, "Poet · 12 tokens", "100% off_sale"}
	for i := range 20 {
		h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 100_000, IdempotencyKey: fmt.Sprint("r", i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: int64(1234 + i),
			Description: descs[i%len(descs)]}); err != nil {
			t.Fatal(err)
		}
	}
	table := allPages(t, app, uid)
	code, hdr, rows := downloadCSV(t, app, uid, "")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") ||
		hdr.Get("Content-Disposition") != `attachment; filename="transactions.csv"` {
		t.Fatalf("csv: %d %v", code, hdr)
	}
	if strings.Join(rows[0], ",") != "date,description,type,amount,provider,id" || len(rows)-1 != len(table) || len(table) != 22 {
		t.Fatalf("%d csv rows for %d table rows: header %v", len(rows)-1, len(table), rows[0])
	}
	for i, it := range table {
		r := rows[i+1]
		desc := it["description"].(string)
		if strings.HasPrefix(desc, "=") {
			desc = "'" + desc
		}
		if r[0] != it["date"] || r[1] != desc || r[2] != it["type"] || r[4] != it["provider"] || r[5] != it["id"] {
			t.Fatalf("row %d: %q vs %v", i, r, it)
		}
		if want := fmt.Sprint(it["amount"]); !strings.HasPrefix(r[3], strings.TrimRight(strings.TrimRight(want, "0"), ".")) {
			t.Fatalf("row %d amount %s vs %v", i, r[3], it["amount"])
		}
	}
	if rows[len(rows)-1][3] != "50.00" || rows[1][3] != "0.001253" {
		t.Fatalf("amounts %q %q", rows[len(rows)-1][3], rows[1][3])
	}
	// Filters: type and a search with LIKE's special characters taken literally.
	_, _, exp := downloadCSV(t, app, uid, "?type=expense&search="+url.QueryEscape("% OFF_"))
	if len(exp) != 1+4 || exp[1][1] != "100% off_sale" {
		t.Fatalf("filtered: %v", exp)
	}
	_, _, stripeRows := downloadCSV(t, app, uid, "?type=balance_update")
	if len(stripeRows) != 2 || stripeRows[1][2] != "deposit" || stripeRows[1][3] != "10.00" {
		t.Fatalf("balance updates: %v", stripeRows)
	}
	if code, _, _ := downloadCSV(t, app, uid, "?type=bogus"); code != 400 {
		t.Fatalf("bad type: %d", code)
	}
	if code, _, _ := downloadCSV(t, app, "", ""); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	// Another user's rows never appear.
	if _, _, other := downloadCSV(t, app, uniq("zed"), ""); len(other) != 1 {
		t.Fatalf("empty export: %v", other)
	}
}
