package documents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const docID = "1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde"

var docURL = "https://docs.google.com/document/d/" + docID + "/edit"

func firstMessage(err error) (field, msg string) {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Fields[0].Field, ve.Message()
	}
	return "", fmt.Sprint(err)
}

func TestValidateAdd(t *testing.T) {
	ok, err := ValidateAdd(AddInput{Name: "Syllabus", URL: "  " + docURL + " ", Labels: []string{" week1 ", "", "week1", "exam", "  "}})
	if err != nil {
		t.Fatal(err)
	}
	if ok.URL != docURL || ok.DriveFileID != docID || fmt.Sprint(ok.Labels) != "[week1 exam]" || ok.SharingStatus != SharingShared {
		t.Fatalf("normalised = %+v", ok)
	}
	if _, err := ValidateAdd(AddInput{Name: "Syllabus", URL: docURL, DriveFileID: docID, SharingStatus: "not_shared"}); err != nil {
		t.Fatalf("matching driveFileId: %v", err)
	}

	labels := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("l%d", i)
		}
		return out
	}
	cases := []struct {
		in           AddInput
		field, msg   string
		fieldsWanted int
	}{
		{AddInput{URL: docURL}, "name", "Document name is required", 1},
		{AddInput{Name: "   ", URL: docURL}, "name", "Document name is required", 1},
		{AddInput{Name: "My Doc", URL: docURL}, "name", "Document name cannot contain spaces.", 1},
		{AddInput{Name: " Doc", URL: docURL}, "name", "Document name cannot contain spaces.", 1},
		{AddInput{Name: "Doc\u00a0x", URL: docURL}, "name", "Document name cannot contain spaces.", 1},
		{AddInput{Name: strings.Repeat("é", 101), URL: docURL}, "name", MsgNameMax, 1},
		{AddInput{Name: "Doc\x00", URL: docURL}, "name", MsgNameControl, 1},
		{AddInput{Name: "Doc"}, "url", "Document URL is required", 1},
		{AddInput{Name: "Doc", URL: "nope"}, "url", "Please enter a valid URL", 1},
		{AddInput{Name: "Doc", URL: "https://example.com/x"}, "url", "URL must be a document URL (docs.google.com/document/...)", 1},
		{AddInput{Name: "Doc", URL: "https://docs.google.com/document/d/short"}, "url", "Invalid Google Docs URL: Could not extract document ID from the provided URL.", 1},
		{AddInput{Name: "Doc", URL: "https://evil.example/docs.google.com/document/d/" + docID}, "url", "Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported.", 1},
		{AddInput{Name: "Doc", URL: docURL, DriveFileID: "something-else-entirely-xyz"}, "driveFileId", "driveFileId does not match the document URL", 1},
		{AddInput{Name: "Doc", URL: docURL, Labels: []string{"ok", "two words"}}, "labels", "Invalid label: Labels cannot contain spaces.", 1},
		{AddInput{Name: "Doc", URL: docURL, Labels: []string{strings.Repeat("x", 41)}}, "labels", MsgLabelMax, 1},
		{AddInput{Name: "Doc", URL: docURL, Labels: []string{"a\x01"}}, "labels", MsgLabelControl, 1},
		{AddInput{Name: "Doc", URL: docURL, Labels: labels(31)}, "labels", MsgLabelsMax, 1},
		{AddInput{Name: "Doc", URL: docURL, SharingStatus: "public"}, "sharingStatus", MsgSharingStatus, 1},
		{AddInput{Name: "a b", URL: "x", Labels: []string{"c d"}, SharingStatus: "?"}, "name", MsgNameSpaces, 4},
	}
	for _, c := range cases {
		_, err := ValidateAdd(c.in)
		field, msg := firstMessage(err)
		var ve *ValidationError
		errors.As(err, &ve)
		if field != c.field || msg != c.msg || ve == nil || len(ve.Fields) != c.fieldsWanted {
			t.Errorf("ValidateAdd(%+v) = %v %q (%v), want %s %q", c.in, field, msg, err, c.field, c.msg)
		}
	}
	// 30 labels after dropping duplicates and blanks is fine.
	if _, err := ValidateAdd(AddInput{Name: "Doc", URL: docURL, Labels: append(labels(30), "l0", " ")}); err != nil {
		t.Errorf("30 labels: %v", err)
	}
}

func TestValidateUpdate(t *testing.T) {
	cur := Document{Name: "Doc", URL: docURL, DriveFileID: docID, Labels: []string{"a"}, SharingStatus: SharingShared}
	str := func(s string) *string { return &s }
	in, err := ValidateUpdate(cur, UpdateInput{Name: "Doc2", Labels: []string{"b", " b"}, URL: str(" " + docURL), DriveFileID: str(docID)})
	if err != nil || fmt.Sprint(in.Labels) != "[b]" || in.SharingStatus != SharingShared {
		t.Fatalf("update = %+v %v", in, err)
	}
	cases := []struct {
		in         UpdateInput
		field, msg string
	}{
		{UpdateInput{Name: ""}, "name", MsgNameRequired},
		{UpdateInput{Name: "A B"}, "name", MsgNameSpaces},
		{UpdateInput{Name: "Doc", URL: str(docURL + "?x=1")}, "url", MsgURLImmutable},
		{UpdateInput{Name: "Doc", URL: str("")}, "url", MsgURLImmutable},
		{UpdateInput{Name: "Doc", DriveFileID: str("other-id-000000000000000000")}, "driveFileId", MsgDriveFileID},
		{UpdateInput{Name: "Doc", Labels: []string{"x y"}}, "labels", MsgLabelSpaces},
		{UpdateInput{Name: "Doc", SharingStatus: "nope"}, "sharingStatus", MsgSharingStatus},
	}
	for _, c := range cases {
		_, err := ValidateUpdate(cur, c.in)
		if field, msg := firstMessage(err); field != c.field || msg != c.msg {
			t.Errorf("ValidateUpdate(%+v) = %s %q, want %s %q", c.in, field, msg, c.field, c.msg)
		}
	}
}

func TestApplyUpdate(t *testing.T) {
	cur := Document{Name: "Doc", Labels: []string{"a", "b"}, SharingStatus: SharingShared}
	if _, changed := applyUpdate(cur, UpdateInput{Name: "Doc", Labels: []string{"a", "b"}, SharingStatus: SharingShared}); len(changed) != 0 {
		t.Fatalf("no change reported %v", changed)
	}
	// sharingStatus is the sync's: a PUT does not change it.
	next, changed := applyUpdate(cur, UpdateInput{Name: "Doc2", Labels: []string{"b", "a"}, SharingStatus: SharingError})
	if strings.Join(changed, ",") != "name,labels" || next.Name != "Doc2" || fmt.Sprint(next.Labels) != "[b a]" ||
		next.SharingStatus != SharingShared {
		t.Fatalf("applyUpdate = %+v %v", next, changed)
	}
}

type fakeOwnership struct {
	owners map[string]string
	err    error
	calls  int
}

func (f *fakeOwnership) Owns(_ context.Context, agentID, uid string) (bool, error) {
	f.calls++
	if f.err != nil {
		return false, f.err
	}
	return f.owners[agentID] == uid, nil
}

// The service checks ownership before validating, and never asks the catalog
// about ids that cannot exist.
func TestServiceAuthorizesFirst(t *testing.T) {
	const agent = "01900000-0000-7000-8000-000000000001"
	own := &fakeOwnership{owners: map[string]string{agent: "alice"}}
	svc := NewService(nil, own, nil, Limits{}) // the store is never reached below
	ctx := context.Background()
	if _, err := svc.AddDocument(ctx, "bob", agent, AddInput{}); !errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("foreign agent: %v", err)
	}
	if _, err := svc.AddDocument(ctx, "alice", agent, AddInput{}); firstMessageIs(err, MsgNameRequired) != nil {
		t.Fatalf("own agent: %v", err)
	}
	calls := own.calls
	for _, id := range []string{"", "x", "not-a-uuid", agent + "0"} {
		if _, err := svc.ListDocuments(ctx, "alice", id); !errors.Is(err, ErrAgentNotFound) {
			t.Fatalf("agent %q: %v", id, err)
		}
	}
	if own.calls != calls {
		t.Fatalf("catalog asked about invalid ids")
	}
	if err := svc.RemoveDocument(ctx, "alice", agent, "nope"); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("bad document id: %v", err)
	}
	if _, err := svc.UpdateDocument(ctx, "alice", strings.ToUpper(agent), "nope", UpdateInput{}); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("upper-case agent id, bad document id: %v", err)
	}
	own.err = errors.New("connection refused")
	if _, err := svc.ListDocuments(ctx, "alice", agent); !errors.Is(err, ErrCatalogUnavailable) {
		t.Fatalf("catalog down: %v", err)
	}
}

func firstMessageIs(err error, msg string) error {
	if _, m := firstMessage(err); m != msg {
		return fmt.Errorf("got %q (%v), want %q", m, err, msg)
	}
	return nil
}

func TestMsgDocumentsLimit(t *testing.T) {
	for n, want := range map[int]string{100: "An agent can have at most 100 documents.", 2: "An agent can have at most 2 documents.",
		1: "An agent can have at most 1 document."} {
		if got := (&LimitError{Max: n}).Error(); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
