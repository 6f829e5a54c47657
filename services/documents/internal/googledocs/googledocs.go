// Package googledocs checks Google Docs document URLs and extracts the Drive
// file id from them, with the spec's rules and messages. It is pure (no I/O)
// and shared by the create and edit paths.
package googledocs

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Service is the document path every accepted URL contains.
const Service = "docs.google.com/document/"

// Host is the only accepted host name.
const Host = "docs.google.com"

// MaxURL is the longest accepted URL, in characters (after trimming).
const MaxURL = 2048

// FileType is the kind of document these URLs link to (events, activity feed).
const FileType = "Google Docs"

// Messages (the spec's texts where it has them).
const (
	MsgRequired    = "Document URL is required"
	MsgTooLong     = "Document URL must be at most 2048 characters"
	MsgInvalid     = "Please enter a valid URL"
	MsgNotDocument = "URL must be a document URL (docs.google.com/document/...)"
	MsgNoID        = "Invalid Google Docs URL: Could not extract document ID from the provided URL."
	MsgNotService  = "Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported."
)

// Error is a rejected URL; Message is the text shown to the user.
type Error struct {
	Kind    Kind
	Message string
}

func (e *Error) Error() string { return e.Message }

// Kind says which rule rejected a URL. The checks run in this order.
type Kind int

// Kinds, in the order they are checked.
const (
	KindRequired    Kind = iota + 1 // empty after trimming
	KindTooLong                     // more than MaxURL characters
	KindInvalid                     // not an absolute URL
	KindNotDocument                 // does not contain docs.google.com/document/
	KindNoID                        // no run of 25+ id characters
	KindNotService                  // not on https?://docs.google.com/document/
)

var messages = map[Kind]string{
	KindRequired: MsgRequired, KindTooLong: MsgTooLong, KindInvalid: MsgInvalid,
	KindNotDocument: MsgNotDocument, KindNoID: MsgNoID, KindNotService: MsgNotService,
}

func fail(k Kind) (string, string, error) { return "", "", &Error{Kind: k, Message: messages[k]} }

// idRun is the spec's document id: 25 or more letters, digits, hyphens or
// underscores (ASCII only, like JavaScript's [-\w]).
var idRun = regexp.MustCompile(`[A-Za-z0-9_-]{25,}`)

// IDPattern matches a whole extracted id.
var IDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{25,}$`)

// ParseDocumentURL checks raw and returns the URL to store (raw without
// surrounding white space) and the Drive file id. The checks, in order (the
// first failing one is returned as an *Error):
//
//  1. required: not empty after trimming;
//  2. at most MaxURL characters;
//  3. a valid URL: no white space or control characters inside, parses as an
//     absolute URL with a scheme and a host;
//  4. contains "docs.google.com/document/" (case-sensitive substring, as the
//     web form checks it);
//  5. the id is the first run of 25 or more [A-Za-z0-9_-] characters
//     anywhere in the trimmed URL, read left to right exactly as the spec
//     says (scheme, host and path included: the host's dots and the path's
//     slashes end runs, so for https://docs.google.com/document/d/<id>/edit
//     the first run is <id>; a 25+ character path segment before the id, a
//     query parameter, etc. would be taken as is);
//  6. the URL is on the Google Docs service: scheme http or https, host
//     docs.google.com (any case), no user info, no port, and a path starting
//     with /document/ — so https://evil.example/docs.google.com/document/...
//     is rejected even though it contains the document path.
func ParseDocumentURL(raw string) (normalized, driveFileID string, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return fail(KindRequired)
	}
	if utf8.RuneCountInString(s) > MaxURL {
		return fail(KindTooLong)
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fail(KindInvalid)
	}
	u, perr := url.Parse(s)
	if perr != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return fail(KindInvalid)
	}
	if !strings.Contains(s, Service) {
		return fail(KindNotDocument)
	}
	id := idRun.FindString(s)
	if id == "" {
		return fail(KindNoID)
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.User != nil || u.Port() != "" ||
		!strings.EqualFold(u.Hostname(), Host) || !strings.HasPrefix(u.EscapedPath(), "/document/") {
		return fail(KindNotService)
	}
	return s, id, nil
}
