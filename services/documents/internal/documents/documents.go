// Package documents is the documents service's domain: Google Docs documents
// linked to agents. Service holds the rules (ownership through the catalog,
// validation); Store persists documents and enqueues events in the same
// transaction.
package documents

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agentic-app/agentic/services/documents/internal/googledocs"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Sharing statuses.
const (
	SharingShared    = "shared"
	SharingNotShared = "not_shared"
	SharingError     = "error"
)

// SharingStatuses lists the valid sharing statuses.
var SharingStatuses = []string{SharingShared, SharingNotShared, SharingError}

// Limits (characters).
const (
	MaxName   = 100
	MaxLabels = 30
	MaxLabel  = 40
)

// DefaultMaxDocumentsPerAgent is how many documents an agent can have
// (MAX_DOCUMENTS_PER_AGENT; docs/reliability.md, "Rate limits and quotas").
const DefaultMaxDocumentsPerAgent = 100

// Limits are the service's count quotas.
type Limits struct {
	// MaxDocumentsPerAgent bounds an agent's documents (0 =
	// DefaultMaxDocumentsPerAgent).
	MaxDocumentsPerAgent int
}

// LimitError: the agent already has Max documents (HTTP 400 limit_reached).
type LimitError struct{ Max int }

func (e *LimitError) Error() string { return MsgDocumentsLimit(e.Max) }

// MsgDocumentsLimit is the message of a LimitError: "An agent can have at
// most 100 documents."
func MsgDocumentsLimit(max int) string {
	if max == 1 {
		return "An agent can have at most 1 document."
	}
	return fmt.Sprintf("An agent can have at most %d documents.", max)
}

// Validation messages (the spec's texts where it has them).
const (
	MsgNameRequired     = "Document name is required"
	MsgNameSpaces       = "Document name cannot contain spaces."
	MsgNameMax          = "Document name must be at most 100 characters"
	MsgNameControl      = "Document name cannot contain control characters."
	MsgNameTaken        = "A document with this name already exists for this agent."
	MsgDriveFileID      = "driveFileId does not match the document URL"
	MsgLabelSpaces      = "Invalid label: Labels cannot contain spaces."
	MsgLabelControl     = "Invalid label: Labels cannot contain control characters."
	MsgLabelMax         = "Each label must be at most 40 characters"
	MsgLabelsMax        = "A document can have at most 30 labels"
	MsgSharingStatus    = "sharingStatus must be one of shared, not_shared, error"
	MsgURLImmutable     = "The document URL cannot be changed."
	MsgAgentNotFound    = "Agent not found"
	MsgDocumentNotFound = "Document not found"
	MsgCatalogDown      = "The agent service is unavailable. Please try again."
)

// Sync states: a job is waiting, running, or the last one has finished.
const (
	SyncQueued  = "queued"
	SyncSyncing = "syncing"
	SyncSynced  = "synced"
)

// Document is a Google Docs document linked to an agent.
type Document struct {
	ID          string
	AgentID     string
	OwnerUID    string // the agent's owner when the document was added
	Name        string
	URL         string
	DriveFileID string
	Labels      []string
	// SharingStatus is what the last sync found (shared, not_shared, error);
	// until the first sync it is what the client sent.
	SharingStatus string
	CreatedAt     time.Time
	UpdatedAt     time.Time

	// What the sync knows (see internal/sync).
	SyncState    string
	SyncError    *string    // why the last sync failed, or what it found (not shared)
	DriveTitle   *string    // the title in Google Docs
	SyncedAt     *time.Time // last time the agent could read the document
	ModifiedTime *time.Time // Drive's modifiedTime of the indexed text
	TokenCount   *int       // tokens of the indexed text (nil while none)
}

// Errors.
var (
	ErrAgentNotFound    = errors.New("agent not found")
	ErrDocumentNotFound = errors.New("document not found")
	ErrNameTaken        = errors.New("document name taken")
	// ErrCatalogUnavailable: the catalog could not answer an ownership check.
	ErrCatalogUnavailable = errors.New("catalog unavailable")
)

// FieldError is one invalid field.
type FieldError struct {
	Field   string // JSON name
	Message string
}

// ValidationError lists the invalid fields in a fixed order (HTTP 400).
type ValidationError struct{ Fields []FieldError }

func (e *ValidationError) Error() string { return e.Fields[0].Message }

// Message is the first field's message.
func (e *ValidationError) Message() string { return e.Fields[0].Message }

type validator struct{ errs []FieldError }

func (v *validator) add(field, msg string) {
	for _, f := range v.errs {
		if f.Field == field {
			return // first problem of a field wins
		}
	}
	v.errs = append(v.errs, FieldError{field, msg})
}

func (v *validator) err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return &ValidationError{Fields: v.errs}
}

func chars(s string) int { return utf8.RuneCountInString(s) }

func hasSpace(s string) bool { return strings.IndexFunc(s, unicode.IsSpace) >= 0 }

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// checkName applies the name rules: required, no white space, at most
// MaxName characters, no control characters. The name is not trimmed: a
// leading or trailing space is a space.
func checkName(v *validator, name string) {
	switch {
	case strings.TrimSpace(name) == "":
		v.add("name", MsgNameRequired)
	case hasSpace(name):
		v.add("name", MsgNameSpaces)
	case chars(name) > MaxName:
		v.add("name", MsgNameMax)
	case hasControl(name):
		v.add("name", MsgNameControl)
	}
}

// NormalizeLabels trims labels, drops blanks and duplicates (first spelling
// wins, compared exactly) and checks the rules and limits.
func NormalizeLabels(v *validator, in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, l := range in {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		switch {
		case hasSpace(l):
			v.add("labels", MsgLabelSpaces)
		case chars(l) > MaxLabel:
			v.add("labels", MsgLabelMax)
		case hasControl(l):
			v.add("labels", MsgLabelControl)
		}
		out = append(out, l)
	}
	if len(out) > MaxLabels {
		v.add("labels", MsgLabelsMax)
	}
	return out
}

func checkSharing(v *validator, s string) {
	for _, ok := range SharingStatuses {
		if s == ok {
			return
		}
	}
	v.add("sharingStatus", MsgSharingStatus)
}

// AddInput is an add request as received.
type AddInput struct {
	Name          string
	URL           string
	DriveFileID   string // optional; must match the URL when given
	Labels        []string
	SharingStatus string // "" = shared
}

// ValidateAdd normalises and validates an add request; fields are checked in
// the order name, url, driveFileId, labels, sharingStatus. The returned
// input carries the trimmed URL, the extracted Drive file id, the normalised
// labels and the sharing status.
func ValidateAdd(in AddInput) (AddInput, error) {
	var v validator
	checkName(&v, in.Name)
	url, id, err := googledocs.ParseDocumentURL(in.URL)
	if err != nil {
		v.add("url", err.Error())
	} else {
		in.URL = url
		if given := strings.TrimSpace(in.DriveFileID); given != "" && given != id {
			v.add("driveFileId", MsgDriveFileID)
		}
		in.DriveFileID = id
	}
	in.Labels = NormalizeLabels(&v, in.Labels)
	in.SharingStatus = strings.TrimSpace(in.SharingStatus)
	if in.SharingStatus == "" {
		in.SharingStatus = SharingShared
	}
	checkSharing(&v, in.SharingStatus)
	return in, v.err()
}

// UpdateInput is a PUT body: the full document with name and labels changed.
// Only name and labels can change; sharingStatus is validated and ignored
// (the sync owns it); url and driveFileId, when given, must be the stored
// ones.
type UpdateInput struct {
	Name          string
	Labels        []string // nil = no labels
	SharingStatus string   // "" = unchanged
	URL           *string  // nil = not given
	DriveFileID   *string  // nil = not given
}

// ValidateUpdate validates a PUT body against the stored document cur and
// returns the normalised input. Fields are checked in the order name, url,
// driveFileId, labels, sharingStatus.
func ValidateUpdate(cur Document, in UpdateInput) (UpdateInput, error) {
	var v validator
	checkName(&v, in.Name)
	if in.URL != nil && strings.TrimSpace(*in.URL) != cur.URL {
		v.add("url", MsgURLImmutable)
	}
	if in.DriveFileID != nil && strings.TrimSpace(*in.DriveFileID) != "" && strings.TrimSpace(*in.DriveFileID) != cur.DriveFileID {
		v.add("driveFileId", MsgDriveFileID)
	}
	in.Labels = NormalizeLabels(&v, in.Labels)
	in.SharingStatus = strings.TrimSpace(in.SharingStatus)
	if in.SharingStatus == "" {
		in.SharingStatus = cur.SharingStatus
	}
	checkSharing(&v, in.SharingStatus)
	return in, v.err()
}

// Ownership answers whether uid owns an agent (the catalog's CheckOwnership).
type Ownership interface {
	// Owns reports whether the agent exists and uid owns it. An error means
	// the catalog could not answer (the caller gets 503).
	Owns(ctx context.Context, agentID, uid string) (bool, error)
}

// Store persists documents. Every mutating method runs one transaction and
// enqueues its event in it.
type Store interface {
	// List returns the agent's documents, oldest first.
	List(ctx context.Context, agentID string) ([]Document, error)
	// Add inserts d; ErrNameTaken when the agent has a document of that name
	// (case-insensitive); *LimitError when the agent already has
	// maxPerAgent documents (counted in the insert's transaction, so
	// concurrent adds cannot pass the bound together; <= 0: no bound).
	Add(ctx context.Context, d Document, maxPerAgent int) (Document, error)
	// Get returns the agent's document; ErrDocumentNotFound otherwise.
	Get(ctx context.Context, agentID, id string) (Document, error)
	// Update locks the agent's document, applies fn and saves the result
	// (and its event) when fn reports a change. ErrNameTaken on a name clash.
	Update(ctx context.Context, agentID, id string, fn func(cur Document) (next Document, changed []string, err error)) (Document, error)
	// Remove deletes the agent's document; ErrDocumentNotFound otherwise.
	Remove(ctx context.Context, agentID, id string, at time.Time) error
	// RequestSync queues a sync of the agent's document and returns it;
	// ErrDocumentNotFound otherwise.
	RequestSync(ctx context.Context, agentID, id string) (Document, error)
	// Count counts the agent's documents and those it can read (Counts).
	Count(ctx context.Context, agentID string) (Counts, error)
}

// Counts is an agent's linked documents (Total) and, of those, the ones it
// can read (Ready): shared with the agent at the last sync and with indexed
// text. The catalog publishes an agent only when Ready > 0 (issue 27).
type Counts struct{ Total, Ready int64 }

// Knowledge searches the agents' indexed documents (knowledge.Index).
type Knowledge interface {
	Search(ctx context.Context, q knowledge.Query) ([]knowledge.Passage, error)
}

// Test-retrieval limits (HTTP).
const (
	MaxQueryChars      = 1000
	DefaultSearchLimit = 5
	MaxSearchLimit     = 20
)

// Query messages.
const (
	MsgQueryRequired = "Enter a question to search the agent's documents."
	MsgQueryTooLong  = "The question must be at most 1,000 characters."
	MsgSearchLimit   = "limit must be between 1 and 20"
)

// QueryError is a bad test-retrieval request (HTTP 400 with Code).
type QueryError struct{ Code, Message string }

func (e *QueryError) Error() string { return e.Message }

// ValidateSearch checks a test-retrieval request and returns the limit to
// use (nil limit = DefaultSearchLimit).
func ValidateSearch(query string, limit *int) (int, error) {
	if strings.TrimSpace(query) == "" {
		return 0, &QueryError{Code: "invalid_query", Message: MsgQueryRequired}
	}
	if chars(query) > MaxQueryChars {
		return 0, &QueryError{Code: "invalid_query", Message: MsgQueryTooLong}
	}
	if limit == nil {
		return DefaultSearchLimit, nil
	}
	if *limit < 1 || *limit > MaxSearchLimit {
		return 0, &QueryError{Code: "invalid_limit", Message: MsgSearchLimit}
	}
	return *limit, nil
}

// Service is the documents API. owner is the verified caller's uid.
type Service interface {
	ListDocuments(ctx context.Context, owner, agentID string) ([]Document, error)
	AddDocument(ctx context.Context, owner, agentID string, in AddInput) (Document, error)
	UpdateDocument(ctx context.Context, owner, agentID, documentID string, in UpdateInput) (Document, error)
	RemoveDocument(ctx context.Context, owner, agentID, documentID string) error
	// SyncDocument queues a sync now ("Sync now") and returns the document.
	SyncDocument(ctx context.Context, owner, agentID, documentID string) (Document, error)
	// SearchKnowledge is the Test retrieval box: the passages the agent
	// would use for query. limit nil = DefaultSearchLimit.
	SearchKnowledge(ctx context.Context, owner, agentID, query string, limit *int) ([]knowledge.Passage, error)
	// PreviewDocument is what the add form shows before a document is
	// linked: its Google Docs title when the agent can already open it
	// (Shared false and no title otherwise: not an error).
	PreviewDocument(ctx context.Context, owner, agentID, url string) (Preview, error)
	// CountDocuments counts an agent's documents (internal gRPC, no caller
	// identity: the catalog asks before publishing). knowledge.ErrNoAgent
	// for an empty id; an unknown or non-UUID id has none.
	CountDocuments(ctx context.Context, agentID string) (Counts, error)
}

type service struct {
	store     Store
	ownership Ownership
	knowledge Knowledge
	limits    Limits
	titles    Titles
	now       func() time.Time
}

// Preview is a Google Docs document as the agent sees it before it is
// linked.
type Preview struct {
	Title  *string // nil when the agent cannot open it (yet)
	Shared bool    // the agent can open it
}

// Titles reads a document's title in Google Drive as the agent
// (files.get fields=name). ok false: the agent cannot open it (not shared
// with it, or Drive could not tell).
type Titles interface {
	DocumentTitle(ctx context.Context, agentID, fileID string) (title string, ok bool, err error)
}

// Option configures NewService.
type Option func(*service)

// WithTitles lets PreviewDocument read titles from Drive (without it the
// preview never has a title).
func WithTitles(t Titles) Option { return func(s *service) { s.titles = t } }

// NewService returns the Service backed by store, checking agent ownership
// with ownership, searching with k and applying limits.
func NewService(store Store, ownership Ownership, k Knowledge, limits Limits, opts ...Option) Service {
	if limits.MaxDocumentsPerAgent <= 0 {
		limits.MaxDocumentsPerAgent = DefaultMaxDocumentsPerAgent
	}
	s := &service{store: store, ownership: ownership, knowledge: k, limits: limits, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *service) PreviewDocument(ctx context.Context, owner, agentID, url string) (Preview, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return Preview{}, err
	}
	_, fileID, err := googledocs.ParseDocumentURL(url)
	if err != nil {
		return Preview{}, &ValidationError{Fields: []FieldError{{"url", err.Error()}}}
	}
	if s.titles == nil {
		return Preview{}, nil
	}
	title, ok, err := s.titles.DocumentTitle(ctx, strings.ToLower(agentID), fileID)
	if err != nil || !ok {
		// Not shared yet, or Drive could not answer: no title, no error
		// (the form simply is not pre-filled).
		return Preview{}, nil //nolint:nilerr // best effort by design
	}
	return Preview{Title: &title, Shared: true}, nil
}

// validID reports whether id is a UUID (anything else cannot exist).
func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// authorize returns nil when owner owns agentID: an invalid id, an unknown
// agent and another user's agent are all ErrAgentNotFound; a catalog failure
// is ErrCatalogUnavailable.
func (s *service) authorize(ctx context.Context, owner, agentID string) error {
	if owner == "" || !validID(agentID) {
		return ErrAgentNotFound
	}
	owned, err := s.ownership.Owns(ctx, strings.ToLower(agentID), owner)
	if err != nil {
		return errors.Join(ErrCatalogUnavailable, err)
	}
	if !owned {
		return ErrAgentNotFound
	}
	return nil
}

func (s *service) ListDocuments(ctx context.Context, owner, agentID string) ([]Document, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return nil, err
	}
	return s.store.List(ctx, strings.ToLower(agentID))
}

func (s *service) AddDocument(ctx context.Context, owner, agentID string, in AddInput) (Document, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return Document{}, err
	}
	in, err := ValidateAdd(in)
	if err != nil {
		return Document{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Document{}, err
	}
	now := s.now().UTC()
	return s.store.Add(ctx, Document{
		ID: id.String(), AgentID: strings.ToLower(agentID), OwnerUID: owner, Name: in.Name, URL: in.URL,
		DriveFileID: in.DriveFileID, Labels: in.Labels, SharingStatus: in.SharingStatus,
		CreatedAt: now, UpdatedAt: now,
	}, s.limits.MaxDocumentsPerAgent)
}

func (s *service) UpdateDocument(ctx context.Context, owner, agentID, documentID string, in UpdateInput) (Document, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return Document{}, err
	}
	if !validID(documentID) {
		return Document{}, ErrDocumentNotFound
	}
	return s.store.Update(ctx, strings.ToLower(agentID), strings.ToLower(documentID), func(cur Document) (Document, []string, error) {
		in, err := ValidateUpdate(cur, in)
		if err != nil {
			return Document{}, nil, err
		}
		next, changed := applyUpdate(cur, in)
		if len(changed) > 0 {
			next.UpdatedAt = s.now().UTC()
		}
		return next, changed, nil
	})
}

// applyUpdate applies a validated update and lists (JSON names) the fields
// whose value changed.
func applyUpdate(cur Document, in UpdateInput) (Document, []string) {
	next := cur
	next.Labels = append([]string{}, cur.Labels...)
	var changed []string
	if in.Name != cur.Name {
		next.Name = in.Name
		changed = append(changed, "name")
	}
	if !equalStrings(in.Labels, cur.Labels) {
		next.Labels = append([]string{}, in.Labels...)
		changed = append(changed, "labels")
	}
	// sharingStatus is validated but not applied: it is the sync's finding,
	// and a client sends back the value it last read, which may be stale.
	return next, changed
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *service) RemoveDocument(ctx context.Context, owner, agentID, documentID string) error {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return err
	}
	if !validID(documentID) {
		return ErrDocumentNotFound
	}
	return s.store.Remove(ctx, strings.ToLower(agentID), strings.ToLower(documentID), s.now().UTC())
}

func (s *service) SyncDocument(ctx context.Context, owner, agentID, documentID string) (Document, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return Document{}, err
	}
	if !validID(documentID) {
		return Document{}, ErrDocumentNotFound
	}
	return s.store.RequestSync(ctx, strings.ToLower(agentID), strings.ToLower(documentID))
}

func (s *service) CountDocuments(ctx context.Context, agentID string) (Counts, error) {
	if strings.TrimSpace(agentID) == "" {
		return Counts{}, knowledge.ErrNoAgent
	}
	if !validID(agentID) {
		return Counts{}, nil
	}
	return s.store.Count(ctx, strings.ToLower(agentID))
}

func (s *service) SearchKnowledge(ctx context.Context, owner, agentID, query string, limit *int) ([]knowledge.Passage, error) {
	if err := s.authorize(ctx, owner, agentID); err != nil {
		return nil, err
	}
	n, err := ValidateSearch(query, limit)
	if err != nil {
		return nil, err
	}
	return s.knowledge.Search(ctx, knowledge.Query{AgentID: strings.ToLower(agentID), Text: query, Limit: n})
}
