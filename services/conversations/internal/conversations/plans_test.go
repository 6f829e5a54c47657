package conversations

import (
	"context"
	"testing"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

// The statements every answer runs up to and while the model starts (and a
// capped subscriber's check and spend) read the messages, conversations and
// charges through their indexes, also in the plan PostgreSQL keeps
// for a statement prepared on a new database (dbtest.SeqScans says why that
// plan matters). With "id = … OR reply_to = …" the replay check scanned every
// message of every conversation, twice per answer.
func TestHotQueriesUseIndexesOnANewDatabase(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "conversations")
	if err := database.Migrate(context.Background(), pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	for name, query := range map[string]string{
		"usersConversationSQL":          usersConversationSQL,
		"findTurnSQL":                   findTurnSQL,
		"historySQL":                    historySQL,
		"lockConversationSQL":           lockConversationSQL,
		"insertUserIfNewSQL":            insertUserIfNewSQL,
		"insertPendingIfWrittenSQL":     insertPendingIfWrittenSQL,
		"insertChargeIfWrittenSQL":      insertChargeIfWrittenSQL,
		"touchConversationIfWrittenSQL": touchConversationIfWrittenSQL,
		"updateChargeSQL":               updateChargeSQL,
		"subscriberUsedSQL":             subscriberUsedSQL,
		"insertSubscriberCapNoticeSQL":  insertSubscriberCapNoticeSQL,
		"upsertSubscriberSpendSQL":      upsertSubscriberSpendSQL,
	} {
		if tables := dbtest.SeqScans(t, pool, query); len(tables) > 0 {
			t.Errorf("%s reads %v whole", name, tables)
		}
	}
}
