package comments

import (
	"regexp"
	"strings"
)

// Google Docs shows a comment reply as plain text: Markdown syntax in an
// answer (**bold**, `code`, # headings, [links](…)) would show literally.
// PlainText rewrites an answer for a Docs comment thread.

var (
	reFence     = regexp.MustCompile("^\\s*(```|~~~)")
	reHeading   = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	reRule      = regexp.MustCompile(`^\s{0,3}([-*_])(\s*[-*_]){2,}\s*$`)
	reQuote     = regexp.MustCompile(`^\s{0,3}>\s?`)
	reBullet    = regexp.MustCompile(`^(\s*)[-*+]\s+(\[[ xX]\]\s+)?`)
	reNumbered  = regexp.MustCompile(`^(\s*)(\d{1,9})[.)]\s+`)
	reTableSep  = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)
	reImage     = regexp.MustCompile(`!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	reLink      = regexp.MustCompile(`\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	reAutolink  = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	reCode      = regexp.MustCompile("`+([^`]+?)`+")
	reBoldStar  = regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*`)
	reBoldUnder = regexp.MustCompile(`(^|[^\w])__(\S(?:.*?\S)?)__($|[^\w])`)
	reStrike    = regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`)
	reItalStar  = regexp.MustCompile(`(^|[^\w*])\*(\S(?:[^*]*?\S)?)\*($|[^\w*])`)
	reItalUnder = regexp.MustCompile(`(^|[^\w])_(\S(?:[^_]*?\S)?)_($|[^\w])`)
	reEscape    = regexp.MustCompile(`\\([\\` + "`" + `*_{}\[\]()#+\-.!|>~])`)
)

// PlainText turns a Markdown answer into plain text for Google Docs: no
// emphasis or code marks, headings as their text, bullets as "• ", numbered
// items as "1. ", links as "text (url)", no rules or code fences.
func PlainText(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	out := make([]string, 0, len(lines))
	inFence := false
	for _, l := range lines {
		if reFence.MatchString(l) {
			inFence = !inFence
			continue
		}
		if inFence {
			out = append(out, l) // code is kept as written
			continue
		}
		if reRule.MatchString(l) || reTableSep.MatchString(l) {
			continue
		}
		for reQuote.MatchString(l) {
			l = reQuote.ReplaceAllString(l, "")
		}
		if m := reHeading.FindStringSubmatch(l); m != nil {
			l = m[1]
		}
		switch {
		case reBullet.MatchString(l):
			m := reBullet.FindStringSubmatch(l)
			l = m[1] + "• " + l[len(m[0]):]
		case reNumbered.MatchString(l):
			m := reNumbered.FindStringSubmatch(l)
			l = m[1] + m[2] + ". " + l[len(m[0]):]
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && len(t) > 1 {
			cells := strings.Split(strings.Trim(t, "|"), "|")
			for i, c := range cells {
				cells[i] = strings.TrimSpace(c)
			}
			l = strings.Join(cells, " | ")
		}
		out = append(out, inline(l))
	}
	s := strings.Join(out, "\n")
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(s)
}

// inline removes the inline Markdown of one line.
func inline(l string) string {
	// Escaped characters and code spans first: they are literal. They are
	// set aside as placeholders (private-use runes) and put back last.
	var kept []string
	hold := func(s string) string {
		kept = append(kept, s)
		return "\x00" + string(rune(0xE000+len(kept)-1)) + "\x00"
	}
	l = reEscape.ReplaceAllStringFunc(l, func(m string) string { return hold(m[1:]) })
	l = reCode.ReplaceAllStringFunc(l, func(m string) string {
		return hold(strings.TrimSpace(reCode.FindStringSubmatch(m)[1]))
	})
	l = reImage.ReplaceAllStringFunc(l, func(m string) string {
		sm := reImage.FindStringSubmatch(m)
		return linkText(sm[1], sm[2])
	})
	l = reLink.ReplaceAllStringFunc(l, func(m string) string {
		sm := reLink.FindStringSubmatch(m)
		return linkText(sm[1], sm[2])
	})
	l = reAutolink.ReplaceAllString(l, "$1")
	l = reBoldStar.ReplaceAllString(l, "$1")
	l = reBoldUnder.ReplaceAllString(l, "$1$2$3")
	l = reStrike.ReplaceAllString(l, "$1")
	// Italics may sit next to each other ("*a* *b*"): replace until stable.
	for range 3 {
		n := reItalStar.ReplaceAllString(l, "$1$2$3")
		n = reItalUnder.ReplaceAllString(n, "$1$2$3")
		if n == l {
			break
		}
		l = n
	}
	for i, k := range kept {
		l = strings.Replace(l, "\x00"+string(rune(0xE000+i))+"\x00", k, 1)
	}
	return l
}

func linkText(text, url string) string {
	text = strings.TrimSpace(text)
	switch {
	case url == "":
		return text
	case text == "" || text == url || strings.TrimPrefix(url, "mailto:") == text:
		return url
	default:
		return text + " (" + url + ")"
	}
}

// Sign ends a reply with the agent's name, as its owner wrote it.
func Sign(text, agentName string) string {
	name := strings.TrimSpace(agentName)
	if name == "" {
		return text
	}
	return strings.TrimSpace(text) + "\n\n— " + name
}
