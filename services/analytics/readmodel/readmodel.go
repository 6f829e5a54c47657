// Package readmodel holds the analytics read models: the event projection
// that builds them (Projector, run by the platform Kafka consumer), the
// queries behind the activity feed and the dashboard statistics (Store) and
// the service rules on top (Service). See docs/analytics.md.
//
// It is a public package (not internal) so that bench/analytics can run the
// same projection against its own broker and database.
package readmodel

import (
	"embed"
	"time"

	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Migrations are the read-model tables (goose, version table goose_db_version).
//
//go:embed migrations/*.sql
var Migrations embed.FS

// MigrationsDir is the directory of Migrations.
const MigrationsDir = "migrations"

// ConsumerGroup is the Kafka consumer group of the analytics service.
const ConsumerGroup = "analytics"

// Topics the analytics service consumes (every service topic but mail's),
// declared in topics like the types below.
const (
	TopicIdentity  = topics.Identity
	TopicCatalog   = topics.Catalog
	TopicDocuments = topics.Documents
	TopicWallet    = topics.Wallet
	TopicUsage     = topics.Usage
)

// Topics lists every topic the consumer group subscribes to.
var Topics = []string{TopicIdentity, TopicCatalog, TopicDocuments, TopicWallet, TopicUsage}

// Event types the projection applies. Any other type is acknowledged and
// ignored (recorded in processed_events, no read-model change).
const (
	TypeAgentCreated        = topics.CatalogAgentCreated
	TypeAgentUpdated        = topics.CatalogAgentUpdated
	TypeAgentStatusChanged  = topics.CatalogAgentStatusChanged
	TypeAgentDeleted        = topics.CatalogAgentDeleted
	TypeAgentPublished      = topics.CatalogAgentPublished
	TypeAgentUnpublished    = topics.CatalogAgentUnpublished
	TypeSubscriberAdded     = topics.CatalogSubscriberAdded
	TypeSubscriberActivated = topics.CatalogSubscriberActivated
	TypeSubscriberRemoved   = topics.CatalogSubscriberRemoved

	TypeIncomeCredited = topics.WalletIncomeCredited
	// TypeEarningsCredited: a consumer's answer credited its creator's
	// earnings (markup + greeting, issue 28). It is the creator's revenue
	// (the dashboard's Total Revenue), like income credited to the wallet.
	TypeEarningsCredited = topics.WalletEarningsCredited
	// TypeChargeDebited is any expense debited from a wallet (payload
	// eventsv1.WalletCharged); only monthly agent fees are projected (see
	// IsAgentFee), answers are counted from TypeInteractionRecorded.
	TypeChargeDebited = topics.WalletChargeDebited

	// TypeInteractionRecorded is the conversations service's usage event; its
	// payload is eventsv1.InteractionRecorded.
	TypeInteractionRecorded = topics.UsageInteractionRecorded
)

// Activity types (the API's activityType; the web app maps them to icons).
const (
	ActivityResponse     = "response"
	ActivityUpload       = "upload"
	ActivitySubscription = "subscription"
	ActivityUpdate       = "update"
	// ActivityCreate is shown with the generic info icon (gray).
	ActivityCreate = "create"
	// ActivityDelete: an agent was deleted (issue 29); any type outside the
	// spec's four is shown with the info icon (gray), like create.
	ActivityDelete = "delete"
	// ActivityInfo is any other informative entry (info icon, gray).
	ActivityInfo = "info"
)

// Kinds say what happened; with the subject and the agent's name they make
// the description (Describe).
const (
	KindAgentCreated        = "agent.created"
	KindAgentUpdated        = "agent.updated"
	KindAgentStatusChanged  = "agent.status_changed"
	KindAgentPublished      = "agent.published"
	KindAgentUnpublished    = "agent.unpublished"
	KindAgentDeleted        = "agent.deleted"
	KindSubscriberActivated = "subscriber.activated"
	KindDocumentAdded       = "document.added"
	KindDocumentUpdated     = "document.updated"
	KindDocumentRemoved     = "document.removed"
	KindDocumentSynced      = "document.synced"
	KindInteraction         = "interaction.recorded"
)

// Activity is one entry of the feed.
type Activity struct {
	ID           string
	ActivityType string
	Description  string
	CreatedAt    time.Time
	Metadata     ActivityMetadata
	Agent        ActivityAgent
}

// ActivityMetadata holds the optional extras of an activity.
type ActivityMetadata struct {
	Details            *string
	DocumentReferences *string
	FileType           *string
}

// ActivityAgent is the agent an activity is about, resolved at read time.
type ActivityAgent struct {
	Name      string
	IconColor string
}

// Stats are the dashboard statistics of one user.
type Stats struct {
	AgentCount        int64
	AgentGrowth       float64
	TotalRevenue      int64 // US cents
	RevenueGrowth     float64
	TotalInteractions int64
	InteractionGrowth float64
	// AgentNew, RevenueNew and InteractionNew: the total was 0 at the end of
	// last month and is positive now (the dashboard shows "New" rather than
	// the growth of +100%).
	AgentNew, RevenueNew, InteractionNew bool
}

// UnknownAgentName is shown when an activity's agent is not known yet and the
// event carried no name.
const UnknownAgentName = "Unknown agent"
