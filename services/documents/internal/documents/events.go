package documents

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/documents/internal/googledocs"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The documents service's topic and event types (declared in topics) under
// the names the package and its tests use.
const (
	Topic  = topics.Documents
	Source = "/agentic/documents"

	TypeDocumentAdded   = topics.DocumentsDocumentAdded
	TypeDocumentUpdated = topics.DocumentsDocumentUpdated
	TypeDocumentRemoved = topics.DocumentsDocumentRemoved
	TypeDocumentSynced  = topics.DocumentsDocumentSynced
)

// documentEvent keys events by agent (one agent's document events stay in
// order) with the document as subject.
func documentEvent(d Document, typ string, payload proto.Message) events.Event {
	return events.Event{Topic: Topic, Key: d.AgentID, Subject: d.ID, Type: typ, Payload: payload}
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func addedEvent(d Document) events.Event {
	return documentEvent(d, TypeDocumentAdded, &eventsv1.DocumentAdded{
		DocumentId: d.ID, AgentId: d.AgentID, OwnerUid: d.OwnerUID, Name: d.Name, Url: d.URL,
		DriveFileId: d.DriveFileID, Labels: d.Labels, SharingStatus: d.SharingStatus,
		FileType: googledocs.FileType, OccurredAt: ts(d.CreatedAt),
	})
}

func updatedEvent(prev, next Document, changed []string) events.Event {
	return documentEvent(next, TypeDocumentUpdated, &eventsv1.DocumentUpdated{
		DocumentId: next.ID, AgentId: next.AgentID, OwnerUid: next.OwnerUID, ChangedFields: changed,
		Name: next.Name, Labels: next.Labels, SharingStatus: next.SharingStatus, PreviousName: prev.Name,
		DriveFileId: next.DriveFileID, FileType: googledocs.FileType, OccurredAt: ts(next.UpdatedAt),
	})
}

func removedEvent(d Document, at time.Time) events.Event {
	return documentEvent(d, TypeDocumentRemoved, &eventsv1.DocumentRemoved{
		DocumentId: d.ID, AgentId: d.AgentID, OwnerUid: d.OwnerUID, Name: d.Name, Url: d.URL,
		DriveFileId: d.DriveFileID, Labels: d.Labels, FileType: googledocs.FileType, OccurredAt: ts(at),
	})
}

// SyncedEvent is DocumentSynced: a sync changed what the agent can read of
// d (new or changed text indexed, or the text removed). d carries the state
// after the sync.
func SyncedEvent(d Document, at time.Time) events.Event {
	m := &eventsv1.DocumentSynced{
		DocumentId: d.ID, AgentId: d.AgentID, OwnerUid: d.OwnerUID, Name: d.Name, SharingStatus: d.SharingStatus,
		FileType: googledocs.FileType, Labels: d.Labels, OccurredAt: ts(at),
	}
	if d.DriveTitle != nil {
		m.DriveTitle = *d.DriveTitle
	}
	if d.TokenCount != nil {
		m.TokenCount = int64(*d.TokenCount)
	}
	if d.ModifiedTime != nil {
		m.ModifiedTime = ts(*d.ModifiedTime)
	}
	return documentEvent(d, TypeDocumentSynced, m)
}
