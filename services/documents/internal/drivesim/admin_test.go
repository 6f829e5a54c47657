package drivesim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// call sends a JSON admin request and decodes the answer into out (if any).
func call(t *testing.T, base, method, path, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return res.StatusCode
}

type adminOut struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Text           string   `json:"text"`
	MimeType       string   `json:"mimeType"`
	URL            string   `json:"url"`
	Version        int64    `json:"version"`
	AnyoneWithLink bool     `json:"anyoneWithLink"`
	SharedWith     []string `json:"sharedWith"`
	Error          string   `json:"error"`
	Message        string   `json:"message"`
}

func TestAdminAPI(t *testing.T) {
	sim, hs := newSim(t, Config{})
	base := hs.URL

	var f adminOut
	if st := call(t, base, "POST", "/_sim/files", `{"title":"Syllabus","text":"Week 1","sharedWith":["Agent@X","agent@x"]}`, &f); st != 201 {
		t.Fatalf("create = %d %+v", st, f)
	}
	if !validID(f.ID) || len(f.ID) != 44 || f.ID[0] != '1' || f.URL != DocsURL(f.ID) || f.Version != 1 ||
		f.MimeType != GoogleDocMimeType || len(f.SharedWith) != 1 || f.SharedWith[0] != "agent@x" {
		t.Fatalf("created %+v", f)
	}
	explicit := "1explicitId_abcdefghijklmnopqrstuvwxyz012345"
	if st := call(t, base, "POST", "/_sim/files", `{"id":"`+explicit+`","title":"T","anyoneWithLink":true}`, &f); st != 201 || f.ID != explicit || !f.AnyoneWithLink {
		t.Fatalf("create with id = %d %+v", st, f)
	}
	if st := call(t, base, "POST", "/_sim/files", `{"id":"`+explicit+`","title":"T"}`, &f); st != 409 || f.Error != "conflict" {
		t.Fatalf("duplicate id = %d %+v", st, f)
	}

	var list []adminOut
	if st := call(t, base, "GET", "/_sim/files", "", &list); st != 200 || len(list) != 2 {
		t.Fatalf("list = %d %+v", st, list)
	}
	id := list[0].ID

	var p adminOut
	if st := call(t, base, "PATCH", "/_sim/files/"+id, `{"text":"Week 1 and 2"}`, &p); st != 200 || p.Version != 2 || p.Text != "Week 1 and 2" || p.Title != "Syllabus" {
		t.Fatalf("patch = %d %+v", st, p)
	}
	if st := call(t, base, "PATCH", "/_sim/files/"+id, `{"title":"Renamed"}`, &p); st != 200 || p.Version != 3 || p.Title != "Renamed" {
		t.Fatalf("patch title = %d %+v", st, p)
	}
	if st := call(t, base, "POST", "/_sim/files/"+id+"/share", `{"email":"Other@Example.com"}`, &p); st != 200 || len(p.SharedWith) != 2 {
		t.Fatalf("share = %d %+v", st, p)
	}
	if st := call(t, base, "DELETE", "/_sim/files/"+id+"/share/"+url.PathEscape("AGENT@x"), "", &p); st != 200 ||
		len(p.SharedWith) != 1 || p.SharedWith[0] != "other@example.com" {
		t.Fatalf("unshare = %d %+v", st, p)
	}
	if st := call(t, base, "POST", "/_sim/files/"+id+"/anyone", `{"anyoneWithLink":true}`, &p); st != 200 || !p.AnyoneWithLink {
		t.Fatalf("anyone = %d %+v", st, p)
	}
	if st := call(t, base, "GET", "/_sim/files/"+id, "", &p); st != 200 || p.Version != 3 {
		t.Fatalf("get = %d %+v: sharing changes are not new versions", st, p)
	}
	var c Comment
	if st := call(t, base, "POST", "/_sim/files/"+id+"/comments", `{"author":"jane@x","content":"Question?"}`, &c); st != 201 || c.ID == "" || c.Author.EmailAddress != "jane@x" {
		t.Fatalf("comment = %d %+v", st, c)
	}
	var r Reply
	if st := call(t, base, "POST", "/_sim/files/"+id+"/comments/"+c.ID+"/replies", `{"author":"jane@x","content":"Thanks","action":"resolve"}`, &r); st != 201 || r.ID == "" {
		t.Fatalf("reply = %d %+v", st, r)
	}
	if got, _ := sim.GetFile(id); !got.Comments[0].Resolved || len(got.Comments[0].Replies) != 1 {
		t.Fatalf("after resolving reply: %+v", got.Comments)
	}

	var fl Fault
	if st := call(t, base, "POST", "/_sim/faults", `{"status":503,"count":2,"op":"export","retryAfter":"3"}`, &fl); st != 201 || fl.Status != 503 {
		t.Fatalf("fault = %d %+v", st, fl)
	}
	if fs := sim.Faults(); len(fs) != 1 || fs[0].Count != 2 || fs[0].Op != "export" || fs[0].RetryAfter != "3" {
		t.Fatalf("faults = %+v", fs)
	}
	if st := call(t, base, "DELETE", "/_sim/faults", "", nil); st != 204 || len(sim.Faults()) != 0 {
		t.Fatalf("clear faults = %d, %d left", st, len(sim.Faults()))
	}
	if st := call(t, base, "DELETE", "/_sim/files/"+explicit, "", nil); st != 204 {
		t.Fatalf("delete = %d", st)
	}
	if st := call(t, base, "GET", "/_sim/files/"+explicit, "", &p); st != 404 || p.Error != "not_found" {
		t.Fatalf("get deleted = %d %+v", st, p)
	}
	if st := call(t, base, "GET", "/healthz", "", nil); st != 200 {
		t.Fatalf("healthz = %d", st)
	}
}

func TestAdminAPIRejectsBadInput(t *testing.T) {
	sim, hs := newSim(t, Config{})
	f, _ := sim.CreateFile(File{Title: "Doc"})
	cases := []struct{ method, path, body, code, msg string }{
		{"POST", "/_sim/files", `{"text":"no title"}`, "validation_failed", "title is required"},
		{"POST", "/_sim/files", `{"title":"   "}`, "validation_failed", "title is required"},
		{"POST", "/_sim/files", `{"name":"typo"}`, "invalid_json", "unknown field"},
		{"POST", "/_sim/files", `{"title":1}`, "invalid_json", ""},
		{"POST", "/_sim/files", `[]`, "invalid_json", "JSON object"},
		{"POST", "/_sim/files", ``, "invalid_json", "JSON object"},
		{"POST", "/_sim/files", `{"title":"a"} {"title":"b"}`, "invalid_json", "single"},
		{"POST", "/_sim/files", `{"title":"a","id":"short"}`, "validation_failed", "id must be"},
		{"POST", "/_sim/files", `{"title":"a","id":"1has spaces and is long enough to pass"}`, "validation_failed", "id must be"},
		{"POST", "/_sim/files", `{"title":"a","mimeType":"pdf"}`, "validation_failed", "mimeType"},
		{"POST", "/_sim/files", `{"title":"a","sharedWith":["not-an-address"]}`, "validation_failed", "not a valid e-mail"},
		{"PATCH", "/_sim/files/" + f.ID, `{}`, "validation_failed", "Nothing to change"},
		{"PATCH", "/_sim/files/" + f.ID, `{"title":""}`, "validation_failed", "title is required"},
		{"POST", "/_sim/files/" + f.ID + "/share", `{"email":""}`, "validation_failed", "email is required"},
		{"POST", "/_sim/files/" + f.ID + "/share", `{"email":"Jane <jane@x>"}`, "validation_failed", "not a valid e-mail"},
		{"POST", "/_sim/files/" + f.ID + "/anyone", `{}`, "validation_failed", "anyoneWithLink"},
		{"POST", "/_sim/files/" + f.ID + "/anyone", `{"anyoneWithLink":"yes"}`, "invalid_json", ""},
		{"POST", "/_sim/files/" + f.ID + "/comments", `{"author":"jane@x","content":" "}`, "validation_failed", "content is required"},
		{"POST", "/_sim/files/" + f.ID + "/comments", `{"author":"jane","content":"hi"}`, "validation_failed", "author"},
		{"POST", "/_sim/faults", `{"status":418}`, "validation_failed", "status must be"},
		{"POST", "/_sim/faults", `{"status":429,"count":-1}`, "validation_failed", "count"},
		{"POST", "/_sim/faults", `{"status":429,"op":"list"}`, "validation_failed", "op must be"},
		{"POST", "/_sim/faults", `{"status":429,"retryAfter":"soon"}`, "validation_failed", "retryAfter"},
		{"POST", "/_sim/faults", `{"status":"429"}`, "invalid_json", ""},
	}
	for _, tc := range cases {
		var out adminOut
		st := call(t, hs.URL, tc.method, tc.path, tc.body, &out)
		if st != 400 || out.Error != tc.code || !strings.Contains(out.Message, tc.msg) {
			t.Errorf("%s %s %s = %d %+v, want 400 %s containing %q", tc.method, tc.path, tc.body, st, out, tc.code, tc.msg)
		}
	}
	if got, _ := sim.GetFile(f.ID); got.Version != 1 || len(sim.Files()) != 1 || len(sim.Faults()) != 0 {
		t.Fatalf("rejected requests changed state: %+v, %d files, %d faults", got, len(sim.Files()), len(sim.Faults()))
	}
	// Unknown files and comments are 404, not 400.
	for _, p := range []struct{ method, path, body string }{
		{"PATCH", "/_sim/files/1nope_nope_nope_nope_nope_nope", `{"text":"x"}`},
		{"POST", "/_sim/files/1nope_nope_nope_nope_nope_nope/share", `{"email":"a@x"}`},
		{"POST", "/_sim/files/" + f.ID + "/comments/AAAAnope/replies", `{"author":"a@x","content":"x"}`},
	} {
		var out adminOut
		if st := call(t, hs.URL, p.method, p.path, p.body, &out); st != 404 || out.Error != "not_found" {
			t.Errorf("%s %s = %d %+v, want 404", p.method, p.path, st, out)
		}
	}
}

func TestPage(t *testing.T) {
	sim, hs := newSim(t, Config{Seed: true})
	res, err := http.Get(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(b)
	for _, want := range []string{"Google Drive simulator — development only", DocsURL(SeedAlgebraSyllabusID),
		"Confidential Pricing Notes", "Algebra I — Course Syllabus", "anyone with the link"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	// Forms post, then redirect back to the page.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noRedirect.PostForm(hs.URL+"/ui/files", url.Values{"title": {"From the form"}, "text": {"line 1\r\nline 2"},
		"sharedWith": {"a@x, b@x"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || strings.Contains(res.Header.Get("Location"), "msg=") {
		t.Fatalf("create form = %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	files := sim.Files()
	made := files[len(files)-1]
	if made.Title != "From the form" || made.Text != "line 1\nline 2" || strings.Join(made.SharedWith, ",") != "a@x,b@x" {
		t.Fatalf("form-created file = %+v", made)
	}
	res, _ = noRedirect.PostForm(hs.URL+"/ui/files/"+made.ID+"/share", url.Values{"email": {"bad"}})
	res.Body.Close()
	if !strings.Contains(res.Header.Get("Location"), "msg=") {
		t.Fatalf("bad share form redirect = %s, want an error message", res.Header.Get("Location"))
	}

	// A form post from another origin is refused.
	req, _ := http.NewRequest("POST", hs.URL+"/ui/files/"+made.ID+"/anyone", strings.NewReader("on=true"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	res, err = noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got, _ := sim.GetFile(made.ID); res.StatusCode != http.StatusForbidden || got.AnyoneWithLink {
		t.Fatalf("cross-origin post = %d, anyone = %v", res.StatusCode, got.AnyoneWithLink)
	}
}

func TestParseFields(t *testing.T) {
	cases := []struct {
		in, want string // want: the selection applied to a sample, as JSON
	}{
		{"", `{"a":1,"b":{"c":2,"d":3},"l":[{"x":1,"y":2}]}`},
		{"*", `{"a":1,"b":{"c":2,"d":3},"l":[{"x":1,"y":2}]}`},
		{"a", `{"a":1}`},
		{"a,b/c", `{"a":1,"b":{"c":2}}`},
		{"b/c,b/d", `{"b":{"c":2,"d":3}}`},
		{"b(c),b", `{"b":{"c":2,"d":3}}`},
		{"l(y),nope", `{"l":[{"y":2}]}`},
		{" a , l ( x ) ", `{"a":1,"l":[{"x":1}]}`},
	}
	sample := func() any {
		var v any
		_ = json.Unmarshal([]byte(`{"a":1,"b":{"c":2,"d":3},"l":[{"x":1,"y":2}]}`), &v)
		return v
	}
	for _, tc := range cases {
		tree, err := parseFields(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		got, _ := json.Marshal(applyFields(sample(), tree))
		if string(got) != tc.want {
			t.Errorf("%q selects %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"a(", "a(b", "a)", ",", "a,,b", "a/", "(a)"} {
		if _, err := parseFields(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
