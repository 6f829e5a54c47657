// Package knowledge turns a document's exported text into chunks, indexes
// them in PostgreSQL full-text search and answers searches with cited
// passages.
package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentic-app/agentic/services/platform/tokens"
)

// Chunk sizes (cl100k_base tokens).
const (
	DefaultMinTokens     = 150
	DefaultMaxTokens     = 300
	DefaultOverlapTokens = 40
)

// ChunkerVersion changes whenever Split cuts differently: a document's
// content hash includes it, so a sync re-chunks a document whose text has
// not changed since it was indexed by an older chunker.
const ChunkerVersion = 2

// HeadingPathSeparator joins the headings of a chunk's heading path.
const HeadingPathSeparator = " › "

// Chunk is one piece of a document's text. Start and End are rune offsets
// into the text: Text == string([]rune(text)[Start:End]).
type Chunk struct {
	Seq     int
	Start   int
	End     int
	Heading string // the section heading in force where the chunk starts ("" before any)
	// HeadingPath is the document's title and the headings above the chunk's
	// start, outermost first, joined by HeadingPathSeparator: matched with
	// the chunk's text, so that a passage is found by what its section is
	// about even when its sentences do not repeat it.
	HeadingPath string
	Text        string
	Tokens      int
}

// ChunkConfig bounds chunk sizes. Zero values take the defaults.
type ChunkConfig struct {
	// Title is the document's title (Drive's); it heads every chunk's
	// heading path.
	Title string
	// MinTokens: a chunk is not closed at a heading or paragraph end before
	// it has this many tokens (the last chunk, and one closed because the next
	// paragraph would not fit, may be smaller).
	MinTokens int
	// MaxTokens: no chunk is larger (a hard bound, overlap included).
	MaxTokens int
	// OverlapTokens: about this many tokens (whole sentences) of a chunk's end
	// are repeated at the start of the next chunk of the same section, so a
	// passage cut at a boundary is still found whole in one of the two.
	OverlapTokens int
}

func (c ChunkConfig) withDefaults() ChunkConfig {
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MinTokens <= 0 {
		c.MinTokens = DefaultMinTokens
	}
	if c.MinTokens > c.MaxTokens {
		c.MinTokens = c.MaxTokens
	}
	if c.OverlapTokens < 0 {
		c.OverlapTokens = 0
	} else if c.OverlapTokens == 0 {
		c.OverlapTokens = DefaultOverlapTokens
	}
	if c.OverlapTokens > c.MaxTokens/4 {
		c.OverlapTokens = c.MaxTokens / 4
	}
	return c
}

// unit is the smallest piece the chunker moves: a heading, a sentence, or a
// slice of an over-long sentence.
type unit struct {
	start, end int // rune offsets, trimmed of white space
	tokens     int
	heading    bool // the unit is a heading line
	paraStart  bool // the unit starts a paragraph
	section    string
	path       string // the heading path in force (see Chunk.HeadingPath)
}

// Split cuts text into chunks: at headings and paragraph ends when the chunk
// is big enough, else at sentence ends (an over-long sentence at word
// boundaries), never above MaxTokens. Chunks of one section overlap by about
// OverlapTokens.
func Split(text string, cfg ChunkConfig) []Chunk {
	cfg = cfg.withDefaults()
	runes := []rune(text)
	units := segment(runes, cfg)
	if len(units) == 0 {
		return nil
	}
	var (
		out  []Chunk
		cur  []unit // the chunk being built: overlap units first, then new ones
		lead int    // how many units of cur are overlap from the previous chunk
	)
	sum := func(us []unit) int {
		n := 0
		for i, u := range us {
			n += u.tokens
			if i > 0 && u.paraStart {
				n++ // the line break between paragraphs
			}
		}
		return n
	}
	// emit closes the chunk made of us (at least one unit beyond lead) and
	// returns how many units of us it kept: fewer when the exact token count
	// of the text (separators included) is over the bound.
	emit := func(us []unit, lead int) int {
		for n := len(us); n > lead; n-- {
			s, e := us[0].start, us[n-1].end
			t := string(runes[s:e])
			tk := CountTokens(t)
			if tk <= cfg.MaxTokens || n == lead+1 {
				out = append(out, Chunk{Seq: len(out), Start: s, End: e, Heading: us[0].section, HeadingPath: bodyPath(us[:n]), Text: t, Tokens: tk})
				return n
			}
		}
		return len(us)
	}
	// overlapOf returns the trailing sentences of us (not headings) worth at
	// most OverlapTokens, to open the next chunk.
	overlapOf := func(us []unit) []unit {
		if cfg.OverlapTokens == 0 {
			return nil
		}
		n, k := 0, len(us)
		for k > 1 && !us[k-1].heading && n+us[k-1].tokens <= cfg.OverlapTokens {
			n += us[k-1].tokens
			k--
		}
		return append([]unit(nil), us[k:]...)
	}
	// next starts the chunk after cur[:kept] was emitted: the units not kept
	// move on, preceded by the overlap unless the new chunk opens a section.
	next := func(kept int, opensSection bool) {
		done := cur[:kept]
		rest := append([]unit(nil), cur[kept:]...)
		cur, lead = nil, 0
		if !opensSection && (len(rest) == 0 || !rest[0].heading) {
			cur = overlapOf(done)
			lead = len(cur)
		}
		cur = append(cur, rest...)
	}
	// flush emits all of cur (in several chunks if the exact count says so).
	flush := func() {
		for len(cur) > lead {
			kept := emit(cur, lead)
			if kept == len(cur) {
				break
			}
			next(kept, false)
		}
		cur, lead = nil, 0
	}
	for _, u := range units {
		if len(cur) > lead {
			size := sum(cur)
			switch {
			case u.heading && size >= cfg.MinTokens/3:
				// A new section starts a new chunk unless this one is tiny (a
				// title, a one-line section): passages follow the structure.
				flush()
			case size+u.tokens+1 > cfg.MaxTokens:
				// u does not fit: prefer to close at the last paragraph end that
				// leaves a big enough chunk, else close here (a sentence end).
				cut := len(cur)
				for k := len(cur) - 1; k > lead; k-- {
					if cur[k].paraStart && sum(cur[:k]) >= cfg.MinTokens {
						cut = k
						break
					}
				}
				next(emit(cur[:cut], lead), u.heading && cut == len(cur))
				// What moved on must still leave room for u; drop overlap if not.
				for lead > 0 && sum(cur)+u.tokens+1 > cfg.MaxTokens {
					cur, lead = cur[1:], lead-1
				}
			}
		}
		cur = append(cur, u)
	}
	flush()
	return out
}

// bodyPath is the heading path of most of a chunk's text (by tokens; the
// first on a tie): a chunk that opens with a section's heading and its
// first subsection's is about the subsection, and one that opens with a
// document's untitled first lines and goes on into a section is about the
// section.
func bodyPath(us []unit) string {
	tokens := map[string]int{}
	best := ""
	for _, u := range us {
		if u.heading {
			continue
		}
		tokens[u.path] += u.tokens
		if tokens[u.path] > tokens[best] {
			best = u.path
		}
	}
	if len(tokens) == 0 {
		return us[0].path
	}
	return best
}

// segment splits runes into units: one per heading line, one per sentence of
// other lines, over-long sentences cut at word (or, failing that, rune)
// boundaries into pieces of at most MaxTokens/4 tokens.
func segment(runes []rune, cfg ChunkConfig) []unit {
	type line struct{ start, end int }
	var lines []line
	for s := 0; s <= len(runes); {
		e := s
		for e < len(runes) && runes[e] != '\n' {
			e++
		}
		ts, te := trim(runes, s, e)
		if ts < te {
			lines = append(lines, line{ts, te})
		}
		s = e + 1
	}
	piece := max(cfg.MaxTokens/4, 1)
	var (
		units   []unit
		section string
		heads   headings
	)
	if t := strings.TrimSpace(cfg.Title); t != "" {
		heads.push(0, t)
	}
	path := heads.path()
	for li, l := range lines {
		var nextLine []rune
		if li+1 < len(lines) {
			nextLine = runes[lines[li+1].start:lines[li+1].end]
		}
		text := runes[l.start:l.end]
		if isHeading(text, nextLine) {
			section = headingText(text)
			heads.push(headingLevel(text, len(units) == 0), section)
			path = heads.path()
			tk := CountTokens(string(text))
			if tk <= piece {
				units = append(units, unit{start: l.start, end: l.end, tokens: tk, heading: true, paraStart: true, section: section, path: path})
				continue
			}
		}
		first := true
		for _, sen := range sentences(runes, l.start, l.end) {
			for _, p := range splitByTokens(runes, sen[0], sen[1], piece) {
				units = append(units, unit{start: p[0], end: p[1], tokens: CountTokens(string(runes[p[0]:p[1]])), paraStart: first, section: section, path: path})
				first = false
			}
		}
	}
	return units
}

func trim(r []rune, s, e int) (int, int) {
	for s < e && unicode.IsSpace(r[s]) {
		s++
	}
	for e > s && unicode.IsSpace(r[e-1]) {
		e--
	}
	return s, e
}

// isHeading guesses whether a line of a text/plain export is a heading:
// Markdown "#" lines, or short lines without closing punctuation that start
// with a capital letter or a section number and are followed by a longer
// paragraph.
func isHeading(line, next []rune) bool {
	if len(line) == 0 {
		return false
	}
	if line[0] == '#' {
		i := 0
		for i < len(line) && line[i] == '#' {
			i++
		}
		return i <= 6 && i < len(line) && line[i] == ' ' && strings.TrimSpace(string(line[i:])) != ""
	}
	if len(line) > 80 || len(next) == 0 {
		return false
	}
	words := len(strings.Fields(string(line)))
	if words > 10 {
		return false
	}
	switch line[len(line)-1] {
	case '.', ',', ';', '!', '?', ':', ')', '"', '\'', '。', '！', '？':
		return false
	}
	switch line[0] {
	case '*', '-', '•', '●', '○', '–', '—':
		return false // list items
	}
	if !unicode.IsUpper(line[0]) && !unicode.IsDigit(line[0]) {
		return false
	}
	// A numbered heading ("7. Travel", "7.1 Booking") may be followed by
	// the first heading of its subsections.
	if sectionNumber(line) > 0 && sectionNumber(next) > 0 {
		return true
	}
	// The next paragraph must look like body text, not another short line of
	// a list or a table.
	nextWords := len(strings.Fields(string(next)))
	last := next[len(next)-1]
	return nextWords >= 2*words || strings.ContainsRune(".!?。！？", last)
}

// headings is the stack of headings in force at a point of a document.
type headings []struct {
	level int
	text  string
}

// push enters a heading of level: the headings of its level and below end.
// A heading equal to the one above it (a first line repeating the title)
// replaces it rather than counting twice.
func (h *headings) push(level int, text string) {
	for len(*h) > 0 && (*h)[len(*h)-1].level >= level {
		*h = (*h)[:len(*h)-1]
	}
	if n := len(*h); n > 0 && strings.EqualFold((*h)[n-1].text, text) {
		return
	}
	*h = append(*h, struct {
		level int
		text  string
	}{level, text})
}

func (h headings) path() string {
	parts := make([]string, len(h))
	for i, x := range h {
		parts[i] = x.text
	}
	return strings.Join(parts, HeadingPathSeparator)
}

// headingLevel is the depth of a heading line: Markdown's number of '#';
// for a numbered heading ("3 Fees", "3.2 Late fees") one more than the
// number's parts; a plain heading that opens the document (its title) 1,
// any other plain heading 2.
func headingLevel(line []rune, opensDocument bool) int {
	if line[0] == '#' {
		n := 0
		for n < len(line) && line[n] == '#' {
			n++
		}
		return n
	}
	parts := sectionNumber(line)
	switch {
	case parts > 0:
		return parts + 1
	case opensDocument:
		return 1
	default:
		return 2
	}
}

// sectionNumber is how many parts the section number opening line has
// ("7 Travel", "7. Travel": 1; "7.2 Hotels": 2), 0 when it has none. The
// number must be followed by a space and a word.
func sectionNumber(line []rune) int {
	parts, i := 0, 0
	for i < len(line) {
		j := i
		for j < len(line) && unicode.IsDigit(line[j]) {
			j++
		}
		if j == i {
			break
		}
		if j-i > 2 { // a year or an amount, not a section
			return 0
		}
		parts++
		if j < len(line) && line[j] == '.' {
			j++
		}
		i = j
		if i >= len(line) || !unicode.IsDigit(line[i]) {
			break
		}
	}
	if parts == 0 || i >= len(line)-1 || line[i] != ' ' || !unicode.IsLetter(line[i+1]) {
		return 0
	}
	return parts
}

// headingText is a heading without Markdown markers.
func headingText(line []rune) string {
	return strings.TrimSpace(strings.TrimLeft(string(line), "#"))
}

// sentences splits [s,e) after sentence-ending punctuation followed by white
// space (or after CJK full stops), trimmed.
func sentences(r []rune, s, e int) [][2]int {
	var out [][2]int
	start := s
	for i := s; i < e; i++ {
		end := -1
		switch r[i] {
		case '.', '!', '?':
			if i+1 < e && unicode.IsSpace(r[i+1]) {
				end = i + 1
			}
		case '。', '！', '？':
			end = i + 1
		}
		if end > 0 {
			if ts, te := trim(r, start, end); ts < te {
				out = append(out, [2]int{ts, te})
			}
			start = end
		}
	}
	if ts, te := trim(r, start, e); ts < te {
		out = append(out, [2]int{ts, te})
	}
	return out
}

// maxRunesPerToken bounds the runes of one cl100k_base token for the cheap
// "surely fits" test below (real tokens are rarely longer than 16 characters).
const maxRunesPerToken = 16

// splitByTokens cuts [s,e) into pieces of at most about limit tokens at
// word boundaries. Each word (with the white space before it, as the
// tokenizer splits text) is counted once, so the cost is linear; a run
// without white space is cut every limit/4 runes (a rune is at most 4
// tokens), because BPE is quadratic in the length of a word and a document
// may be one 2 MB word.
func splitByTokens(r []rune, s, e, limit int) [][2]int {
	if e-s <= limit || (e-s <= limit*maxRunesPerToken && CountTokens(string(r[s:e])) <= limit) {
		return [][2]int{{s, e}}
	}
	longWord := max(limit/4, 1)
	var out [][2]int
	add := func(a, b int) {
		if ps, pe := trim(r, a, b); ps < pe {
			out = append(out, [2]int{ps, pe})
		}
	}
	start, sum := s, 0
	for i := s; i < e; {
		j := i
		for j < e && unicode.IsSpace(r[j]) {
			j++
		}
		k := j
		for k < e && !unicode.IsSpace(r[k]) && k-j < longWord {
			k++
		}
		c := CountTokens(string(r[i:k]))
		if sum > 0 && sum+c > limit {
			add(start, i)
			start, sum = i, 0
		}
		sum += c
		i = k
	}
	add(start, e)
	return out
}

// CountTokens counts the tokens of a text in linear time: words are
// counted in batches cut before white space (where the tokenizer cuts too,
// so normal text gets the exact count), and a word longer than 256 bytes in
// 256-byte slices (BPE is quadratic in a word's length; such a word's count
// is then off by about a token per slice).
func CountTokens(text string) int {
	const (
		batch    = 4096
		longWord = 256
	)
	isSpace := func(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f' }
	n, from := 0, 0
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		k := j
		for k < len(text) && !isSpace(text[k]) {
			k++
		}
		switch {
		case k-j > longWord:
			n += tokens.Count(text[from:j])
			for w := text[j:k]; len(w) > 0; {
				cut := min(len(w), longWord)
				for cut < len(w) && !utf8.RuneStart(w[cut]) {
					cut++
				}
				n += tokens.Count(w[:cut])
				w = w[cut:]
			}
			from = k
		case k-from > batch:
			n += tokens.Count(text[from:i])
			from = i
		}
		i = k
	}
	return n + tokens.Count(text[from:])
}

// RuneLen is the length of s in runes (the unit of Chunk offsets).
func RuneLen(s string) int { return utf8.RuneCountInString(s) }
