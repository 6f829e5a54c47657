package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// publish writes a documents-service event to the broker, as its outbox
// relay would (CloudEvents binary mode, key = agent).
func publish(t *testing.T, brokers []string, id, typ, agent string, payload proto.Message) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	value, err := protojson.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	rec := &kgo.Record{Topic: topics.Documents, Key: []byte(agent), Value: value, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte(id)}, {Key: "ce_type", Value: []byte(typ)},
		{Key: "ce_source", Value: []byte("/agentic/documents")}, {Key: "content-type", Value: []byte("application/json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// The instructions' @Document references are resolved through the
// directory built from the documents service's events, and the document's
// passages are put in the prompt (KnowledgeService.GetPassages).
func TestDocumentReferencesResolvedFromEvents(t *testing.T) {
	e := start(t, options{})
	e.catalog.AddAgent(&catalogv1.Agent{Id: agentA, OwnerUid: e.alice, Name: "Math Tutor", Status: "active",
		Instructions: "Always mention office hours from @notes. Be brief."})
	at := time.Now().Add(-time.Minute)
	publish(t, e.brokers, "ev-1", topics.DocumentsDocumentAdded, agentA, &eventsv1.DocumentAdded{
		DocumentId: docNotes, AgentId: agentA, Name: "Notes", OccurredAt: timestamppb.New(at)})
	publish(t, e.brokers, "ev-2", topics.DocumentsDocumentAdded, agentA, &eventsv1.DocumentAdded{
		DocumentId: docSyl, AgentId: agentA, Name: "Syllabus", Labels: []string{"week1"}, OccurredAt: timestamppb.New(at)})
	// An older rename arriving late does not win over the newer state.
	publish(t, e.brokers, "ev-3", topics.DocumentsDocumentUpdated, agentA, &eventsv1.DocumentUpdated{
		DocumentId: docNotes, AgentId: agentA, Name: "Stale", OccurredAt: timestamppb.New(at.Add(-time.Hour))})
	ctx := context.Background()
	testwait.Until(t, "the directory to learn both documents", func() bool {
		ds, err := e.store.(*conversations.PostgresStore).AgentDocuments(ctx, agentA)
		return err == nil && len(ds) == 2
	})
	ds, _ := e.store.(*conversations.PostgresStore).AgentDocuments(ctx, agentA)
	for _, d := range ds {
		if d.ID == docNotes && d.Name != "Notes" {
			t.Fatalf("late older event won: %+v", d)
		}
	}

	conv := e.newConversation(t, e.alice, agentA)
	r := e.sendJSON(t, e.alice, conv, "When are office hours?", "q1")
	if r.Status != 200 {
		t.Fatalf("answer: %d %s", r.Status, r.Raw)
	}
	gets := e.knowledge.Gets()
	if len(gets) != 1 || gets[0].GetAgentId() != agentA || len(gets[0].GetDocumentIds()) != 1 || gets[0].GetDocumentIds()[0] != docNotes {
		t.Fatalf("GetPassages %v", gets)
	}
	a := r.Obj()["assistantMessage"].(map[string]any)
	if !strings.Contains(a["content"].(string), "Tuesdays") {
		t.Fatalf("answer did not use the referenced document: %v", a["content"])
	}

	// Removed: the reference no longer resolves.
	publish(t, e.brokers, "ev-4", topics.DocumentsDocumentRemoved, agentA, &eventsv1.DocumentRemoved{
		DocumentId: docNotes, AgentId: agentA, Name: "Notes", OccurredAt: timestamppb.New(time.Now())})
	testwait.Until(t, "the removal", func() bool {
		ds, _ := e.store.(*conversations.PostgresStore).AgentDocuments(ctx, agentA)
		return len(ds) == 1
	})
	if r := e.sendJSON(t, e.alice, conv, "When are office hours?", "q2"); r.Status != 200 || len(e.knowledge.Gets()) != 1 {
		t.Fatalf("after removal: %d, %d GetPassages", r.Status, len(e.knowledge.Gets()))
	}
}

// gRPC ConversationsService.Answer: the e-mail channel goes through the
// same metering path, one conversation per thread, idempotent by key.
func TestGRPCAnswerForOtherChannels(t *testing.T) {
	e := start(t, options{})
	conn, err := grpc.NewClient(e.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := conversationsv1.NewConversationsServiceClient(conn)
	ctx := context.Background()
	msgID := "<" + strings.Repeat("m", 120) + "@mail.example.com>" // longer than a clientMessageId
	req := &conversationsv1.AnswerRequest{AgentId: agentA, UserUid: e.bob, Channel: "email", ThreadKey: "<root@mail.example.com>",
		Title: "Re: Quadratic\r\n equations", Content: question, IdempotencyKey: msgID}
	first, err := cl.Answer(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.GetReplayed() || first.GetStatus() != "complete" || !strings.Contains(first.GetContent(), "quadratic formula") ||
		len(first.GetCitations()) != 1 || first.GetCitations()[0].GetDocumentName() != "Syllabus" ||
		first.GetTotalMicros() != first.GetCostMicros()+first.GetFeeMicros() || first.GetTotalMicros() <= 0 || first.GetModel() != "agentic-sim" {
		t.Fatalf("answer %v", first)
	}
	again, err := cl.Answer(ctx, req)
	if err != nil || !again.GetReplayed() || again.GetMessageId() != first.GetMessageId() || again.GetConversationId() != first.GetConversationId() {
		t.Fatalf("replay %v %v", again, err)
	}
	// Another message of the thread: same conversation, with history.
	req2 := proto.Clone(req).(*conversationsv1.AnswerRequest)
	req2.IdempotencyKey, req2.Content = "<second@mail.example.com>", "And what does the midterm exam cover?"
	second, err := cl.Answer(ctx, req2)
	if err != nil || second.GetConversationId() != first.GetConversationId() || second.GetMessageId() == first.GetMessageId() {
		t.Fatalf("second %v %v", second, err)
	}
	if len(e.wallet.Transfers()) != 2 || e.sim.Stats().Requests != 2 {
		t.Fatalf("transfers %d model calls %d", len(e.wallet.Transfers()), e.sim.Stats().Requests)
	}
	if b, _ := e.wallet.Balance(e.alice); b != 10*dollar-first.GetTotalMicros()-second.GetTotalMicros() {
		t.Fatalf("owner balance %d", b)
	}
	evs := e.interactions(t, 2)
	if len(evs) != 2 || evs[0].GetChannel() != "email" || evs[0].GetUserUid() != e.bob || evs[0].GetPayerUid() != e.alice {
		t.Fatalf("events %v", evs)
	}
	// The conversation is the subscriber's, titled from the subject.
	g := e.do(t, "GET", "/api/conversations/"+first.GetConversationId(), e.bob, "")
	if g.Status != 200 || g.Obj()["channel"] != "email" || g.Obj()["title"] != "Re: Quadratic equations" || len(g.Obj()["messages"].([]any)) != 4 {
		t.Fatalf("thread conversation %d %s", g.Status, g.Raw)
	}

	for _, c := range []struct {
		mut  func(*conversationsv1.AnswerRequest)
		code codes.Code
		msg  string
	}{
		{func(r *conversationsv1.AnswerRequest) { r.UserUid = e.dave }, codes.NotFound, "not_found"},
		{func(r *conversationsv1.AnswerRequest) { r.Content = "" }, codes.InvalidArgument, ""},
		{func(r *conversationsv1.AnswerRequest) { r.Channel = "chat" }, codes.InvalidArgument, ""},
		{func(r *conversationsv1.AnswerRequest) { r.ThreadKey = "" }, codes.InvalidArgument, ""},
	} {
		r := proto.Clone(req).(*conversationsv1.AnswerRequest)
		r.IdempotencyKey = "other"
		c.mut(r)
		_, err := cl.Answer(ctx, r)
		if status.Code(err) != c.code || (c.msg != "" && status.Convert(err).Message() != c.msg) {
			t.Errorf("%v: got %v", c.code, err)
		}
	}
	e.wallet.SetBalance(e.alice, 0)
	r := proto.Clone(req).(*conversationsv1.AnswerRequest)
	r.IdempotencyKey = "broke"
	if _, err := cl.Answer(ctx, r); status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "insufficient_funds" {
		t.Fatalf("insufficient funds: %v", err)
	}
}
