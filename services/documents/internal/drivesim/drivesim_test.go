package drivesim

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
