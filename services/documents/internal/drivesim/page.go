package drivesim

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func (s *Server) pageRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /{$}", s.page)
	m.HandleFunc("POST /ui/files", s.uiCreate)
	m.HandleFunc("POST /ui/files/{id}/edit", s.uiEdit)
	m.HandleFunc("POST /ui/files/{id}/share", s.uiShare)
	m.HandleFunc("POST /ui/files/{id}/unshare", s.uiUnshare)
	m.HandleFunc("POST /ui/files/{id}/anyone", s.uiAnyone)
	m.HandleFunc("POST /ui/files/{id}/comment", s.uiComment)
	m.HandleFunc("POST /ui/files/{id}/delete", s.uiDelete)
	m.HandleFunc("POST /ui/faults", s.uiFault)
	m.HandleFunc("POST /ui/faults/clear", s.uiClearFaults)
}

type pageFile struct {
	File
	URL     string
	Preview string
	Google  bool
}

type pageData struct {
	Files    []pageFile
	Faults   []Fault
	Requests map[string]int
	Persist  string
	Message  string
}

func preview(text string) string {
	r := []rune(strings.TrimSpace(text))
	if len(r) > 400 {
		return string(r[:400]) + " …"
	}
	return string(r)
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	d := pageData{Requests: map[string]int{}, Faults: s.Faults(), Persist: s.cfg.DataFile, Message: r.URL.Query().Get("msg")}
	for _, f := range s.Files() {
		d.Files = append(d.Files, pageFile{File: f, URL: DocsURL(f.ID), Preview: preview(f.Text), Google: f.MimeType == GoogleDocMimeType})
	}
	for _, op := range ops {
		d.Requests[op] = s.Requests(op)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, d); err != nil {
		s.log.Error("drive simulator: page", "error", err)
	}
}

// formOK refuses form posts from other origins: the page has no login, so
// without this any web page could edit or share the simulator's documents.
func formOK(w http.ResponseWriter, r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			http.Error(w, "cross-origin form post refused", http.StatusForbidden)
			return false
		}
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// done redirects back to the page (post/redirect/get), showing err if any.
func (s *Server) done(w http.ResponseWriter, r *http.Request, anchor string, err error) {
	target := "/"
	if err != nil {
		var msg string
		var ie *InputError
		if errors.As(err, &ie) {
			msg = ie.Msg
		} else if errors.Is(err, ErrNotFound) || errors.Is(err, ErrExists) || errors.Is(err, ErrCommentNotFound) {
			msg = strings.TrimPrefix(err.Error(), "drivesim: ")
		} else {
			s.log.Error("drive simulator: form", "error", err)
			msg = "internal error (see the simulator's log)"
		}
		target += "?msg=" + url.QueryEscape("Error: "+msg)
	}
	if anchor != "" {
		target += "#f-" + anchor
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (s *Server) uiCreate(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	var shared []string
	shared = append(shared, strings.FieldsFunc(r.FormValue("sharedWith"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\r' })...)
	f, err := s.CreateFile(File{ID: strings.TrimSpace(r.FormValue("id")), Title: r.FormValue("title"),
		Text: normalizeNewlines(r.FormValue("text")), MimeType: strings.TrimSpace(r.FormValue("mimeType")),
		AnyoneWithLink: r.FormValue("anyoneWithLink") != "", SharedWith: shared})
	s.done(w, r, f.ID, err)
}

// normalizeNewlines undoes the CRLF a browser sends for textarea content.
func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func (s *Server) uiEdit(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	id := r.PathValue("id")
	title, text := r.FormValue("title"), normalizeNewlines(r.FormValue("text"))
	_, err := s.UpdateFile(id, &title, &text)
	s.done(w, r, id, err)
}

func (s *Server) uiShare(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	id := r.PathValue("id")
	s.done(w, r, id, s.Share(id, r.FormValue("email")))
}

func (s *Server) uiUnshare(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	id := r.PathValue("id")
	s.done(w, r, id, s.Unshare(id, r.FormValue("email")))
}

func (s *Server) uiAnyone(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	id := r.PathValue("id")
	s.done(w, r, id, s.SetAnyoneWithLink(id, r.FormValue("on") == "true"))
}

func (s *Server) uiComment(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	id := r.PathValue("id")
	_, err := s.AddComment(id, r.FormValue("author"), "", normalizeNewlines(r.FormValue("content")))
	s.done(w, r, id, err)
}

func (s *Server) uiDelete(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	s.done(w, r, "", s.DeleteFile(r.PathValue("id")))
}

func (s *Server) uiFault(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	status, _ := strconv.Atoi(r.FormValue("status"))
	count, err := strconv.Atoi(strings.TrimSpace(r.FormValue("count")))
	if err != nil {
		s.done(w, r, "faults", inputErr("count must be a number"))
		return
	}
	f := Fault{Status: status, Count: count, FileID: strings.TrimSpace(r.FormValue("fileId")),
		Op: r.FormValue("op"), RetryAfter: strings.TrimSpace(r.FormValue("retryAfter"))}
	if err := ValidateFault(f); err != nil {
		s.done(w, r, "faults", err)
		return
	}
	s.InjectFault(f)
	s.done(w, r, "faults", nil)
}

func (s *Server) uiClearFaults(w http.ResponseWriter, r *http.Request) {
	if !formOK(w, r) {
		return
	}
	s.ClearFaults()
	s.done(w, r, "faults", nil)
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Google Drive simulator — development only</title>
<style>
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#202124}
.banner{background:#fde293;border:1px solid #f9ab00;padding:.5rem 1rem;border-radius:6px;font-weight:600}
.msg{background:#fce8e6;border:1px solid #d93025;padding:.5rem 1rem;border-radius:6px}
section.doc{border:1px solid #dadce0;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
pre{white-space:pre-wrap;background:#f8f9fa;padding:.5rem;border-radius:4px;max-height:12rem;overflow:auto}
code{font-size:.85em} form{display:inline} textarea{width:100%;min-height:10rem}
input[type=text],input[type=email]{min-width:16rem} .muted{color:#5f6368;font-size:.9em}
td,th{padding:.2rem .6rem;text-align:left} .tag{background:#e8f0fe;border-radius:4px;padding:0 .4rem;margin-right:.3rem}
</style></head><body>
<p class="banner">Google Drive simulator — development only. Nothing here is Google; documents live in
{{if .Persist}}<code>{{.Persist}}</code>{{else}}memory{{end}}.</p>
{{with .Message}}<p class="msg">{{.}}</p>{{end}}
<h1>Documents</h1>
{{range .Files}}
{{$id := .ID}}<section class="doc" id="f-{{.ID}}">
<h2>{{.Title}}</h2>
<p><a href="{{.URL}}">{{.URL}}</a><br>
<span class="muted">id <code>{{.ID}}</code> · {{.MimeType}} · version {{.Version}} · modified {{.ModifiedTime.Format "2006-01-02 15:04:05 MST"}}</span></p>
<p><strong>Sharing:</strong>
{{if .AnyoneWithLink}}anyone with the link can view{{else}}restricted{{end}}
<form method="post" action="/ui/files/{{.ID}}/anyone"><input type="hidden" name="on" value="{{if .AnyoneWithLink}}false{{else}}true{{end}}">
<button>{{if .AnyoneWithLink}}Restrict to listed addresses{{else}}Allow anyone with the link{{end}}</button></form><br>
{{range .SharedWith}}<span class="tag">{{.}}
<form method="post" action="/ui/files/{{$id}}/unshare"><input type="hidden" name="email" value="{{.}}"><button title="Remove access">×</button></form></span>{{else}}<span class="muted">shared with no address</span>{{end}}
<form method="post" action="/ui/files/{{.ID}}/share"><input type="email" name="email" placeholder="agent@example.com" required> <button>Share</button></form></p>
<pre>{{.Preview}}</pre>
<details><summary>Edit</summary>
<form method="post" action="/ui/files/{{.ID}}/edit" style="display:block">
<p><label>Title <input type="text" name="title" value="{{.Title}}" required></label></p>
<p><textarea name="text">{{.Text}}</textarea></p>
<button>Save (new version)</button></form></details>
<details><summary>Comments ({{len .Comments}})</summary>
{{range .Comments}}<div><p><strong>{{.Author.DisplayName}}</strong> &lt;{{.Author.EmailAddress}}&gt; {{if .Resolved}}(resolved){{end}}{{if .Deleted}}(deleted){{end}}<br>{{.Content}}</p>
{{range .Replies}}<p style="margin-left:2rem">↳ <strong>{{.Author.DisplayName}}</strong>: {{.Content}}{{with .Action}} [{{.}}]{{end}}</p>{{end}}</div>{{end}}
<form method="post" action="/ui/files/{{.ID}}/comment" style="display:block">
<input type="email" name="author" placeholder="author@example.com" required>
<input type="text" name="content" placeholder="Comment" required> <button>Add comment</button></form></details>
<form method="post" action="/ui/files/{{.ID}}/delete"><button>Delete document</button></form>
</section>
{{else}}<p>No documents yet.</p>{{end}}

<h2>New document</h2>
<form method="post" action="/ui/files" style="display:block">
<p><label>Title <input type="text" name="title" required></label></p>
<p><textarea name="text" placeholder="Document text"></textarea></p>
<p><label><input type="checkbox" name="anyoneWithLink" value="1"> Anyone with the link can view</label></p>
<p><label>Share with <input type="text" name="sharedWith" placeholder="a@example.com, b@example.com"></label></p>
<button>Create</button></form>

<h2 id="f-faults">Fault injection</h2>
{{range .Faults}}<p><code>{{.Status}}</code> × {{if .Count}}{{.Count}}{{else}}until cleared{{end}}
{{with .Op}}op {{.}}{{end}} {{with .FileID}}file <code>{{.}}</code>{{end}} {{with .RetryAfter}}Retry-After {{.}}{{end}}</p>{{else}}<p class="muted">No faults.</p>{{end}}
<form method="post" action="/ui/faults" style="display:block">
<select name="status"><option>429</option><option>503</option><option>500</option><option>403</option><option>404</option></select>
count <input type="text" name="count" value="1" size="3">
op <select name="op"><option value="">any</option><option>get</option><option>export</option><option>comments</option><option>reply</option></select>
file id <input type="text" name="fileId" placeholder="any">
Retry-After <input type="text" name="retryAfter" size="4">
<button>Inject</button></form>
<form method="post" action="/ui/faults/clear"><button>Clear faults</button></form>
<p class="muted">Drive API calls received: {{range $op, $n := .Requests}}{{$op}} {{$n}} · {{end}}</p>
</body></html>
`))
