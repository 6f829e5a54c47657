package wallet

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// MaxExportRows bounds one CSV export (the newest rows).
const MaxExportRows = 100_000

// ExportFilter is the transaction history's filter as the wallet screen
// applies it (docs/billing-api.md): Search is a case-insensitive substring
// of the description; Type is all (or empty), income, expense,
// balance_update (Stripe movements, as the screen's "Balance Update") or a
// transfer type shown in the history.
type ExportFilter struct {
	Search string
	Type   string
}

// ExportTypes are the accepted values of ExportFilter.Type.
var ExportTypes = []string{"all", "income", "expense", "balance_update", "deposit", "refund", "dispute", "repayment"}

// ValidateExportFilter checks the filter.
func ValidateExportFilter(f ExportFilter) error {
	if utf8.RuneCountInString(f.Search) > 200 {
		return &ValidationError{Message: "search must be at most 200 characters"}
	}
	if f.Type == "" {
		return nil
	}
	for _, t := range ExportTypes {
		if f.Type == t {
			return nil
		}
	}
	return &ValidationError{Message: "type must be one of " + strings.Join(ExportTypes, ", ")}
}

// likeEscape makes s a literal inside a LIKE pattern (escape character \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ExportTransfers returns all of uid's history rows matching f (newest
// first, at most MaxExportRows), from one snapshot. A creator's earnings are
// listed one row per answer (income "Earnings · <agent> · Nov 26"), where
// the screen shows one line per agent and day; an earning_transfer is a
// deposit.
func (s *PostgresStore) ExportTransfers(ctx context.Context, uid string, f ExportFilter) ([]Transfer, error) {
	where := []string{"uid = $1", visibleTypes}
	args := []any{uid}
	earnings := true
	switch f.Type {
	case "", "all":
	case "balance_update":
		where = append(where, "provider = '"+ProviderStripe+"'")
		earnings = false
	case "deposit":
		where = append(where, "type IN ('deposit', 'earning_transfer')")
		earnings = false
	default:
		args = append(args, f.Type)
		where = append(where, "type = $"+strconv.Itoa(len(args)))
		earnings = f.Type == string(TypeIncome)
	}
	search := ""
	if f.Search != "" {
		args = append(args, "%"+likeEscape(f.Search)+"%")
		search = ` AND description ILIKE $` + strconv.Itoa(len(args)) + ` ESCAPE '\'`
	}
	sql := `SELECT ` + ledger.TransferColumns + ` FROM transfers WHERE ` + strings.Join(where, " AND ") + search
	if earnings {
		sql = `SELECT * FROM (` + sql + ` UNION ALL
			SELECT * FROM (SELECT ` + earningRowColumns + ` FROM earnings e JOIN transfers t ON t.id = e.transfer_id
				WHERE e.creator_uid = $1) er (id, seq, uid, debit_account, credit_account, amount_micros, type, description,
					provider, metadata, idempotency_key, created_at) WHERE true` + search + `) h`
	}
	rows, err := s.pool.Query(ctx, sql+` ORDER BY seq DESC LIMIT `+strconv.Itoa(MaxExportRows), args...)
	if err != nil {
		return nil, fmt.Errorf("export transfers: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Transfer, error) { return ledger.ScanTransfer[TransferType](r) })
}

// ExportTransactions implements Service.
func (s *service) ExportTransactions(ctx context.Context, uid string, f ExportFilter) ([]Transfer, error) {
	if err := requireUID(uid); err != nil {
		return nil, err
	}
	if err := ValidateExportFilter(f); err != nil {
		return nil, err
	}
	return s.store.ExportTransfers(ctx, uid, f)
}

// FormatMicros renders micro-dollars as an exact decimal number of dollars
// with at least two decimals ("12.50", "0.001234").
func FormatMicros(m int64) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	frac := strings.TrimRight(fmt.Sprintf("%06d", m%MicrosPerDollar), "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return sign + strconv.FormatInt(m/MicrosPerDollar, 10) + "." + frac
}
