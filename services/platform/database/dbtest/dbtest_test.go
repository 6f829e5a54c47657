package dbtest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

// The OR of two indexed columns is planned as a scan of a new table's every
// row (a wide one: few rows fit the ten pages the planner assumes); each lookup alone is not, and the helper tells them apart.
func TestSeqScansFindsTheWholeTableReadsOfAGenericPlan(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "dbtest")
	if _, err := pool.Exec(context.Background(), `
		CREATE TABLE items (id uuid PRIMARY KEY, parent uuid, name text, body text, notes text, meta jsonb,
			tags jsonb, a text, b text, c text, d text, e text, created_at timestamptz, updated_at timestamptz);
		CREATE UNIQUE INDEX items_parent ON items (parent) WHERE parent IS NOT NULL;
		CREATE TABLE tags (item uuid, tag text)`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{`SELECT name FROM items WHERE id = $1 OR parent = $1`, []string{"items"}},
		{`SELECT name FROM items WHERE id = $1::uuid UNION ALL SELECT name FROM items WHERE parent = $1::uuid`, nil},
		{`SELECT i.name, t.tag FROM items i JOIN tags t ON t.item = i.id WHERE i.id = $1`, []string{"tags"}},
		{`INSERT INTO tags (item, tag) SELECT $1::uuid, $2::text WHERE EXISTS (SELECT 1 FROM items WHERE id = $1::uuid)`, nil},
	} {
		if got := dbtest.SeqScans(t, pool, c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: sequential scans of %v, want %v", c.query, got, c.want)
		}
	}
}
