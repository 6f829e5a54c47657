// Package topics declares, once, the Kafka topics and the CloudEvents types
// of the services' events. They are wire contracts between services that do
// not import each other: a producer and its consumers must spell them alike,
// so both take them from here instead of keeping copies.
//
// One const block per producing service: the topic first, then the types
// published on it, each with its payload message in proto/agentic/events/v1.
// A type is "agentic.<topic name>.<aggregate>.<verb>.v1" and its constant is
// named after it (agentic.catalog.agent.created.v1 → CatalogAgentCreated);
// TestTopics holds these rules. Consumer group names are not here: each
// belongs to the service that consumes (see docs/conventions.md, Events).
package topics

// Identity service (users package); payloads in identity_events.proto.
const (
	Identity = "agentic.identity.v1"

	// IdentityUserOnboarded: UserOnboarded.
	IdentityUserOnboarded = "agentic.identity.user.onboarded.v1"
	// IdentityUserPublicAgentInterestRegistered: PublicAgentInterestRegistered.
	IdentityUserPublicAgentInterestRegistered = "agentic.identity.user.public_agent_interest_registered.v1"
	// IdentityUserDeleted: UserDeleted.
	IdentityUserDeleted = "agentic.identity.user.deleted.v1"
)

// Catalog service (agents package); payloads in catalog_events.proto.
const (
	Catalog = "agentic.catalog.v1"

	// CatalogAgentCreated: AgentCreated.
	CatalogAgentCreated = "agentic.catalog.agent.created.v1"
	// CatalogAgentUpdated: AgentUpdated.
	CatalogAgentUpdated = "agentic.catalog.agent.updated.v1"
	// CatalogAgentStatusChanged: AgentStatusChanged.
	CatalogAgentStatusChanged = "agentic.catalog.agent.status_changed.v1"
	// CatalogAgentPublished: AgentPublished.
	CatalogAgentPublished = "agentic.catalog.agent.published.v1"
	// CatalogAgentUnpublished: AgentUnpublished.
	CatalogAgentUnpublished = "agentic.catalog.agent.unpublished.v1"
	// CatalogAgentDeleted: AgentDeleted.
	CatalogAgentDeleted = "agentic.catalog.agent.deleted.v1"
	// CatalogSubscriberAdded: SubscriberAdded.
	CatalogSubscriberAdded = "agentic.catalog.subscriber.added.v1"
	// CatalogSubscriberActivated: SubscriberActivated.
	CatalogSubscriberActivated = "agentic.catalog.subscriber.activated.v1"
	// CatalogSubscriberRemoved: SubscriberRemoved.
	CatalogSubscriberRemoved = "agentic.catalog.subscriber.removed.v1"
	// CatalogSubscriberInvitationEmailRequested: InvitationEmailRequested.
	CatalogSubscriberInvitationEmailRequested = "agentic.catalog.subscriber.invitation_email_requested.v1"
	// CatalogReviewChanged: ReviewChanged.
	CatalogReviewChanged = "agentic.catalog.review.changed.v1"
)

// Documents service (documents package); payloads in documents_events.proto.
const (
	Documents = "agentic.documents.v1"

	// DocumentsDocumentAdded: DocumentAdded.
	DocumentsDocumentAdded = "agentic.documents.document.added.v1"
	// DocumentsDocumentUpdated: DocumentUpdated.
	DocumentsDocumentUpdated = "agentic.documents.document.updated.v1"
	// DocumentsDocumentRemoved: DocumentRemoved.
	DocumentsDocumentRemoved = "agentic.documents.document.removed.v1"
	// DocumentsDocumentSynced: DocumentSynced.
	DocumentsDocumentSynced = "agentic.documents.document.synced.v1"
)

// Wallet service (wallet package); payloads in wallet_events.proto.
const (
	Wallet = "agentic.wallet.v1"

	// WalletDepositCredited: WalletDepositCredited.
	WalletDepositCredited = "agentic.wallet.deposit.credited.v1"
	// WalletDepositReversed: WalletDepositReversed.
	WalletDepositReversed = "agentic.wallet.deposit.reversed.v1"
	// WalletDepositReinstated: WalletDepositReinstated.
	WalletDepositReinstated = "agentic.wallet.deposit.reinstated.v1"
	// WalletChargeDebited: WalletCharged.
	WalletChargeDebited = "agentic.wallet.charge.debited.v1"
	// WalletIncomeCredited: WalletIncomeCredited.
	WalletIncomeCredited = "agentic.wallet.income.credited.v1"
	// WalletEarningsCredited: WalletEarningsCredited.
	WalletEarningsCredited = "agentic.wallet.earnings.credited.v1"
	// WalletSpendWarning: WalletSpendWarning.
	WalletSpendWarning = "agentic.wallet.spend.warning.v1"
	// WalletBalanceLow: WalletBalanceLow.
	WalletBalanceLow = "agentic.wallet.balance.low.v1"
	// WalletAgentPaused: WalletAgentPaused.
	WalletAgentPaused = "agentic.wallet.agent.paused.v1"
	// WalletAgentResumed: WalletAgentResumed.
	WalletAgentResumed = "agentic.wallet.agent.resumed.v1"
	// WalletRechargeFailed: WalletRechargeFailed.
	WalletRechargeFailed = "agentic.wallet.recharge.failed.v1"
)

// Conversations service (conversations package), whose topic is named after
// what it carries, usage; payloads in usage_events.proto.
const (
	Usage = "agentic.usage.v1"

	// UsageInteractionRecorded: InteractionRecorded.
	UsageInteractionRecorded = "agentic.usage.interaction.recorded.v1"
	// UsageSubscriberCapReached: SubscriberCapReached.
	UsageSubscriberCapReached = "agentic.usage.subscriber_cap.reached.v1"
)

// Mail service (inbox package); payloads in mail_events.proto.
const (
	Mail = "agentic.mail.v1"

	// MailMessageReceived: MailMessageReceived.
	MailMessageReceived = "agentic.mail.message.received.v1"
	// MailMessageAnswered: MailMessageAnswered.
	MailMessageAnswered = "agentic.mail.message.answered.v1"
	// MailMessageRefused: MailMessageRefused.
	MailMessageRefused = "agentic.mail.message.refused.v1"
	// MailReplySent: MailReplySent.
	MailReplySent = "agentic.mail.reply.sent.v1"
)
