package drivesim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	s.mux = m
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})

	// Drive v3, as google.golang.org/api/drive/v3 addresses it under its base path.
	m.HandleFunc("GET /drive/v3/files/{fileId}", s.driveCall(OpGet, s.filesGet))
	m.HandleFunc("GET /drive/v3/files/{fileId}/export", s.driveCall(OpExport, s.filesExport))
	m.HandleFunc("GET /drive/v3/files/{fileId}/comments", s.driveCall(OpComments, s.commentsList))
	m.HandleFunc("POST /drive/v3/files/{fileId}/comments/{commentId}/replies", s.driveCall(OpReply, s.repliesCreate))
	m.HandleFunc("/drive/v3/", s.driveNotFound)

	// Admin API (no auth: a dev tool bound to loopback).
	m.HandleFunc("GET /_sim/files", s.adminList)
	m.HandleFunc("POST /_sim/files", s.adminCreate)
	m.HandleFunc("GET /_sim/files/{id}", s.adminGet)
	m.HandleFunc("PATCH /_sim/files/{id}", s.adminPatch)
	m.HandleFunc("DELETE /_sim/files/{id}", s.adminDelete)
	m.HandleFunc("POST /_sim/files/{id}/share", s.adminShare)
	m.HandleFunc("DELETE /_sim/files/{id}/share/{email}", s.adminUnshare)
	m.HandleFunc("POST /_sim/files/{id}/anyone", s.adminAnyone)
	m.HandleFunc("POST /_sim/files/{id}/comments", s.adminAddComment)
	m.HandleFunc("POST /_sim/files/{id}/comments/{commentId}/replies", s.adminAddReply)
	m.HandleFunc("DELETE /_sim/files/{id}/comments/{commentId}", s.adminDeleteComment)
	m.HandleFunc("GET /_sim/faults", s.adminFaults)
	m.HandleFunc("POST /_sim/faults", s.adminInjectFault)
	m.HandleFunc("DELETE /_sim/faults", s.adminClearFaults)
	m.HandleFunc("GET /_sim/requests", s.adminRequests)
	m.HandleFunc("/_sim/", func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusNotFound, "not_found", "No such admin route: "+r.Method+" "+r.URL.Path)
	})

	// The HTML page and its form posts.
	s.pageRoutes(m)
}

// adminFile is a file as the admin API shows it: the stored fields plus its
// Google Docs URL.
type adminFile struct {
	File
	URL string `json:"url"`
}

func toAdmin(f File) adminFile { return adminFile{File: f, URL: DocsURL(f.ID)} }

// adminError follows the repo's convention: {"error": code, "message": text}.
func adminError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"error": code, "message": msg})
}

// adminFail maps Go API errors to statuses.
func (s *Server) adminFail(w http.ResponseWriter, err error) {
	var ie *InputError
	switch {
	case errors.As(err, &ie):
		adminError(w, http.StatusBadRequest, "validation_failed", ie.Msg)
	case errors.Is(err, ErrNotFound):
		adminError(w, http.StatusNotFound, "not_found", "File not found")
	case errors.Is(err, ErrCommentNotFound):
		adminError(w, http.StatusNotFound, "not_found", "Comment not found")
	case errors.Is(err, ErrExists):
		adminError(w, http.StatusConflict, "conflict", "A file with this id already exists")
	default:
		s.log.Error("drive simulator: admin call failed", "error", err)
		adminError(w, http.StatusInternalServerError, "internal", "Internal server error")
	}
}

const maxAdminBody = maxText + 1<<20

// decode reads exactly one JSON object, refusing unknown fields so that a
// typo ("name" for "title") is a clear 400 rather than a silent no-op.
func decode(w http.ResponseWriter, r *http.Request, dst any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdminBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			adminError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("Body must be at most %d bytes", maxAdminBody))
			return false
		}
		adminError(w, http.StatusBadRequest, "invalid_json", "Could not read the body")
		return false
	}
	if len(bytes.TrimSpace(b)) == 0 || bytes.TrimSpace(b)[0] != '{' {
		adminError(w, http.StatusBadRequest, "invalid_json", "Body must be a JSON object")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		adminError(w, http.StatusBadRequest, "invalid_json", "Invalid JSON: "+err.Error())
		return false
	}
	if dec.More() {
		adminError(w, http.StatusBadRequest, "invalid_json", "Body must be a single JSON object")
		return false
	}
	return true
}

func (s *Server) adminList(w http.ResponseWriter, r *http.Request) {
	files := s.Files()
	out := make([]adminFile, len(files))
	for i, f := range files {
		out[i] = toAdmin(f)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) adminCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID             string   `json:"id"`
		Title          *string  `json:"title"`
		Text           string   `json:"text"`
		MimeType       string   `json:"mimeType"`
		AnyoneWithLink bool     `json:"anyoneWithLink"`
		SharedWith     []string `json:"sharedWith"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Title == nil {
		adminError(w, http.StatusBadRequest, "validation_failed", "title is required")
		return
	}
	f, err := s.CreateFile(File{ID: req.ID, Title: *req.Title, Text: req.Text, MimeType: req.MimeType,
		AnyoneWithLink: req.AnyoneWithLink, SharedWith: req.SharedWith})
	if err != nil {
		s.adminFail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, toAdmin(f))
}

func (s *Server) adminGet(w http.ResponseWriter, r *http.Request) {
	f, ok := s.GetFile(r.PathValue("id"))
	if !ok {
		s.adminFail(w, ErrNotFound)
		return
	}
	writeJSON(w, http.StatusOK, toAdmin(f))
}

func (s *Server) adminPatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title *string `json:"title"`
		Text  *string `json:"text"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Title == nil && req.Text == nil {
		adminError(w, http.StatusBadRequest, "validation_failed", "Nothing to change: give title and/or text")
		return
	}
	f, err := s.UpdateFile(r.PathValue("id"), req.Title, req.Text)
	if err != nil {
		s.adminFail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, toAdmin(f))
}

func (s *Server) adminDelete(w http.ResponseWriter, r *http.Request) {
	if err := s.DeleteFile(r.PathValue("id")); err != nil {
		s.adminFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// writeFile answers a sharing change with the file as it now is.
func (s *Server) writeFile(w http.ResponseWriter, id string, err error) {
	if err != nil {
		s.adminFail(w, err)
		return
	}
	f, ok := s.GetFile(id)
	if !ok {
		s.adminFail(w, ErrNotFound)
		return
	}
	writeJSON(w, http.StatusOK, toAdmin(f))
}

func (s *Server) adminShare(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email string `json:"email"`
	}
	if !decode(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	s.writeFile(w, id, s.Share(id, req.Email))
}

func (s *Server) adminUnshare(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.writeFile(w, id, s.Unshare(id, r.PathValue("email")))
}

func (s *Server) adminAnyone(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AnyoneWithLink *bool `json:"anyoneWithLink"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.AnyoneWithLink == nil {
		adminError(w, http.StatusBadRequest, "validation_failed", "anyoneWithLink (true or false) is required")
		return
	}
	id := r.PathValue("id")
	s.writeFile(w, id, s.SetAnyoneWithLink(id, *req.AnyoneWithLink))
}

func (s *Server) adminAddComment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Author      string `json:"author"`
		DisplayName string `json:"displayName"`
		Content     string `json:"content"`
	}
	if !decode(w, r, &req) {
		return
	}
	c, err := s.AddComment(r.PathValue("id"), req.Author, strings.TrimSpace(req.DisplayName), req.Content)
	if err != nil {
		s.adminFail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) adminAddReply(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Author      string `json:"author"`
		DisplayName string `json:"displayName"`
		Content     string `json:"content"`
		Action      string `json:"action"`
	}
	if !decode(w, r, &req) {
		return
	}
	rep, err := s.AddReply(r.PathValue("id"), r.PathValue("commentId"), req.Author, strings.TrimSpace(req.DisplayName), req.Content, req.Action)
	if err != nil {
		s.adminFail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, rep)
}

func (s *Server) adminDeleteComment(w http.ResponseWriter, r *http.Request) {
	if err := s.DeleteComment(r.PathValue("id"), r.PathValue("commentId")); err != nil {
		s.adminFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) adminFaults(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Faults())
}

func (s *Server) adminInjectFault(w http.ResponseWriter, r *http.Request) {
	var f Fault
	if !decode(w, r, &f) {
		return
	}
	if err := ValidateFault(f); err != nil {
		s.adminFail(w, err)
		return
	}
	s.InjectFault(f)
	writeJSON(w, http.StatusCreated, f)
}

func (s *Server) adminClearFaults(w http.ResponseWriter, r *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) adminRequests(w http.ResponseWriter, r *http.Request) {
	out := map[string]int{}
	for _, op := range ops {
		out[op] = s.Requests(op)
	}
	writeJSON(w, http.StatusOK, out)
}
