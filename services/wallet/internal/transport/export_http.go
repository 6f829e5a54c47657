package transport

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// PathTransactionsCSV is the history export.
const PathTransactionsCSV = "/api/user/transactions.csv"

// CSVColumns is the export's header.
var CSVColumns = []string{"date", "description", "type", "amount", "provider", "id"}

func decodeExportRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	if len(q["search"]) > 1 || len(q["type"]) > 1 {
		return nil, server.BadRequest("invalid_request", "search and type may be given once")
	}
	return endpoints.ExportRequest{UID: c.UID, Filter: wallet.ExportFilter{
		Search: strings.TrimSpace(q.Get("search")), Type: strings.TrimSpace(q.Get("type"))}}, nil
}

// csvSafe keeps a spreadsheet from running a cell as a formula (descriptions
// carry user-chosen agent names): a leading =, +, -, @, tab or CR gets a '.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// encodeExport writes the rows as CSV (encoding/csv quotes commas, quotes
// and line breaks). Amounts are positive exact dollars like the JSON
// history's, the type tells the direction; dates are the JSON's.
func encodeExport(_ context.Context, w http.ResponseWriter, resp any) error {
	items := resp.(endpoints.ExportResponse).Items
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="transactions.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	for _, t := range items {
		j := ToJSON(t)
		if err := cw.Write([]string{j.Date, csvSafe(j.Description), j.Type, wallet.FormatMicros(t.AmountMicros), j.Provider, j.ID}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
