package drivesim

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Drive's timestamps: RFC 3339 in UTC with milliseconds.
const driveTime = "2006-01-02T15:04:05.000Z07:00"

func fmtTime(t time.Time) string { return t.UTC().Format(driveTime) }

// driveError writes Google's JSON error shape, which googleapi.CheckResponse
// turns into a *googleapi.Error with Code, Message and Errors[].Reason.
func driveError(w http.ResponseWriter, status int, reason, message string) {
	driveErrorAt(w, status, reason, message, "", "")
}

func driveErrorAt(w http.ResponseWriter, status int, reason, message, location, locationType string) {
	item := map[string]any{"domain": "global", "reason": reason, "message": message}
	if location != "" {
		item["location"] = location
		item["locationType"] = locationType
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": message, "errors": []any{item},
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fileNotFound(w http.ResponseWriter, id string) {
	driveErrorAt(w, http.StatusNotFound, "notFound", fmt.Sprintf("File not found: %s.", id), "fileId", "parameter")
}

// driveCall wraps a Drive API handler: counts the call, authenticates the
// caller from "Bearer dev:<address>", then applies any injected fault.
func (s *Server) driveCall(op string, h func(w http.ResponseWriter, r *http.Request, caller string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.countRequest(op)
		authz := r.Header.Get("Authorization")
		if authz == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
			driveErrorAt(w, http.StatusUnauthorized, "required", "Login Required.", "Authorization", "header")
			return
		}
		caller, ok := callerFromAuthorization(authz)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
			driveErrorAt(w, http.StatusUnauthorized, "authError", "Invalid Credentials", "Authorization", "header")
			return
		}
		fileID := r.PathValue("fileId")
		if f := s.takeFault(op, fileID); f != nil {
			s.log.Info("drive simulator: injected fault", "op", op, "fileId", fileID, "status", f.Status)
			writeFault(w, f, fileID)
			return
		}
		h(w, r, caller)
	}
}

// callerFromAuthorization extracts the address from "Bearer dev:<address>"
// (scheme case-insensitive, as in RFC 6750), lower-cased.
func callerFromAuthorization(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(token), "dev:")
	if !ok {
		return "", false
	}
	n, err := normEmail(addr)
	if err != nil {
		return "", false
	}
	return n, true
}

// readable returns a copy of the file if the caller may see it.
func (s *Server) readable(id, caller string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := find(s.files, id)
	if i < 0 || !canRead(&s.files[i], caller) {
		return File{}, false
	}
	return clone(s.files[i]), true
}

func isGoogleType(mime string) bool { return strings.HasPrefix(mime, "application/vnd.google-apps.") }

func webViewLink(f *File) string {
	if f.MimeType == GoogleDocMimeType {
		return "https://docs.google.com/document/d/" + f.ID + "/edit?usp=drivesdk"
	}
	return "https://drive.google.com/file/d/" + f.ID + "/view?usp=drivesdk"
}

// driveFile is the files.get resource, as Drive v3 spells it (version and
// size are int64 sent as JSON strings).
func driveFile(f *File) map[string]any {
	m := map[string]any{
		"kind":         "drive#file",
		"id":           f.ID,
		"name":         f.Title,
		"mimeType":     f.MimeType,
		"createdTime":  fmtTime(f.CreatedTime),
		"modifiedTime": fmtTime(f.ModifiedTime),
		"version":      strconv.FormatInt(f.Version, 10),
		"webViewLink":  webViewLink(f),
		"shared":       f.AnyoneWithLink || len(f.SharedWith) > 0,
		"trashed":      false,
	}
	// Native Google files have no size or checksum in Drive; binary files do.
	if !isGoogleType(f.MimeType) {
		m["size"] = strconv.Itoa(len(f.Text))
	}
	return m
}

func (s *Server) filesGet(w http.ResponseWriter, r *http.Request, caller string) {
	id := r.PathValue("fileId")
	tree, err := parseFields(r.URL.Query().Get("fields"))
	if err != nil {
		driveErrorAt(w, http.StatusBadRequest, "invalidParameter", "Invalid field selection "+r.URL.Query().Get("fields"), "fields", "parameter")
		return
	}
	f, ok := s.readable(id, caller)
	if !ok {
		fileNotFound(w, id)
		return
	}
	if r.URL.Query().Get("alt") == "media" {
		// Downloading a Docs file is refused by Drive: it must be exported.
		if isGoogleType(f.MimeType) {
			driveError(w, http.StatusForbidden, "fileNotDownloadable",
				"Only files with binary content can be downloaded. Use Export with Docs Editors files.")
			return
		}
		w.Header().Set("Content-Type", f.MimeType)
		_, _ = io.WriteString(w, f.Text)
		return
	}
	writeJSON(w, http.StatusOK, applyFields(driveFile(&f), tree))
}

func (s *Server) filesExport(w http.ResponseWriter, r *http.Request, caller string) {
	id := r.PathValue("fileId")
	mime := r.URL.Query().Get("mimeType")
	if mime == "" {
		driveErrorAt(w, http.StatusBadRequest, "required", "Required parameter: mimeType", "mimeType", "parameter")
		return
	}
	f, ok := s.readable(id, caller)
	if !ok {
		fileNotFound(w, id)
		return
	}
	if f.MimeType != GoogleDocMimeType {
		driveError(w, http.StatusForbidden, "fileNotExportable", "Export only supports Docs Editors files.")
		return
	}
	if mime != "text/plain" {
		driveErrorAt(w, http.StatusBadRequest, "badRequest", "The requested conversion is not supported.", "mimeType", "parameter")
		return
	}
	text := f.Text
	if s.cfg.DriveLikeExport {
		text = "\ufeff" + strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	}
	if len(text) > exportLimit {
		driveError(w, http.StatusForbidden, "exportSizeLimitExceeded", "This file is too large to be exported.")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, text)
}

func driveUser(u User, caller string) map[string]any {
	return map[string]any{"kind": "drive#user", "displayName": u.DisplayName, "emailAddress": u.EmailAddress,
		"me": strings.EqualFold(u.EmailAddress, caller)}
}

// htmlContent is what Drive returns beside the plain content.
func htmlContent(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "\n", "<br>")
}

func driveReply(r Reply, caller string) map[string]any {
	m := map[string]any{"kind": "drive#reply", "id": r.ID, "createdTime": fmtTime(r.CreatedTime),
		"modifiedTime": fmtTime(r.ModifiedTime), "author": driveUser(r.Author, caller), "deleted": r.Deleted}
	if !r.Deleted {
		m["content"] = r.Content
		m["htmlContent"] = htmlContent(r.Content)
	}
	if r.Action != "" {
		m["action"] = r.Action
	}
	return m
}

func driveComment(c Comment, caller string, includeDeleted bool) map[string]any {
	replies := []any{}
	for _, r := range c.Replies {
		if r.Deleted && !includeDeleted {
			continue
		}
		replies = append(replies, driveReply(r, caller))
	}
	m := map[string]any{"kind": "drive#comment", "id": c.ID, "createdTime": fmtTime(c.CreatedTime),
		"modifiedTime": fmtTime(c.ModifiedTime), "author": driveUser(c.Author, caller), "resolved": c.Resolved,
		"deleted": c.Deleted, "replies": replies}
	// Deleted comments keep their metadata but not their content, as in Drive.
	if !c.Deleted {
		m["content"] = c.Content
		m["htmlContent"] = htmlContent(c.Content)
	}
	return m
}

// requireFields: comments and replies calls fail in Drive without a fields
// parameter; the simulator does the same so the adapter cannot forget it.
func requireFields(w http.ResponseWriter, r *http.Request) (fieldTree, bool) {
	raw := r.URL.Query().Get("fields")
	if strings.TrimSpace(raw) == "" {
		driveErrorAt(w, http.StatusBadRequest, "required", "The 'fields' parameter is required for this operation.", "fields", "parameter")
		return nil, false
	}
	tree, err := parseFields(raw)
	if err != nil {
		driveErrorAt(w, http.StatusBadRequest, "invalidParameter", "Invalid field selection "+raw, "fields", "parameter")
		return nil, false
	}
	return tree, true
}

func invalidParam(w http.ResponseWriter, name, value string) {
	driveErrorAt(w, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value '%s'. Values must match the following regular expression or format for parameter %s.", value, name), name, "parameter")
}

func (s *Server) commentsList(w http.ResponseWriter, r *http.Request, caller string) {
	id := r.PathValue("fileId")
	q := r.URL.Query()
	tree, ok := requireFields(w, r)
	if !ok {
		return
	}
	includeDeleted := false
	if v := q.Get("includeDeleted"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			invalidParam(w, "includeDeleted", v)
			return
		}
		includeDeleted = b
	}
	pageSize := 20
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			invalidParam(w, "pageSize", v)
			return
		}
		pageSize = min(n, 100)
	}
	var since time.Time
	if v := q.Get("startModifiedTime"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			invalidParam(w, "startModifiedTime", v)
			return
		}
		since = t
	}
	offset := 0
	if v := q.Get("pageToken"); v != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(v, "o"))
		if !strings.HasPrefix(v, "o") || err != nil || n < 0 {
			invalidParam(w, "pageToken", v)
			return
		}
		offset = n
	}
	f, ok := s.readable(id, caller)
	if !ok {
		fileNotFound(w, id)
		return
	}
	var all []Comment
	for _, c := range f.Comments {
		if (c.Deleted && !includeDeleted) || (!since.IsZero() && c.ModifiedTime.Before(since)) {
			continue
		}
		all = append(all, c)
	}
	out := map[string]any{"kind": "drive#commentList"}
	page := []any{}
	for i := offset; i < len(all) && i < offset+pageSize; i++ {
		page = append(page, driveComment(all[i], caller, includeDeleted))
	}
	out["comments"] = page
	if offset+pageSize < len(all) {
		// The token is opaque to clients; here it is the offset of the next page.
		out["nextPageToken"] = "o" + strconv.Itoa(offset+pageSize)
	}
	writeJSON(w, http.StatusOK, applyFields(out, tree))
}

func (s *Server) repliesCreate(w http.ResponseWriter, r *http.Request, caller string) {
	id, commentID := r.PathValue("fileId"), r.PathValue("commentId")
	tree, ok := requireFields(w, r)
	if !ok {
		return
	}
	var body struct {
		Content string `json:"content"`
		Action  string `json:"action"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		driveError(w, http.StatusBadRequest, "parseError", "Parse Error")
		return
	}
	if _, ok := s.readable(id, caller); !ok {
		fileNotFound(w, id)
		return
	}
	if body.Action != "" && body.Action != "resolve" && body.Action != "reopen" {
		driveErrorAt(w, http.StatusBadRequest, "invalid", "Invalid value for action: "+body.Action, "action", "other")
		return
	}
	if strings.TrimSpace(body.Content) == "" && body.Action == "" {
		driveErrorAt(w, http.StatusBadRequest, "required", "Required: content", "content", "other")
		return
	}
	rep, err := s.AddReply(id, commentID, caller, "", body.Content, body.Action)
	switch {
	case errors.Is(err, ErrCommentNotFound):
		driveErrorAt(w, http.StatusNotFound, "notFound", fmt.Sprintf("Comment not found: %s.", commentID), "commentId", "parameter")
		return
	case errors.Is(err, ErrNotFound): // deleted meanwhile
		fileNotFound(w, id)
		return
	case err != nil:
		s.log.Error("drive simulator: reply", "error", err)
		driveError(w, http.StatusInternalServerError, "backendError", "Internal Error")
		return
	}
	writeJSON(w, http.StatusOK, applyFields(driveReply(rep, caller), tree))
}

func (s *Server) driveNotFound(w http.ResponseWriter, r *http.Request) {
	driveError(w, http.StatusNotFound, "notFound", "Not Found: "+r.Method+" "+r.URL.Path+" is not simulated.")
}
