// Package drivesim is a development double of Google Drive: the subset of the
// Drive v3 REST API that the documents service's adapter sends through
// google.golang.org/api/drive/v3 (files.get, files.export, comments.list,
// replies.create), with per-address sharing enforced the way Drive does it
// (a file you cannot see is "File not found"), fault injection for tests, a
// JSON admin API under /_sim/ and a small HTML page at / to create, edit and
// share documents by hand. It is run by cmd/drivesim and started in-process
// by integration tests; it is never deployed.
//
// The caller of the Drive API is identified by "Authorization: Bearer
// dev:<address>": the access token the adapter's dev token source mints for
// an agent's e-mail address. No real OAuth happens.
package drivesim

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// GoogleDocMimeType is the MIME type of a native Google Docs document, the
// only kind Drive can export as text.
const GoogleDocMimeType = "application/vnd.google-apps.document"

// Config configures a Server.
type Config struct {
	// DataFile is the JSON file the documents persist in (written atomically
	// after every change). Empty keeps everything in memory (tests).
	DataFile string
	// Seed adds the sample documents (see seed.go) when the store is empty.
	Seed bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// DriveLikeExport makes text/plain exports look exactly like Drive's: a
	// UTF-8 byte order mark first and CRLF line endings. Off by default, so
	// that export returns the stored text as is.
	DriveLikeExport bool
}

// File is a simulated Drive file. Documents are Google Docs unless MimeType
// says otherwise; Text is what files.export returns as text/plain.
type File struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	// AnyoneWithLink makes the file readable by every caller.
	AnyoneWithLink bool `json:"anyoneWithLink"`
	// SharedWith holds the addresses the file is shared with, lower-cased.
	SharedWith []string `json:"sharedWith"`
	// Version starts at 1 and grows with every content or title change, like
	// Drive's monotonically increasing file version.
	Version      int64     `json:"version"`
	CreatedTime  time.Time `json:"createdTime"`
	ModifiedTime time.Time `json:"modifiedTime"`
	Comments     []Comment `json:"comments"`
}

// User is a comment's or reply's author.
type User struct {
	DisplayName  string `json:"displayName"`
	EmailAddress string `json:"emailAddress"`
}

// Comment is a comment on a file.
type Comment struct {
	ID           string    `json:"id"`
	Author       User      `json:"author"`
	Content      string    `json:"content"`
	CreatedTime  time.Time `json:"createdTime"`
	ModifiedTime time.Time `json:"modifiedTime"`
	Resolved     bool      `json:"resolved"`
	Deleted      bool      `json:"deleted"`
	Replies      []Reply   `json:"replies"`
}

// Reply is a reply to a comment.
type Reply struct {
	ID           string    `json:"id"`
	Author       User      `json:"author"`
	Content      string    `json:"content"`
	Action       string    `json:"action,omitempty"`
	CreatedTime  time.Time `json:"createdTime"`
	ModifiedTime time.Time `json:"modifiedTime"`
	Deleted      bool      `json:"deleted"`
}

// Errors returned by the Go API; the admin API maps them to 404, 409 and 400.
var (
	ErrNotFound = errors.New("drivesim: file not found")
	ErrExists   = errors.New("drivesim: a file with this id already exists")
)

// InputError is invalid input to the Go or admin API (admin API: 400).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Server is the simulator. All methods are safe for concurrent use.
type Server struct {
	cfg Config
	log *slog.Logger
	mux *http.ServeMux

	mu       sync.Mutex
	files    []File // creation order
	faults   []*Fault
	requests map[string]int
	lastTime time.Time
}

// New loads cfg.DataFile (a missing file is an empty store), seeds it when
// asked and the store is empty, and returns the server.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, requests: map[string]int{}}
	if cfg.DataFile != "" {
		b, err := os.ReadFile(cfg.DataFile)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("drivesim: read %s: %w", cfg.DataFile, err)
		default:
			var st persisted
			if err := json.Unmarshal(b, &st); err != nil {
				return nil, fmt.Errorf("drivesim: parse %s: %w", cfg.DataFile, err)
			}
			s.files = st.Files
			for i := range s.files {
				normalize(&s.files[i])
			}
		}
	}
	if cfg.Seed && len(s.files) == 0 {
		if err := s.seed(); err != nil {
			return nil, err
		}
	}
	s.routes()
	return s, nil
}

// Handler returns the HTTP handler: Drive API under /drive/v3/, admin API
// under /_sim/, the HTML page at /, /healthz.
func (s *Server) Handler() http.Handler { return s.mux }

// DocsURL is the Google Docs editor URL of a document id.
func DocsURL(id string) string { return "https://docs.google.com/document/d/" + id + "/edit" }

// persisted is the data file's shape.
type persisted struct {
	Files []File `json:"files"`
}

// normalize fixes up nil slices so that JSON always shows lists.
func normalize(f *File) {
	if f.SharedWith == nil {
		f.SharedWith = []string{}
	}
	if f.Comments == nil {
		f.Comments = []Comment{}
	}
	for i := range f.Comments {
		if f.Comments[i].Replies == nil {
			f.Comments[i].Replies = []Reply{}
		}
	}
}

// mutate applies fn to a copy of the files, persists the copy and only then
// makes it current, so a failed write leaves memory and disk agreeing.
// Caller holds s.mu.
func (s *Server) mutate(fn func(files *[]File) error) error {
	b, err := json.Marshal(persisted{Files: s.files})
	if err != nil {
		return err
	}
	var cp persisted
	if err := json.Unmarshal(b, &cp); err != nil {
		return err
	}
	if err := fn(&cp.Files); err != nil {
		return err
	}
	for i := range cp.Files {
		normalize(&cp.Files[i])
	}
	if err := s.save(cp); err != nil {
		return err
	}
	s.files = cp.Files
	return nil
}

// save writes the data file atomically (temp file in the same directory,
// fsync, rename) so a crash never leaves a half-written store.
func (s *Server) save(st persisted) error {
	if s.cfg.DataFile == "" {
		return nil
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.cfg.DataFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("drivesim: create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".drivesim-*.json.tmp")
	if err != nil {
		return fmt.Errorf("drivesim: write %s: %w", s.cfg.DataFile, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("drivesim: write %s: %w", s.cfg.DataFile, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("drivesim: write %s: %w", s.cfg.DataFile, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("drivesim: write %s: %w", s.cfg.DataFile, err)
	}
	if err := os.Rename(tmp.Name(), s.cfg.DataFile); err != nil {
		return fmt.Errorf("drivesim: write %s: %w", s.cfg.DataFile, err)
	}
	return nil
}

// now returns the current time at Drive's millisecond precision, strictly
// after the previous value, so that every change shows a new modifiedTime
// even when two happen within the same millisecond. Caller holds s.mu.
func (s *Server) now() time.Time {
	t := time.Now().UTC().Truncate(time.Millisecond)
	if !t.After(s.lastTime) {
		t = s.lastTime.Add(time.Millisecond)
	}
	s.lastTime = t
	return t
}

func find(files []File, id string) int {
	for i := range files {
		if files[i].ID == id {
			return i
		}
	}
	return -1
}

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

// NewID returns a random id shaped like a Google Docs file id: 44 characters
// of [A-Za-z0-9_-] starting with "1".
func NewID() string { return "1" + randomString(43) }

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)] // 256 is a multiple of 64: uniform
	}
	return string(b)
}

// validID accepts what the documents service can extract from a Docs URL:
// 25 or more characters of [A-Za-z0-9_-].
func validID(id string) bool {
	if len(id) < 25 || len(id) > 200 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !strings.ContainsRune(idAlphabet, rune(id[i])) {
			return false
		}
	}
	return true
}

// normEmail validates an address (a bare addr-spec, as Drive sharing takes)
// and lower-cases it: Drive compares addresses case-insensitively.
func normEmail(email string) (string, error) {
	e := strings.TrimSpace(email)
	if e == "" {
		return "", inputErr("email is required")
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" {
		return "", inputErr("email %q is not a valid e-mail address", email)
	}
	return strings.ToLower(e), nil
}

func validMimeType(m string) bool {
	typ, sub, ok := strings.Cut(m, "/")
	return ok && typ != "" && sub != "" && !strings.ContainsAny(m, " \t\r\n;,")
}

const (
	maxTitle = 500
	// maxText is above Drive's 10 MB export limit so that the limit's error
	// (exportSizeLimitExceeded) can be produced.
	maxText = 16 << 20
	// exportLimit is Drive's limit on exported content.
	exportLimit = 10 << 20
)

func validateTitle(t string) error {
	if strings.TrimSpace(t) == "" {
		return inputErr("title is required")
	}
	if len([]rune(t)) > maxTitle {
		return inputErr("title must be at most %d characters", maxTitle)
	}
	return nil
}

func validateText(t string) error {
	if len(t) > maxText {
		return inputErr("text must be at most %d bytes", maxText)
	}
	return nil
}

// CreateFile adds a file. An empty ID gets a generated Docs-like id; an empty
// MimeType means a Google Doc; Version starts at 1; zero times mean now;
// Comments are ignored (add them with AddComment).
func (s *Server) CreateFile(f File) (File, error) {
	if err := validateTitle(f.Title); err != nil {
		return File{}, err
	}
	if err := validateText(f.Text); err != nil {
		return File{}, err
	}
	if f.MimeType == "" {
		f.MimeType = GoogleDocMimeType
	} else if !validMimeType(f.MimeType) {
		return File{}, inputErr("mimeType %q is not a MIME type", f.MimeType)
	}
	if f.ID != "" && !validID(f.ID) {
		return File{}, inputErr("id must be 25 to 200 characters of A-Z a-z 0-9 _ -")
	}
	shared := []string{}
	for _, e := range f.SharedWith {
		n, err := normEmail(e)
		if err != nil {
			return File{}, err
		}
		if !slices.Contains(shared, n) {
			shared = append(shared, n)
		}
	}
	f.SharedWith = shared
	f.Comments = nil
	f.Version = 1

	s.mu.Lock()
	defer s.mu.Unlock()
	if f.ID == "" {
		for f.ID = NewID(); find(s.files, f.ID) >= 0; f.ID = NewID() {
		}
	} else if find(s.files, f.ID) >= 0 {
		return File{}, ErrExists
	}
	now := s.now()
	if f.ModifiedTime.IsZero() {
		f.ModifiedTime = now
	}
	f.ModifiedTime = f.ModifiedTime.UTC().Truncate(time.Millisecond)
	if f.CreatedTime.IsZero() {
		f.CreatedTime = f.ModifiedTime
	}
	f.CreatedTime = f.CreatedTime.UTC().Truncate(time.Millisecond)
	normalize(&f)
	if err := s.mutate(func(files *[]File) error {
		*files = append(*files, f)
		return nil
	}); err != nil {
		return File{}, err
	}
	return f, nil
}

// update runs fn on the file with that id and persists the result.
func (s *Server) update(id string, fn func(f *File) error) (File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out File
	err := s.mutate(func(files *[]File) error {
		i := find(*files, id)
		if i < 0 {
			return ErrNotFound
		}
		if err := fn(&(*files)[i]); err != nil {
			return err
		}
		out = (*files)[i]
		return nil
	})
	if err != nil {
		return File{}, err
	}
	normalize(&out)
	return out, nil
}

// UpdateText replaces a file's text; it bumps Version and ModifiedTime.
func (s *Server) UpdateText(id, text string) (File, error) {
	return s.UpdateFile(id, nil, &text)
}

// UpdateFile changes the title and/or the text (nil = unchanged); any change
// bumps Version and ModifiedTime, as an edit in Docs does.
func (s *Server) UpdateFile(id string, title, text *string) (File, error) {
	if title != nil {
		if err := validateTitle(*title); err != nil {
			return File{}, err
		}
	}
	if text != nil {
		if err := validateText(*text); err != nil {
			return File{}, err
		}
	}
	return s.update(id, func(f *File) error {
		if title != nil {
			f.Title = *title
		}
		if text != nil {
			f.Text = *text
		}
		if title != nil || text != nil {
			f.Version++
			f.ModifiedTime = s.now()
		}
		return nil
	})
}

// DeleteFile removes a file (the Drive API then answers "File not found").
func (s *Server) DeleteFile(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mutate(func(files *[]File) error {
		i := find(*files, id)
		if i < 0 {
			return ErrNotFound
		}
		*files = slices.Delete(*files, i, i+1)
		return nil
	})
}

// Share gives an address read access (idempotent). Sharing changes neither
// Version nor ModifiedTime: in Drive, permissions are not content.
func (s *Server) Share(id, email string) error {
	n, err := normEmail(email)
	if err != nil {
		return err
	}
	_, err = s.update(id, func(f *File) error {
		if !slices.Contains(f.SharedWith, n) {
			f.SharedWith = append(f.SharedWith, n)
		}
		return nil
	})
	return err
}

// Unshare removes an address's access (idempotent; any letter case).
func (s *Server) Unshare(id, email string) error {
	n := strings.ToLower(strings.TrimSpace(email))
	if n == "" {
		return inputErr("email is required")
	}
	_, err := s.update(id, func(f *File) error {
		f.SharedWith = slices.DeleteFunc(f.SharedWith, func(a string) bool { return a == n })
		return nil
	})
	return err
}

// SetAnyoneWithLink turns "anyone with the link can view" on or off.
func (s *Server) SetAnyoneWithLink(id string, on bool) error {
	_, err := s.update(id, func(f *File) error {
		f.AnyoneWithLink = on
		return nil
	})
	return err
}

// GetFile returns a copy of a file.
func (s *Server) GetFile(id string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := find(s.files, id)
	if i < 0 {
		return File{}, false
	}
	return clone(s.files[i]), true
}

// Files returns copies of all files in creation order.
func (s *Server) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]File, len(s.files))
	for i, f := range s.files {
		out[i] = clone(f)
	}
	return out
}

func clone(f File) File {
	f.SharedWith = slices.Clone(f.SharedWith)
	cs := make([]Comment, len(f.Comments))
	for i, c := range f.Comments {
		c.Replies = slices.Clone(c.Replies)
		if c.Replies == nil {
			c.Replies = []Reply{}
		}
		cs[i] = c
	}
	f.Comments = cs
	normalize(&f)
	return f
}

// canRead is Drive's visibility rule: shared with the address, or anyone
// with the link.
func canRead(f *File, email string) bool {
	return f.AnyoneWithLink || slices.Contains(f.SharedWith, strings.ToLower(email))
}

// displayName derives a human name from an address ("jane.doe@x" → "Jane
// Doe"), which is what Drive shows for accounts without a profile name.
func displayName(email string) string {
	local, _, _ := strings.Cut(email, "@")
	parts := strings.FieldsFunc(local, func(r rune) bool { return r == '.' || r == '_' || r == '-' || r == '+' })
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	if len(parts) == 0 {
		return email
	}
	return strings.Join(parts, " ")
}

// AddComment adds a comment to a file as some address (what a person typing a
// comment in Docs does). displayName may be empty.
func (s *Server) AddComment(fileID, authorEmail, authorName, content string) (Comment, error) {
	author, err := normEmail(authorEmail)
	if err != nil {
		return Comment{}, inputErr("author: %s", err.Error())
	}
	if strings.TrimSpace(content) == "" {
		return Comment{}, inputErr("content is required")
	}
	if authorName == "" {
		authorName = displayName(author)
	}
	var c Comment
	_, err = s.update(fileID, func(f *File) error {
		now := s.now()
		c = Comment{ID: "AAAA" + randomString(12), Author: User{DisplayName: authorName, EmailAddress: author},
			Content: content, CreatedTime: now, ModifiedTime: now, Replies: []Reply{}}
		f.Comments = append(f.Comments, c)
		return nil
	})
	if err != nil {
		return Comment{}, err
	}
	return c, nil
}

// ErrCommentNotFound is an unknown (or deleted) comment id.
var ErrCommentNotFound = errors.New("drivesim: comment not found")

// AddReply adds a reply to a comment as some address. action is "",
// "resolve" or "reopen" (Drive's reply actions); content may be empty only
// with an action.
func (s *Server) AddReply(fileID, commentID, authorEmail, authorName, content, action string) (Reply, error) {
	author, err := normEmail(authorEmail)
	if err != nil {
		return Reply{}, inputErr("author: %s", err.Error())
	}
	if action != "" && action != "resolve" && action != "reopen" {
		return Reply{}, inputErr("action must be resolve or reopen")
	}
	if strings.TrimSpace(content) == "" && action == "" {
		return Reply{}, inputErr("content is required")
	}
	if authorName == "" {
		authorName = displayName(author)
	}
	var r Reply
	_, err = s.update(fileID, func(f *File) error {
		for i := range f.Comments {
			c := &f.Comments[i]
			if c.ID != commentID || c.Deleted {
				continue
			}
			now := s.now()
			r = Reply{ID: "AAAA" + randomString(12), Author: User{DisplayName: authorName, EmailAddress: author},
				Content: content, Action: action, CreatedTime: now, ModifiedTime: now}
			c.Replies = append(c.Replies, r)
			c.ModifiedTime = now
			switch action {
			case "resolve":
				c.Resolved = true
			case "reopen":
				c.Resolved = false
			}
			return nil
		}
		return ErrCommentNotFound
	})
	if err != nil {
		return Reply{}, err
	}
	return r, nil
}

// DeleteComment marks a comment deleted (comments.list shows it only with
// includeDeleted=true, without its content).
func (s *Server) DeleteComment(fileID, commentID string) error {
	_, err := s.update(fileID, func(f *File) error {
		for i := range f.Comments {
			if f.Comments[i].ID == commentID && !f.Comments[i].Deleted {
				f.Comments[i].Deleted = true
				f.Comments[i].ModifiedTime = s.now()
				return nil
			}
		}
		return ErrCommentNotFound
	})
	return err
}

// Requests reports how many Drive API calls of op ("get", "export",
// "comments", "reply") reached the simulator, whatever their outcome
// (including injected faults and 404s), since it started.
func (s *Server) Requests(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[op]
}

func (s *Server) countRequest(op string) {
	s.mu.Lock()
	s.requests[op]++
	s.mu.Unlock()
}
