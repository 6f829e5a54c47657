package drivesim

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	"google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// newSim starts an in-memory simulator behind httptest.
func newSim(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim.Handler())
	t.Cleanup(hs.Close)
	return sim, hs
}

// client is the real Drive v3 client, authenticated as addr the way the
// documents service's dev token source does it.
func client(t *testing.T, hs *httptest.Server, addr string) *drive.Service {
	t.Helper()
	svc, err := drive.NewService(context.Background(),
		option.WithEndpoint(hs.URL+"/drive/v3/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "dev:" + addr})))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func apiErr(t *testing.T, err error) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error = %v (%T), want *googleapi.Error", err, err)
	}
	return ge
}

func export(t *testing.T, svc *drive.Service, id string) (string, http.Header, error) {
	t.Helper()
	res, err := svc.Files.Export(id, "text/plain").Context(context.Background()).Download()
	if err != nil {
		return "", nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), res.Header, nil
}

func TestSharedFileMetadataAndExportThroughRealClient(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, err := sim.CreateFile(File{Title: "Syllabus", Text: "Week 1: sets\nWeek 2: logic\n", SharedWith: []string{"Agent@X"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ID) != 44 || f.ID[0] != '1' || !validID(f.ID) || f.Version != 1 {
		t.Fatalf("created %+v: want a 44-char id starting with 1, version 1", f)
	}
	svc := client(t, hs, "agent@x")

	got, err := svc.Files.Get(f.ID).SupportsAllDrives(true).Fields("id,name,mimeType,modifiedTime,version,webViewLink").Do()
	if err != nil {
		t.Fatal(err)
	}
	if got.Id != f.ID || got.Name != "Syllabus" || got.MimeType != GoogleDocMimeType || got.Version != 1 ||
		got.ModifiedTime != fmtTime(f.ModifiedTime) || !strings.HasPrefix(got.WebViewLink, DocsURL(f.ID)) {
		t.Fatalf("files.get = %+v", got)
	}
	if got.CreatedTime != "" || got.Kind != "" {
		t.Fatalf("fields selection not honoured: %+v", got)
	}

	text, hdr, err := export(t, svc, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if text != f.Text || hdr.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("export = %q (%s)", text, hdr.Get("Content-Type"))
	}

	// An edit is a new version with a later modifiedTime.
	f2, err := sim.UpdateText(f.ID, "Week 1: sets (revised)\n")
	if err != nil {
		t.Fatal(err)
	}
	got2, err := svc.Files.Get(f.ID).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got2.Version != 2 || got2.ModifiedTime <= got.ModifiedTime || got2.ModifiedTime != fmtTime(f2.ModifiedTime) {
		t.Fatalf("after edit: version %d modified %s (before %s)", got2.Version, got2.ModifiedTime, got.ModifiedTime)
	}
	if text, _, _ := export(t, svc, f.ID); text != "Week 1: sets (revised)\n" {
		t.Fatalf("export after edit = %q", text)
	}
	if sim.Requests(OpGet) != 2 || sim.Requests(OpExport) != 2 {
		t.Fatalf("requests get=%d export=%d, want 2 and 2", sim.Requests(OpGet), sim.Requests(OpExport))
	}
}

func TestUnsharedFileIsNotFound(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Secret", Text: "x", SharedWith: []string{"owner@x"}})
	svc := client(t, hs, "agent@x")

	_, err := svc.Files.Get(f.ID).Do()
	ge := apiErr(t, err)
	if ge.Code != 404 || len(ge.Errors) != 1 || ge.Errors[0].Reason != "notFound" || ge.Message != "File not found: "+f.ID+"." {
		t.Fatalf("get unshared = %+v", ge)
	}
	_, _, err = export(t, svc, f.ID)
	if apiErr(t, err).Code != 404 {
		t.Fatalf("export unshared = %v", err)
	}
	// The same answer as for a file that does not exist at all.
	_, err = svc.Files.Get("1doesNotExist_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").Do()
	if apiErr(t, err).Code != 404 {
		t.Fatalf("get missing = %v", err)
	}

	// Sharing (any letter case) makes it readable; unsharing hides it again.
	if err := sim.Share(f.ID, "AGENT@x"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Files.Get(f.ID).Do(); err != nil {
		t.Fatalf("after share: %v", err)
	}
	if err := sim.Unshare(f.ID, "Agent@X"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Files.Get(f.ID).Do(); apiErr(t, err).Code != 404 {
		t.Fatalf("after unshare: %v", err)
	}
}

func TestAnyoneWithLinkIsReadableByAnyAddress(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Public", Text: "hello", AnyoneWithLink: true})
	for _, addr := range []string{"a@x", "someone.else@example.org"} {
		if text, _, err := export(t, client(t, hs, addr), f.ID); err != nil || text != "hello" {
			t.Fatalf("%s: export = %q, %v", addr, text, err)
		}
	}
	if err := sim.SetAnyoneWithLink(f.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := export(t, client(t, hs, "a@x"), f.ID); apiErr(t, err).Code != 404 {
		t.Fatalf("after turning link sharing off: %v", err)
	}
}

func TestInjectedFaultsReachTheClient(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Doc", Text: "body", AnyoneWithLink: true})
	other, _ := sim.CreateFile(File{Title: "Other", Text: "other", AnyoneWithLink: true})
	svc := client(t, hs, "agent@x")

	sim.InjectFault(Fault{Status: 429, Count: 1, FileID: f.ID, Op: OpExport, RetryAfter: "7"})
	// Neither another operation nor another file consumes the fault.
	if _, err := svc.Files.Get(f.ID).Do(); err != nil {
		t.Fatalf("get during an export fault: %v", err)
	}
	if _, _, err := export(t, svc, other.ID); err != nil {
		t.Fatalf("export of another file: %v", err)
	}
	_, _, err := export(t, svc, f.ID)
	ge := apiErr(t, err)
	if ge.Code != 429 || ge.Header.Get("Retry-After") != "7" || len(ge.Errors) == 0 || ge.Errors[0].Reason != "rateLimitExceeded" {
		t.Fatalf("faulted export = %+v (Retry-After %q)", ge, ge.Header.Get("Retry-After"))
	}
	if text, _, err := export(t, svc, f.ID); err != nil || text != "body" {
		t.Fatalf("export after the one fault = %q, %v", text, err)
	}

	// Count 0 fails every call until cleared.
	sim.InjectFault(Fault{Status: 503})
	for i := 0; i < 3; i++ {
		if _, err := svc.Files.Get(other.ID).Do(); apiErr(t, err).Code != 503 {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := len(sim.Faults()); n != 1 {
		t.Fatalf("faults = %d, want the unlimited one to remain", n)
	}
	sim.ClearFaults()
	if _, err := svc.Files.Get(other.ID).Do(); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}

	// A 403 can be given Drive's rate-limit reason.
	sim.InjectFault(Fault{Status: 403, Count: 1, Reason: "userRateLimitExceeded"})
	ge = apiErr(t, func() error { _, err := svc.Files.Get(f.ID).Do(); return err }())
	if ge.Code != 403 || ge.Errors[0].Reason != "userRateLimitExceeded" {
		t.Fatalf("403 fault = %+v", ge)
	}
}

func TestExportAndDownloadRules(t *testing.T) {
	sim, hs := newSim(t, Config{})
	doc, _ := sim.CreateFile(File{Title: "Doc", Text: "text", AnyoneWithLink: true})
	txt, _ := sim.CreateFile(File{Title: "notes.txt", MimeType: "text/plain", Text: "plain file", AnyoneWithLink: true})
	svc := client(t, hs, "agent@x")

	_, _, err := export(t, svc, txt.ID)
	if ge := apiErr(t, err); ge.Code != 403 || ge.Errors[0].Reason != "fileNotExportable" {
		t.Fatalf("export of a non-Docs file = %+v", ge)
	}
	_, err = svc.Files.Export(doc.ID, "application/pdf").Download()
	if ge := apiErr(t, err); ge.Code != 400 {
		t.Fatalf("export as PDF = %+v", ge)
	}
	// Docs files cannot be downloaded, only exported; binary files can.
	_, err = svc.Files.Get(doc.ID).Download()
	if ge := apiErr(t, err); ge.Code != 403 || ge.Errors[0].Reason != "fileNotDownloadable" {
		t.Fatalf("download of a Doc = %+v", ge)
	}
	res, err := svc.Files.Get(txt.ID).Download()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "plain file" {
		t.Fatalf("download = %q", b)
	}
	meta, err := svc.Files.Get(txt.ID).Fields("size,mimeType").Do()
	if err != nil || meta.Size != int64(len("plain file")) || meta.MimeType != "text/plain" || meta.Id != "" {
		t.Fatalf("metadata of a binary file = %+v, %v", meta, err)
	}
}

func TestDriveAuthentication(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Doc", AnyoneWithLink: true})
	for _, tc := range []struct{ authz, reason string }{
		{"", "required"},
		{"Bearer ya29.real-google-token", "authError"},
		{"Bearer dev:", "authError"},
		{"Bearer dev:not an address", "authError"},
		{"Basic ZGV2OmFAeA==", "authError"},
	} {
		req, _ := http.NewRequest("GET", hs.URL+"/drive/v3/files/"+f.ID, nil)
		if tc.authz != "" {
			req.Header.Set("Authorization", tc.authz)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		ge := apiErr(t, googleapi.CheckResponse(res))
		res.Body.Close()
		if ge.Code != 401 || ge.Errors[0].Reason != tc.reason {
			t.Errorf("%q: %+v, want 401 %s", tc.authz, ge, tc.reason)
		}
	}
	if sim.Requests(OpGet) != 5 {
		t.Fatalf("requests = %d: refused calls count too", sim.Requests(OpGet))
	}
}

const commentFields = "nextPageToken,comments(id,content,author(displayName,emailAddress),createdTime,modifiedTime,resolved,deleted,replies(id,content,author(emailAddress,me)))"

func TestCommentsAndRepliesThroughRealClient(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Doc", Text: "text", SharedWith: []string{"agent@x"}})
	c, err := sim.AddComment(f.ID, "Jane.Doe@Example.com", "", "@agent what is week 2 about?")
	if err != nil {
		t.Fatal(err)
	}
	svc := client(t, hs, "agent@x")

	list, err := svc.Comments.List(f.ID).Fields(commentFields).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Comments) != 1 || list.NextPageToken != "" {
		t.Fatalf("list = %+v", list)
	}
	got := list.Comments[0]
	if got.Id != c.ID || got.Content != c.Content || got.Author.DisplayName != "Jane Doe" ||
		got.Author.EmailAddress != "jane.doe@example.com" || got.CreatedTime != fmtTime(c.CreatedTime) || got.Resolved {
		t.Fatalf("comment = %+v author %+v", got, got.Author)
	}
	if got.HtmlContent != "" || got.Kind != "" {
		t.Fatalf("fields not honoured inside comments: %+v", got)
	}

	rep, err := svc.Replies.Create(f.ID, c.ID, &drive.Reply{Content: "Week 2 covers logic."}).Fields("id,content,author,createdTime").Do()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Id == "" || rep.Content != "Week 2 covers logic." || rep.Author.EmailAddress != "agent@x" || !rep.Author.Me {
		t.Fatalf("reply = %+v author %+v", rep, rep.Author)
	}
	list, err = svc.Comments.List(f.ID).Fields(commentFields).Do()
	if err != nil {
		t.Fatal(err)
	}
	if rs := list.Comments[0].Replies; len(rs) != 1 || rs[0].Id != rep.Id || rs[0].Content != rep.Content || !rs[0].Author.Me {
		t.Fatalf("replies after create = %+v", rs)
	}
	if list.Comments[0].ModifiedTime <= got.ModifiedTime {
		t.Fatalf("a reply must move the comment's modifiedTime: %s → %s", got.ModifiedTime, list.Comments[0].ModifiedTime)
	}
	if sim.Requests(OpComments) != 2 || sim.Requests(OpReply) != 1 {
		t.Fatalf("requests comments=%d reply=%d", sim.Requests(OpComments), sim.Requests(OpReply))
	}
	// Comments do not change the document's version: the text is unchanged.
	if cur, _ := sim.GetFile(f.ID); cur.Version != 1 {
		t.Fatalf("version after comments = %d", cur.Version)
	}

	// Errors: unknown comment, missing fields, file not shared with the caller.
	_, err = svc.Replies.Create(f.ID, "AAAAnope", &drive.Reply{Content: "x"}).Fields("id").Do()
	if ge := apiErr(t, err); ge.Code != 404 || ge.Errors[0].Reason != "notFound" {
		t.Fatalf("reply to unknown comment = %+v", ge)
	}
	_, err = svc.Replies.Create(f.ID, c.ID, &drive.Reply{}).Fields("id").Do()
	if ge := apiErr(t, err); ge.Code != 400 {
		t.Fatalf("empty reply = %+v", ge)
	}
	_, err = svc.Comments.List(f.ID).Do()
	if ge := apiErr(t, err); ge.Code != 400 || ge.Errors[0].Reason != "required" {
		t.Fatalf("list without fields = %+v", ge)
	}
	_, err = client(t, hs, "stranger@x").Comments.List(f.ID).Fields(commentFields).Do()
	if ge := apiErr(t, err); ge.Code != 404 {
		t.Fatalf("list by a stranger = %+v", ge)
	}
	_, err = client(t, hs, "stranger@x").Replies.Create(f.ID, c.ID, &drive.Reply{Content: "x"}).Fields("id").Do()
	if ge := apiErr(t, err); ge.Code != 404 {
		t.Fatalf("reply by a stranger = %+v", ge)
	}
}

func TestCommentsPagingAndDeleted(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Doc", AnyoneWithLink: true})
	var ids []string
	for i := 0; i < 25; i++ {
		c, err := sim.AddComment(f.ID, "p@x", "", "comment")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if err := sim.DeleteComment(f.ID, ids[3]); err != nil {
		t.Fatal(err)
	}
	svc := client(t, hs, "agent@x")

	first, err := svc.Comments.List(f.ID).Fields(commentFields).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Comments) != 20 || first.NextPageToken == "" {
		t.Fatalf("first page: %d comments, token %q (default page size is 20)", len(first.Comments), first.NextPageToken)
	}
	var seen []string
	err = svc.Comments.List(f.ID).Fields(commentFields).PageSize(7).Pages(context.Background(), func(l *drive.CommentList) error {
		for _, c := range l.Comments {
			seen = append(seen, c.Id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, ids[:3]...), ids[4:]...)
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Fatalf("paged ids = %v, want %v (deleted one left out, oldest first)", seen, want)
	}

	all, err := svc.Comments.List(f.ID).Fields(commentFields).IncludeDeleted(true).PageSize(100).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Comments) != 25 || !all.Comments[3].Deleted || all.Comments[3].Content != "" {
		t.Fatalf("includeDeleted: %d comments, #3 = %+v", len(all.Comments), all.Comments[3])
	}
	_, err = svc.Comments.List(f.ID).Fields(commentFields).PageToken("garbage").Do()
	if ge := apiErr(t, err); ge.Code != 400 {
		t.Fatalf("bad page token = %+v", ge)
	}
}

func TestPersistenceSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/nested/drivesim.json"
	sim, err := New(Config{DataFile: path})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := sim.CreateFile(File{Title: "Kept", Text: "v1"})
	if _, err := sim.UpdateText(f.ID, "v2"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Share(f.ID, "Agent@X"); err != nil {
		t.Fatal(err)
	}
	c, _ := sim.AddComment(f.ID, "p@x", "", "hello")
	want, _ := sim.GetFile(f.ID)

	again, err := New(Config{DataFile: path, Seed: true})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := again.GetFile(f.ID)
	if !ok || got.Text != "v2" || got.Version != 2 || !got.ModifiedTime.Equal(want.ModifiedTime) ||
		len(got.SharedWith) != 1 || got.SharedWith[0] != "agent@x" || len(got.Comments) != 1 || got.Comments[0].ID != c.ID {
		t.Fatalf("after restart: %+v, want %+v", got, want)
	}
	if n := len(again.Files()); n != 1 {
		t.Fatalf("files after restart with Seed = %d: a non-empty store is not seeded", n)
	}
	// The restarted server serves what was persisted.
	hs := httptest.NewServer(again.Handler())
	defer hs.Close()
	if text, _, err := export(t, client(t, hs, "agent@x"), f.ID); err != nil || text != "v2" {
		t.Fatalf("export after restart = %q, %v", text, err)
	}
	// Only the data file is left: the temp files were renamed over it.
	entries, _ := os.ReadDir(dir + "/nested")
	if len(entries) != 1 || entries[0].Name() != "drivesim.json" {
		t.Fatalf("data dir holds %v", entries)
	}
}

func TestCorruptDataFileIsAnError(t *testing.T) {
	path := t.TempDir() + "/drivesim.json"
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{DataFile: path, Seed: true}); err == nil {
		t.Fatal("New accepted a corrupt data file (and would overwrite it)")
	}
}

func TestSeed(t *testing.T) {
	sim, hs := newSim(t, Config{Seed: true})
	files := sim.Files()
	if len(files) != 4 {
		t.Fatalf("seeded %d files", len(files))
	}
	svc := client(t, hs, "any.agent@example.com")
	for _, f := range files {
		if len(f.ID) != 44 || f.ID[0] != '1' || !validID(f.ID) {
			t.Errorf("seed id %q is not Docs-shaped", f.ID)
		}
		text, _, err := export(t, svc, f.ID)
		if f.ID == SeedPricingNotesID {
			if f.AnyoneWithLink || len(f.SharedWith) != 0 || apiErr(t, err).Code != 404 {
				t.Errorf("pricing notes must be shared with nobody: %+v, %v", f, err)
			}
			continue
		}
		if err != nil || !f.AnyoneWithLink || text != f.Text || strings.Count(text, "\n\n") < 3 {
			t.Errorf("%s: export %v, text of %d paragraphs", f.Title, err, strings.Count(text, "\n\n"))
		}
	}
	if f, _ := sim.GetFile(SeedAlgebraSyllabusID); f.Title != "Algebra I — Course Syllabus" || !strings.Contains(f.Text, "Grading") {
		t.Fatalf("algebra syllabus = %q", f.Title)
	}
}

func TestExportLimitAndDriveLikeExport(t *testing.T) {
	sim, hs := newSim(t, Config{DriveLikeExport: true})
	f, _ := sim.CreateFile(File{Title: "Doc", Text: "Title\nline é\n", AnyoneWithLink: true})
	svc := client(t, hs, "agent@x")
	if text, _, err := export(t, svc, f.ID); err != nil || text != "\ufeffTitle\r\nline é\r\n" {
		t.Fatalf("Drive-like export = %q, %v", text, err)
	}

	big, err := sim.CreateFile(File{Title: "Big", Text: strings.Repeat("a", exportLimit+1), AnyoneWithLink: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = export(t, svc, big.ID)
	if ge := apiErr(t, err); ge.Code != 403 || ge.Errors[0].Reason != "exportSizeLimitExceeded" {
		t.Fatalf("export over 10 MB = %+v", ge)
	}
	if _, err := sim.CreateFile(File{Title: "Huge", Text: strings.Repeat("a", maxText+1)}); err == nil {
		t.Fatal("text over the simulator's limit accepted")
	}
}

// Concurrent edits and reads keep versions consistent (run with -race).
func TestConcurrentEditsAndReads(t *testing.T) {
	sim, hs := newSim(t, Config{DataFile: t.TempDir() + "/d.json"})
	f, _ := sim.CreateFile(File{Title: "Doc", Text: "0", AnyoneWithLink: true})
	svc := client(t, hs, "agent@x")
	done := make(chan error, 20)
	for i := 0; i < 10; i++ {
		go func() {
			_, err := sim.UpdateText(f.ID, "edit")
			done <- err
		}()
		go func() {
			_, err := svc.Files.Get(f.ID).Fields("version").Do()
			done <- err
		}()
	}
	for i := 0; i < 20; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := sim.GetFile(f.ID); got.Version != 11 {
		t.Fatalf("version after 10 concurrent edits = %d, want 11", got.Version)
	}
}
