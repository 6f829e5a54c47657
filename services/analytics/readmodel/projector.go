package readmodel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Event types of the documents service (declared in topics).
const (
	TypeDocumentAdded   = topics.DocumentsDocumentAdded
	TypeDocumentUpdated = topics.DocumentsDocumentUpdated
	TypeDocumentRemoved = topics.DocumentsDocumentRemoved
	// TypeDocumentSynced: a sync read new or changed text of a Google Doc (or
	// removed it from the agent's knowledge when it stopped being shared).
	TypeDocumentSynced = topics.DocumentsDocumentSynced
)

// ProjectorConfig configures a Projector.
type ProjectorConfig struct {
	// Now is the clock for the freshness metric (default time.Now).
	Now func() time.Time
	// Registerer receives analytics_event_freshness_seconds (optional).
	Registerer prometheus.Registerer
}

// Projector applies events to the read models. Handle is an events.Handler:
// it runs inside the consumer's transaction, after the event id was recorded
// in processed_events, so every change here is applied exactly once per
// consumer group.
//
// Every write is an idempotent function of the payload (upserts keyed by ids,
// last writer wins by the event's own occurred_at), so the read models
// converge whatever the interleaving of the topics, and a replay from the
// first offset into an empty database rebuilds the same rows.
type Projector struct {
	now       func() time.Time
	freshness *prometheus.HistogramVec
}

// NewProjector builds a Projector.
func NewProjector(cfg ProjectorConfig) *Projector {
	p := &Projector{now: cfg.Now}
	if p.now == nil {
		p.now = time.Now
	}
	p.freshness = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "analytics_event_freshness_seconds",
		Help: "Read-model update time minus the event's ce_time, by topic.",
		// 5 ms … ~82 s
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 15),
	}, []string{"topic"})
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(p.freshness); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				p.freshness = are.ExistingCollector.(*prometheus.HistogramVec)
			}
		}
	}
	return p
}

var unmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}

func decode(ev events.Received, m proto.Message) error {
	if err := unmarshal.Unmarshal(ev.Payload, m); err != nil {
		return fmt.Errorf("decode %s: %w", ev.Type, err)
	}
	return nil
}

// Handle applies one event (an events.Handler). Unknown types are ignored;
// an undecodable payload or one without its ids is an error (the consumer
// retries and then parks it).
func (p *Projector) Handle(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	applied, err := p.apply(ctx, tx, ev)
	if err != nil {
		return err
	}
	if applied && !ev.Time.IsZero() {
		p.freshness.WithLabelValues(ev.Topic).Observe(max(0, p.now().Sub(ev.Time).Seconds()))
	}
	return nil
}

// Handler returns Handle as an events.Handler.
func (p *Projector) Handler() events.Handler { return p.Handle }

func (p *Projector) apply(ctx context.Context, tx pgx.Tx, ev events.Received) (bool, error) {
	switch ev.Type {
	case TypeAgentCreated:
		var m eventsv1.AgentCreated
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		at := occurred(m.GetOccurredAt(), ev)
		a := agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetName(), IconName: m.GetIconName(), IconColor: m.GetIconColor(), At: at}
		if err := a.validate(ev); err != nil {
			return false, err
		}
		if err := upsertAgent(ctx, tx, a); err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, `UPDATE agents SET created_at = $2 WHERE agent_id = $1`, a.ID, at); err != nil {
			return false, fmt.Errorf("agent created: %w", err)
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: a.Owner, AgentID: a.ID, Type: ActivityCreate, Kind: KindAgentCreated,
			Subject: m.GetName(), Details: ptr(m.GetCategory()), NameHint: a.Name, ColorHint: a.IconColor, At: at,
		})

	case TypeAgentUpdated:
		var m eventsv1.AgentUpdated
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		at := occurred(m.GetOccurredAt(), ev)
		a := agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetName(), IconName: m.GetIconName(), IconColor: m.GetIconColor(), At: at}
		if err := a.validate(ev); err != nil {
			return false, err
		}
		if err := upsertAgent(ctx, tx, a); err != nil {
			return false, err
		}
		phrase := ChangedFieldsPhrase(m.GetChangedFields())
		var details *string
		if phrase != "" {
			details = ptr("Changed: " + strings.Join(m.GetChangedFields(), ", "))
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: a.Owner, AgentID: a.ID, Type: ActivityUpdate, Kind: KindAgentUpdated,
			Subject: phrase, Details: details, NameHint: a.Name, ColorHint: a.IconColor, At: at,
		})

	case TypeAgentStatusChanged:
		var m eventsv1.AgentStatusChanged
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		at := occurred(m.GetOccurredAt(), ev)
		a := agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetName(), IconName: m.GetIconName(), IconColor: m.GetIconColor(), At: at}
		if err := a.validate(ev); err != nil {
			return false, err
		}
		if err := upsertAgent(ctx, tx, a); err != nil {
			return false, err
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: a.Owner, AgentID: a.ID, Type: ActivityUpdate, Kind: KindAgentStatusChanged,
			Subject: m.GetNewStatus(), Details: ptr("Status: " + m.GetOldStatus() + " → " + m.GetNewStatus()),
			NameHint: a.Name, ColorHint: a.IconColor, At: at,
		})

	case TypeAgentPublished, TypeAgentUnpublished:
		// The owner's 'publish'/'unpublish' activities (issue 27).
		var a agentAttrs
		var kind, details string
		if ev.Type == TypeAgentPublished {
			var m eventsv1.AgentPublished
			if err := decode(ev, &m); err != nil {
				return false, err
			}
			a = agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetName(), IconName: m.GetIconName(), IconColor: m.GetIconColor(), At: occurred(m.GetOccurredAt(), ev)}
			kind, details = KindAgentPublished, "/marketplace/"+m.GetSlug()
		} else {
			var m eventsv1.AgentUnpublished
			if err := decode(ev, &m); err != nil {
				return false, err
			}
			a = agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetName(), IconName: m.GetIconName(), IconColor: m.GetIconColor(), At: occurred(m.GetOccurredAt(), ev)}
			kind, details = KindAgentUnpublished, "/marketplace/"+m.GetSlug()
		}
		if err := a.validate(ev); err != nil {
			return false, err
		}
		if err := upsertAgent(ctx, tx, a); err != nil {
			return false, err
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: a.Owner, AgentID: a.ID, Type: ActivityUpdate, Kind: kind,
			Details: ptr(details), NameHint: a.Name, ColorHint: a.IconColor, At: a.At,
		})

	case TypeAgentDeleted:
		// The owner deleted the agent (issue 29): it leaves the agent counts
		// from then on, its history stays, and the owner's feed says so (a
		// "delete" activity, shown with the generic info icon).
		var m struct {
			AgentID    string    `json:"agentId"`
			OwnerUID   string    `json:"ownerUid"`
			Name       string    `json:"name"`
			IconColor  string    `json:"iconColor"`
			OccurredAt time.Time `json:"occurredAt"`
		}
		if err := json.Unmarshal(ev.Payload, &m); err != nil {
			return false, fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		at := m.OccurredAt
		if at.IsZero() {
			at = occurred(nil, ev)
		}
		if m.AgentID == "" {
			return false, fmt.Errorf("%s without agentId", ev.Type)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO agents (agent_id, owner_uid, deleted_at) VALUES ($1, $2, $3)
			ON CONFLICT (agent_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at`, m.AgentID, m.OwnerUID, at); err != nil {
			return false, fmt.Errorf("agent deleted: %w", err)
		}
		if m.OwnerUID == "" {
			return true, nil
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: m.OwnerUID, AgentID: m.AgentID, Type: ActivityDelete, Kind: KindAgentDeleted,
			NameHint: m.Name, ColorHint: m.IconColor, At: at,
		})

	case TypeSubscriberAdded, TypeSubscriberActivated, TypeSubscriberRemoved:
		return true, p.subscriber(ctx, tx, ev)

	case TypeDocumentAdded, TypeDocumentUpdated, TypeDocumentRemoved:
		return true, p.document(ctx, tx, ev)

	case TypeDocumentSynced:
		var m eventsv1.DocumentSynced
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		if m.GetAgentId() == "" || m.GetOwnerUid() == "" {
			return false, fmt.Errorf("%s without agent_id/owner_uid", ev.Type)
		}
		// Only new or changed readable text is an upload; the event that says
		// the text left the agent's knowledge (not shared any more) is not.
		if m.GetSharingStatus() != "shared" {
			return false, nil
		}
		if err := ensureAgent(ctx, tx, m.GetAgentId(), m.GetOwnerUid()); err != nil {
			return false, err
		}
		var details *string
		if title := strings.TrimSpace(m.GetDriveTitle()); title != "" {
			details = ptr("Google Docs title: " + title)
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: m.GetOwnerUid(), AgentID: m.GetAgentId(), Type: ActivityUpload, Kind: KindDocumentSynced,
			Subject: m.GetName(), Details: details, FileType: ptr(m.GetFileType()), At: occurred(m.GetOccurredAt(), ev),
		})

	case TypeIncomeCredited:
		var m eventsv1.WalletIncomeCredited
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		if m.GetUid() == "" {
			return false, fmt.Errorf("%s without uid", ev.Type)
		}
		return true, insertRevenue(ctx, tx, ev, m.GetUid(), m.GetAmountMicros(), occurred(m.GetOccurredAt(), ev))

	case TypeEarningsCredited:
		var m eventsv1.WalletEarningsCredited
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		if m.GetCreatorUid() == "" || m.GetAmountMicros() <= 0 {
			return false, fmt.Errorf("%s without creator_uid or amount", ev.Type)
		}
		return true, insertRevenue(ctx, tx, ev, m.GetCreatorUid(), m.GetAmountMicros(), occurred(m.GetOccurredAt(), ev))

	case TypeChargeDebited:
		var m eventsv1.WalletCharged
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		if !IsAgentFee(m.GetMetadata()) {
			return false, nil // answers are counted from the usage event; other expenses are not usage
		}
		if m.GetUid() == "" {
			return false, fmt.Errorf("%s without uid", ev.Type)
		}
		md := m.GetMetadata()
		_, err := insertSpend(ctx, tx, spendRow{
			EntryID: entryID("fee:", m.GetTransferId(), ev.ID), EventID: ev.ID, Payer: m.GetUid(), Kind: SpendAgentFee,
			AgentID: cmp.Or(md["agent_id"], md["agentId"]), NameHint: cmp.Or(md["agent_name"], md["agentName"]),
			AmountMicros: m.GetAmountMicros(), At: occurred(m.GetOccurredAt(), ev),
		})
		return err == nil, err

	case TypeInteractionRecorded:
		// The generated message (decoded with protojson like every other
		// payload) so field names cannot drift from the producer's.
		var m eventsv1.InteractionRecorded
		if err := decode(ev, &m); err != nil {
			return false, err
		}
		owner, agentID := m.GetOwnerUid(), m.GetAgentId()
		if owner == "" || agentID == "" {
			return false, fmt.Errorf("%s without ownerUid/agentId", ev.Type)
		}
		at := occurred(m.GetOccurredAt(), ev)
		// The spend: whoever paid (the owner for private agents, and for
		// events from before payer_uid existed), cost + fee. Keyed by the
		// interaction id: the same answer published again under another event
		// id changes nothing at all (no second interaction or activity).
		amount := m.GetTotalMicros()
		if amount == 0 {
			amount = m.GetCostMicros() + m.GetFeeMicros()
		}
		fresh, err := insertSpend(ctx, tx, spendRow{
			EntryID: entryID("answer:", m.GetInteractionId(), ev.ID), EventID: ev.ID, Payer: cmp.Or(m.GetPayerUid(), owner),
			Kind: SpendAnswer, AgentID: agentID, NameHint: m.GetAgentName(), AmountMicros: amount, At: at,
		})
		if err != nil || !fresh {
			return err == nil, err
		}
		if err := ensureAgent(ctx, tx, agentID, owner); err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO interactions (event_id, owner_uid, agent_id, occurred_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (event_id) DO NOTHING`, ev.ID, owner, agentID, at); err != nil {
			return false, fmt.Errorf("interaction: %w", err)
		}
		var refs *string
		if joined := joinNonEmpty(m.GetDocumentReferences()); joined != "" {
			refs = &joined
		}
		return true, insertActivity(ctx, tx, activityRow{
			ID: ev.ID, Owner: owner, AgentID: agentID, Type: ActivityResponse, Kind: KindInteraction,
			DocumentReferences: refs, NameHint: m.GetAgentName(), ColorHint: m.GetIconColor(), At: at,
		})
	}
	// Identity events, wallet deposits and anything unknown: acknowledged, no change.
	return false, nil
}

func (p *Projector) subscriber(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	var (
		a                   agentAttrs
		subscriberName      string
		email               string
		activated           bool
		occurredAtTimestamp *timestamppb.Timestamp
	)
	switch ev.Type {
	case TypeSubscriberAdded:
		var m eventsv1.SubscriberAdded
		if err := decode(ev, &m); err != nil {
			return err
		}
		a = agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetAgentName(), IconName: m.GetIconName(), IconColor: m.GetIconColor()}
		subscriberName, email = m.GetName(), m.GetEmail()
		activated = m.GetStatus() == "active"
		occurredAtTimestamp = m.GetOccurredAt()
	case TypeSubscriberActivated:
		var m eventsv1.SubscriberActivated
		if err := decode(ev, &m); err != nil {
			return err
		}
		a = agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetAgentName(), IconName: m.GetIconName(), IconColor: m.GetIconColor()}
		subscriberName, email = m.GetName(), m.GetEmail()
		activated = true
		occurredAtTimestamp = m.GetOccurredAt()
	default:
		var m eventsv1.SubscriberRemoved
		if err := decode(ev, &m); err != nil {
			return err
		}
		a = agentAttrs{ID: m.GetAgentId(), Owner: m.GetOwnerUid(), Name: m.GetAgentName(), IconName: m.GetIconName(), IconColor: m.GetIconColor()}
		occurredAtTimestamp = m.GetOccurredAt()
	}
	a.At = occurred(occurredAtTimestamp, ev)
	if err := a.validate(ev); err != nil {
		return err
	}
	if err := upsertAgent(ctx, tx, a); err != nil {
		return err
	}
	if !activated {
		return nil
	}
	who := strings.TrimSpace(subscriberName)
	if who == "" {
		who = email
	}
	return insertActivity(ctx, tx, activityRow{
		ID: ev.ID, Owner: a.Owner, AgentID: a.ID, Type: ActivitySubscription, Kind: KindSubscriberActivated,
		Subject: who, Details: ptr(email), NameHint: a.Name, ColorHint: a.IconColor, At: a.At,
	})
}

func (p *Projector) document(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	var (
		agentID, owner, name, fileType string
		ts                             *timestamppb.Timestamp
		kind, typ                      string
		details                        *string
	)
	switch ev.Type {
	case TypeDocumentAdded:
		var m eventsv1.DocumentAdded
		if err := decode(ev, &m); err != nil {
			return err
		}
		agentID, owner, name, fileType, ts = m.GetAgentId(), m.GetOwnerUid(), m.GetName(), m.GetFileType(), m.GetOccurredAt()
		kind, typ = KindDocumentAdded, ActivityUpload
		if len(m.GetLabels()) > 0 {
			details = ptr("Labels: " + strings.Join(m.GetLabels(), ", "))
		}
	case TypeDocumentUpdated:
		var m eventsv1.DocumentUpdated
		if err := decode(ev, &m); err != nil {
			return err
		}
		agentID, owner, name, fileType, ts = m.GetAgentId(), m.GetOwnerUid(), m.GetName(), m.GetFileType(), m.GetOccurredAt()
		kind, typ = KindDocumentUpdated, ActivityUpdate
		if len(m.GetChangedFields()) > 0 {
			details = ptr("Changed: " + strings.Join(m.GetChangedFields(), ", "))
		}
	default:
		var m eventsv1.DocumentRemoved
		if err := decode(ev, &m); err != nil {
			return err
		}
		agentID, owner, name, fileType, ts = m.GetAgentId(), m.GetOwnerUid(), m.GetName(), m.GetFileType(), m.GetOccurredAt()
		kind, typ = KindDocumentRemoved, ActivityInfo
	}
	if agentID == "" || owner == "" {
		return fmt.Errorf("%s without agent_id/owner_uid", ev.Type)
	}
	// The document may be seen before its agent (another topic): keep a
	// placeholder row so the feed resolves the name once agent.created arrives.
	if err := ensureAgent(ctx, tx, agentID, owner); err != nil {
		return err
	}
	var ft *string
	if fileType != "" && typ == ActivityUpload {
		ft = &fileType
	}
	return insertActivity(ctx, tx, activityRow{
		ID: ev.ID, Owner: owner, AgentID: agentID, Type: typ, Kind: kind, Subject: name,
		Details: details, FileType: ft, At: occurred(ts, ev),
	})
}

// agentAttrs are an agent's display attributes as of an event.
type agentAttrs struct {
	ID, Owner, Name, IconName, IconColor string
	At                                   time.Time
}

func (a agentAttrs) validate(ev events.Received) error {
	if a.ID == "" || a.Owner == "" {
		return fmt.Errorf("%s without agent_id/owner_uid", ev.Type)
	}
	return nil
}

// upsertAgent records the agent's display attributes; an older event (by
// occurred_at) never overwrites a newer one, so the order of arrival does not
// matter.
func upsertAgent(ctx context.Context, tx pgx.Tx, a agentAttrs) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO agents (agent_id, owner_uid, name, icon_name, icon_color, attrs_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (agent_id) DO UPDATE SET
			owner_uid  = EXCLUDED.owner_uid,
			name       = CASE WHEN agents.attrs_at <= EXCLUDED.attrs_at THEN EXCLUDED.name ELSE agents.name END,
			icon_name  = CASE WHEN agents.attrs_at <= EXCLUDED.attrs_at THEN EXCLUDED.icon_name ELSE agents.icon_name END,
			icon_color = CASE WHEN agents.attrs_at <= EXCLUDED.attrs_at THEN EXCLUDED.icon_color ELSE agents.icon_color END,
			attrs_at   = GREATEST(agents.attrs_at, EXCLUDED.attrs_at)`,
		a.ID, a.Owner, a.Name, a.IconName, a.IconColor, a.At)
	if err != nil {
		return fmt.Errorf("upsert agent: %w", err)
	}
	return nil
}

// ensureAgent inserts a placeholder for an agent not seen yet (no name, not counted).
func ensureAgent(ctx context.Context, tx pgx.Tx, agentID, owner string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO agents (agent_id, owner_uid) VALUES ($1, $2)
		ON CONFLICT (agent_id) DO NOTHING`, agentID, owner)
	if err != nil {
		return fmt.Errorf("agent placeholder: %w", err)
	}
	return nil
}

// IsAgentFee reports whether a wallet charge is a monthly agent fee: its
// metadata says kind (or type) agent_fee. The fee's agent is metadata agent_id
// and its name agent_name, as the wallet writes them (agentId/agentName are
// accepted too; both optional).
func IsAgentFee(metadata map[string]string) bool {
	return metadata["kind"] == SpendAgentFee || metadata["type"] == SpendAgentFee
}

// entryID keys a spend entry by the producer's own id (prefix + id), so the
// same answer or fee published twice under two event ids counts once; without
// one, by the event id.
func entryID(prefix, id, eventID string) string {
	if id == "" {
		return "event:" + eventID
	}
	return prefix + id
}

type spendRow struct {
	EntryID, EventID, Payer, Kind, AgentID, NameHint string
	AmountMicros                                     int64
	At                                               time.Time
}

// insertSpend records a spend entry once; fresh is false when its entry id
// was already there.
func insertSpend(ctx context.Context, tx pgx.Tx, r spendRow) (fresh bool, err error) {
	tag, err := tx.Exec(ctx, `
		INSERT INTO spend_entries (entry_id, event_id, payer_uid, kind, agent_id, agent_name_hint, amount_micros, occurred_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (entry_id) DO NOTHING`,
		r.EntryID, r.EventID, r.Payer, r.Kind, r.AgentID, r.NameHint, r.AmountMicros, r.At)
	if err != nil {
		return false, fmt.Errorf("spend entry: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

type activityRow struct {
	ID, Owner, AgentID, Type, Kind, Subject string
	Details, DocumentReferences, FileType   *string
	NameHint, ColorHint                     string
	At                                      time.Time
}

func insertActivity(ctx context.Context, tx pgx.Tx, r activityRow) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO activities (id, owner_uid, agent_id, activity_type, kind, subject, details,
			document_references, file_type, agent_name_hint, icon_color_hint, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (id) DO NOTHING`,
		r.ID, r.Owner, r.AgentID, r.Type, r.Kind, r.Subject, r.Details,
		r.DocumentReferences, r.FileType, r.NameHint, r.ColorHint, r.At)
	if err != nil {
		return fmt.Errorf("insert activity: %w", err)
	}
	return nil
}

// occurred is the payload's occurred_at, else ce_time, else the Unix epoch
// (never the wall clock, so a replay rebuilds identical rows).
func occurred(ts *timestamppb.Timestamp, ev events.Received) time.Time {
	if ts != nil && ts.IsValid() && (ts.GetSeconds() != 0 || ts.GetNanos() != 0) {
		return ts.AsTime().UTC()
	}
	if !ev.Time.IsZero() {
		return ev.Time.UTC()
	}
	return time.Unix(0, 0).UTC()
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func joinNonEmpty(ss []string) string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// insertRevenue records one revenue entry of uid (once per event id).
func insertRevenue(ctx context.Context, tx pgx.Tx, ev events.Received, uid string, micros int64, at time.Time) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO revenue_entries (event_id, uid, amount_micros, occurred_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (event_id) DO NOTHING`, ev.ID, uid, micros, at); err != nil {
		return fmt.Errorf("revenue entry: %w", err)
	}
	return nil
}
