package inbox

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Topic, source and types of the mail service's events (key: agent id;
// subject: the inbound message's id).
const (
	Topic        = topics.Mail
	Source       = "/agentic/mail"
	TypeReceived = topics.MailMessageReceived
	TypeAnswered = topics.MailMessageAnswered
	TypeRefused  = topics.MailMessageRefused
	TypeSent     = topics.MailReplySent
)

func event(typ, agentID, messageID string, payload events.Event) events.Event {
	payload.Topic, payload.Key, payload.Type, payload.Subject = Topic, agentID, typ, messageID
	return payload
}

func receivedEvent(id string, agentID, senderUID string, in Inbound, threadKey string) events.Event {
	return event(TypeReceived, agentID, id, events.Event{Payload: &eventsv1.MailMessageReceived{
		MessageId: id, AgentId: agentID, SenderUid: senderUID, RfcMessageId: in.Parsed.MessageID,
		ThreadKey: threadKey, Subject: in.Parsed.Subject, Attachments: in.Parsed.Attachments,
		SizeBytes: int64(len(in.Raw)), ReceivedAt: timestamppb.New(in.Received),
	}, Time: in.Received})
}

func answeredEvent(m Message, a Answer, at time.Time) events.Event {
	return event(TypeAnswered, m.AgentID, m.ID, events.Event{Payload: &eventsv1.MailMessageAnswered{
		MessageId: m.ID, AgentId: m.AgentID, SenderUid: m.SenderUID, ConversationId: a.ConversationID,
		AnswerMessageId: a.MessageID, TotalMicros: a.TotalMicros, AnsweredAt: timestamppb.New(at),
	}, Time: at})
}

func refusedEvent(m Message, reason string, replied bool, at time.Time) events.Event {
	return event(TypeRefused, m.AgentID, m.ID, events.Event{Payload: &eventsv1.MailMessageRefused{
		MessageId: m.ID, AgentId: m.AgentID, SenderUid: m.SenderUID, Reason: reason, Replied: replied,
		RefusedAt: timestamppb.New(at),
	}, Time: at})
}

func sentEvent(r Reply, at time.Time) events.Event {
	return event(TypeSent, r.AgentID, r.MessageID, events.Event{Payload: &eventsv1.MailReplySent{
		ReplyId: r.ID, MessageId: r.MessageID, AgentId: r.AgentID, SenderUid: r.SenderUID, Kind: r.Kind,
		RfcMessageId: r.RFCMessageID, Attempts: int32(r.Attempts), SentAt: timestamppb.New(at),
	}, Time: at})
}
