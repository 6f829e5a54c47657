package comments

import (
	"strings"
	"unicode/utf8"
)

// Mention reports whether content mentions address — "+address",
// "@address" or the bare address, case-insensitively, not as part of a
// longer address — and returns the content with every mention removed
// (white space tidied).
func Mention(content, address string) (rest string, ok bool) {
	address = strings.ToLower(strings.TrimSpace(address))
	if address == "" {
		return content, false
	}
	lower := strings.ToLower(content)
	// strings.ToLower may change byte lengths for some runes; work on the
	// lowered text only when the lengths agree (always for ASCII addresses).
	if len(lower) != len(content) {
		lower = asciiLower(content)
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(lower); {
		j := strings.Index(lower[i:], address)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(address)
		if !boundaryBefore(lower, start) || !boundaryAfter(lower, end) {
			i = start + 1
			continue
		}
		ok = true
		cut := start
		if cut > 0 && (lower[cut-1] == '@' || lower[cut-1] == '+') {
			cut--
		}
		b.WriteString(content[last:cut])
		last = end
		i = end
	}
	if !ok {
		return content, false
	}
	b.WriteString(content[last:])
	return tidy(b.String()), true
}

func asciiLower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

// addressByte: a byte that can continue an e-mail address.
func addressByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '%' || c >= utf8.RuneSelf
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	if c == '@' || c == '+' {
		// "@addr" / "+addr", but not "x@addr" or "x+addr" (a longer address).
		return i-1 == 0 || !addressByte(s[i-2]) && s[i-2] != '+' && s[i-2] != '@'
	}
	return !addressByte(c)
}

func boundaryAfter(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	c := s[i]
	if c == '.' || c == '-' || c == '_' {
		// A sentence's full stop ends the address; "addr.example" does not.
		return i+1 >= len(s) || !addressByte(s[i+1]) || s[i+1] == '.'
	}
	return !addressByte(c) && c != '@'
}

// tidy collapses runs of spaces and tabs left by a removed mention, trims
// each line and the whole text, and drops a leading comma or colon ("@agent,
// what is …").
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	s = strings.TrimSpace(strings.Join(lines, "\n"))
	s = strings.TrimLeft(s, ",:;")
	s = strings.TrimSpace(s)
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// Citation is a source of an answer.
type Citation struct {
	Name string
	URL  string
}

// MaxReplyRunes bounds the reply posted in Drive.
const MaxReplyRunes = 8000

// FormatReply is the plain-text reply: the answer without its Markdown
// (PlainText), then "Sources: name (url), …" (each source once).
func FormatReply(answer string, citations []Citation) string {
	text := PlainText(answer)
	var srcs []string
	seen := map[string]bool{}
	for _, c := range citations {
		name, url := strings.TrimSpace(c.Name), strings.TrimSpace(c.URL)
		if name == "" && url == "" {
			continue
		}
		s := name
		switch {
		case name == "":
			s = url
		case url != "":
			s = name + " (" + url + ")"
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		srcs = append(srcs, s)
	}
	if len(srcs) > 0 {
		tail := "\n\nSources: " + strings.Join(srcs, ", ")
		if text == "" {
			tail = strings.TrimSpace(tail)
		}
		text += tail
	}
	if r := []rune(text); len(r) > MaxReplyRunes {
		text = strings.TrimSpace(string(r[:MaxReplyRunes-1])) + "…"
	}
	return text
}
