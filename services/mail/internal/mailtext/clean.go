package mailtext

import (
	"regexp"
	"strings"
)

// Reply-header lines that start the quoted history, in the languages mail
// clients most often write them in. They may be wrapped over two lines
// ("On Mon, 1 Jan 2024 at 10:00, Alice Example <\nalice@example.org> wrote:").
var (
	attributionStart = regexp.MustCompile(`(?i)^(on|le|am|el|il|op|em|den|dne)\s.+`)
	attributionEnd   = regexp.MustCompile(`(?i)((wrote|a écrit|escribió|ha scritto|schreef|escreveu|skrev|napsal)\s*|schrieb .*):\s*$`)
	// Outlook separators that begin the quoted original.
	outlookSeparator = regexp.MustCompile(`(?i)^\s*(-{2,}\s*original message\s*-{2,}|_{10,})\s*$`)
	// Outlook's header block: "From: …" followed by "Sent:"/"Date:" within two lines.
	outlookFrom = regexp.MustCompile(`(?i)^\s*\*?(from|von|de)\s*:\*?\s+\S`)
	outlookSent = regexp.MustCompile(`(?i)^\s*\*?(sent|date|gesendet|envoyé|enviado)\s*:\*?\s+\S`)
)

// Clean returns the part of a plain-text body the sender wrote: line endings
// normalised, everything from the signature delimiter ("-- ") or the quoted
// reply history on removed, lines quoted with ">" removed, trailing spaces
// and runs of blank lines collapsed, surrounding blank lines trimmed.
func Clean(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\u00a0")
		raw := lines[i]
		switch {
		case raw == "-- " || line == "--":
			// Signature delimiter (RFC 3676 "-- "; many clients drop the space).
			return finish(out)
		case isAttribution(lines, i):
			return finish(out)
		case outlookSeparator.MatchString(line):
			return finish(out)
		case outlookFrom.MatchString(line) && nextHas(lines, i, outlookSent, 3):
			return finish(out)
		case strings.HasPrefix(strings.TrimLeft(line, " "), ">"):
			continue // a quoted line (inline replies keep their own lines)
		}
		out = append(out, line)
	}
	return finish(out)
}

// isAttribution reports whether lines[i] (alone, or joined with the next
// line) is a reply attribution such as "On … wrote:".
func isAttribution(lines []string, i int) bool {
	line := strings.TrimSpace(lines[i])
	if !attributionStart.MatchString(line) {
		return false
	}
	if attributionEnd.MatchString(line) {
		return true
	}
	if i+1 < len(lines) {
		next := strings.TrimSpace(lines[i+1])
		return next != "" && attributionEnd.MatchString(line+" "+next) && len(line)+len(next) < 300
	}
	return false
}

func nextHas(lines []string, i int, re *regexp.Regexp, within int) bool {
	for j := i + 1; j < len(lines) && j <= i+within; j++ {
		if re.MatchString(lines[j]) {
			return true
		}
	}
	return false
}

// finish collapses runs of blank lines to one and trims blank lines at both ends.
func finish(lines []string) string {
	var b strings.Builder
	blank := false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n\n")
		} else if b.Len() > 0 {
			b.WriteByte('\n')
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}
