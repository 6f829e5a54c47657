package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text that PostgreSQL cannot store, or that is not text at all, is refused
// at the edge with a 400 naming the field, before it can reach a query and
// come back as a 500: PostgreSQL's text types refuse the NUL character
// (U+0000, "invalid byte sequence for encoding UTF8: 0x00") and invalid
// UTF-8. DecodeJSON applies CheckJSONText to every body; InputGuard applies
// CheckText to the path and the query string of every request.

// MsgNUL and MsgInvalidUTF8 end the per-field messages: "<field> must not
// contain NUL characters", "<field> must be valid UTF-8".
const (
	MsgNUL         = "must not contain NUL characters"
	MsgInvalidUTF8 = "must be valid UTF-8"
)

// TextError returns the 400 validation_failed error for field (a JSON path
// such as "name", "tags[1]" or "metadata.userId", a query parameter or
// "path"): {"error":"validation_failed","message":"<field> <problem>",
// "fields":{"<field>":"<field> <problem>"}}.
func TextError(field, problem string) *Error {
	msg := field + " " + problem
	return &Error{Status: http.StatusBadRequest, Code: CodeValidationFailed, Message: msg,
		Fields: map[string]string{field: msg}}
}

// CheckText returns the TextError for field when s contains a NUL character
// or is not valid UTF-8, and nil otherwise.
func CheckText(field, s string) *Error {
	if !utf8.ValidString(s) {
		return TextError(field, MsgInvalidUTF8)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return TextError(field, MsgNUL)
	}
	return nil
}

// CheckJSONText walks the JSON document body and returns the TextError of
// the first string (object key or value, at any depth) that contains a NUL
// character (written "\u0000") or invalid UTF-8, naming its path. It returns
// nil when every string is clean. It stops without error where body stops
// being well-formed JSON (decoding reports that with its own message).
func CheckJSONText(body []byte) *Error {
	if bytes.IndexByte(body, 0) < 0 && !bytes.Contains(body, []byte(`\u0000`)) && utf8.Valid(body) {
		return nil // fast path: nothing to look for
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// stack of containers: for an object the current key, for an array the
	// next index.
	type frame struct {
		array  bool
		index  int
		key    string
		hasKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.array:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case f.hasKey:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		if b.Len() == 0 {
			return "Request body"
		}
		return b.String()
	}
	// afterValue advances the enclosing container past one value.
	afterValue := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].hasKey = false
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // malformed: DecodeJSON reports it
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				afterValue()
			}
		case string:
			raw := body[start:dec.InputOffset()]
			isKey := len(stack) > 0 && !stack[len(stack)-1].array && !stack[len(stack)-1].hasKey
			var problem string
			switch {
			case !utf8.Valid(raw):
				problem = MsgInvalidUTF8
			case strings.IndexByte(v, 0) >= 0:
				problem = MsgNUL
			}
			if isKey {
				if problem != "" {
					// Name the object holding the key; the key itself is unprintable.
					field := path()
					if field == "Request body" {
						return TextError("Request body", "keys "+problem)
					}
					return TextError(field, "keys "+problem)
				}
				stack[len(stack)-1].key, stack[len(stack)-1].hasKey = v, true
				continue
			}
			if problem != "" {
				return TextError(path(), problem)
			}
			afterValue()
		default:
			afterValue()
		}
	}
}

// InputGuard refuses, with the 400 of CheckText, a request whose path or
// query string (decoded) contains a NUL character or invalid UTF-8, so a
// path id or query parameter never carries such text into a query.
func InputGuard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := CheckRequestText(r); err != nil {
			WriteError(w, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// CheckRequestText checks r's decoded path and query parameters (names and
// values) with CheckText.
func CheckRequestText(r *http.Request) *Error {
	if err := CheckText("path", r.URL.Path); err != nil {
		return err
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	for name, values := range r.URL.Query() {
		if err := CheckText("query parameter names", name); err != nil {
			return err
		}
		for _, v := range values {
			if err := CheckText(name, v); err != nil {
				return err
			}
		}
	}
	return nil
}
