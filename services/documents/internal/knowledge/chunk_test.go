package knowledge

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/agentic-app/agentic/services/platform/tokens"
)

var words = strings.Fields(`students assignment grade course lecture exam project submit deadline week
	reading policy office hours late penalty participation quiz final midterm instructor teaching assistant
	laboratory report group discussion feedback rubric points percent attendance module schedule chapter
	textbook online forum question answer review session topic research paper draft revision presentation`)

// paragraph returns a paragraph of n sentences of 8–20 words.
func paragraph(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		k := 8 + r.IntN(13)
		for j := 0; j < k; j++ {
			w := words[r.IntN(len(words))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		b.WriteString(". ")
	}
	return strings.TrimSpace(b.String())
}

// document is a syllabus-like text: sections with a heading and paragraphs
// of varying length, Windows-free line ends, a few blank lines.
func document(seed uint64, sections int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("Course Syllabus\n\n")
	for s := 0; s < sections; s++ {
		fmt.Fprintf(&b, "%d. Section about %s\n", s+1, words[r.IntN(len(words))])
		for p := 0; p < 1+r.IntN(6); p++ {
			b.WriteString(paragraph(r, 1+r.IntN(8)))
			b.WriteString("\n")
			if r.IntN(3) == 0 {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func checkChunks(t *testing.T, text string, chunks []Chunk, cfg ChunkConfig) {
	t.Helper()
	cfg = cfg.withDefaults()
	runes := []rune(text)
	covered := make([]bool, len(runes))
	for i, c := range chunks {
		if c.Seq != i {
			t.Fatalf("chunk %d has seq %d", i, c.Seq)
		}
		if c.Start < 0 || c.End > len(runes) || c.Start >= c.End {
			t.Fatalf("chunk %d offsets [%d,%d) of %d", i, c.Start, c.End, len(runes))
		}
		if got := string(runes[c.Start:c.End]); got != c.Text {
			t.Fatalf("chunk %d text is not text[%d:%d]:\n%q\n%q", i, c.Start, c.End, c.Text, got)
		}
		if c.Tokens != CountTokens(c.Text) {
			t.Fatalf("chunk %d tokens = %d, want %d", i, c.Tokens, CountTokens(c.Text))
		}
		if c.Tokens > cfg.MaxTokens {
			t.Fatalf("chunk %d has %d tokens > max %d", i, c.Tokens, cfg.MaxTokens)
		}
		if unicode.IsSpace(runes[c.Start]) || unicode.IsSpace(runes[c.End-1]) {
			t.Fatalf("chunk %d not trimmed: %q", i, c.Text)
		}
		if i > 0 && c.Start < chunks[i-1].Start {
			t.Fatalf("chunk %d starts before chunk %d", i, i-1)
		}
		for k := c.Start; k < c.End; k++ {
			covered[k] = true
		}
	}
	for k, r := range runes {
		if !covered[k] && !unicode.IsSpace(r) {
			t.Fatalf("rune %d (%q) is in no chunk: …%q…", k, r, string(runes[max(0, k-20):min(len(runes), k+20)]))
		}
	}
}

func TestSplitSyllabus(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 20; seed++ {
		text := document(seed, 12)
		chunks := Split(text, ChunkConfig{})
		checkChunks(t, text, chunks, ChunkConfig{})
		for i, c := range chunks { // normal text: the exact count
			if c.Tokens != tokens.Count(c.Text) {
				t.Fatalf("seed %d chunk %d: %d tokens, tokenizer says %d", seed, i, c.Tokens, tokens.Count(c.Text))
			}
		}
		if len(chunks) < 3 {
			t.Fatalf("seed %d: %d chunks for %d tokens", seed, len(chunks), tokens.Count(text))
		}
		overlaps := 0
		for i, c := range chunks {
			last := i == len(chunks)-1
			opensSection := !last && chunks[i+1].Heading != "" && strings.HasPrefix(chunks[i+1].Text, chunks[i+1].Heading)
			// Sizes: within [min, max] except the last chunk (a few tokens of
			// slack: sizes are planned on per-sentence counts) and a chunk
			// that ends its section (at least a third of min).
			if !last && !opensSection && c.Tokens < DefaultMinTokens-10 {
				t.Errorf("seed %d chunk %d: only %d tokens", seed, i, c.Tokens)
			}
			if !last && opensSection && c.Tokens < DefaultMinTokens/3 {
				t.Errorf("seed %d chunk %d: only %d tokens before a section", seed, i, c.Tokens)
			}
			if !last && !opensSection && chunks[i+1].Start >= c.End {
				t.Errorf("seed %d: chunk %d does not open a section and does not overlap chunk %d", seed, i+1, i)
			}
			if !last && chunks[i+1].Start < c.End {
				overlaps++
				ov := string([]rune(text)[chunks[i+1].Start:c.End])
				if n := tokens.Count(ov); n > DefaultOverlapTokens+2 {
					t.Errorf("seed %d chunk %d: overlap of %d tokens", seed, i, n)
				}
				// Overlap is whole sentences: it ends where the chunk ends and
				// starts at a sentence start.
				if !strings.HasSuffix(c.Text, ov) {
					t.Errorf("seed %d chunk %d: overlap %q is not its end", seed, i, ov)
				}
			}
		}
		total += overlaps
	}
	if total == 0 {
		t.Error("no chunk overlaps the next")
	}
}

func TestSplitStartsSectionsAtHeadings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	// Sections of ~350 tokens each: every heading after the first should open a chunk.
	for s := 1; s <= 6; s++ {
		fmt.Fprintf(&b, "Unit %d Overview\n", s)
		for tokens.Count(b.String()[strings.LastIndex(b.String(), "Unit"):]) < 350 {
			b.WriteString(paragraph(r, 3) + "\n")
		}
	}
	text := b.String()
	chunks := Split(text, ChunkConfig{})
	checkChunks(t, text, chunks, ChunkConfig{})
	starts := 0
	for _, c := range chunks {
		if strings.HasPrefix(c.Text, "Unit ") {
			starts++
			if !strings.HasPrefix(c.Text, c.Heading) {
				t.Errorf("chunk starting %q has heading %q", c.Text[:20], c.Heading)
			}
		}
	}
	if starts != 6 {
		t.Fatalf("%d of 6 headings start a chunk", starts)
	}
	if chunks[len(chunks)-1].Heading != "Unit 6 Overview" {
		t.Fatalf("last heading = %q", chunks[len(chunks)-1].Heading)
	}
}

func TestSplitEdgeCases(t *testing.T) {
	if c := Split("", ChunkConfig{}); len(c) != 0 {
		t.Fatalf("empty text: %v", c)
	}
	if c := Split(" \n\n\t ", ChunkConfig{}); len(c) != 0 {
		t.Fatalf("blank text: %v", c)
	}
	short := "Office hours\nTuesdays 2–4 pm in room 101."
	c := Split(short, ChunkConfig{})
	if len(c) != 1 || c[0].Text != short || c[0].Start != 0 || c[0].End != RuneLen(short) {
		t.Fatalf("short text: %+v", c)
	}
	cases := map[string]string{
		// One paragraph without any punctuation: cut at words.
		"no punctuation": strings.Repeat("grading policy rubric points ", 2000),
		// One enormous word: cut between runes.
		"one word": strings.Repeat("x", 20000),
		// CJK text without spaces, sentences end with 。.
		"cjk": strings.Repeat("学生は毎週課題を提出しなければなりません。成績は期末試験で決まります。", 200),
		// Multi-byte runes and emoji: offsets are runes, not bytes.
		"emoji": strings.Repeat("Café 🎓 naïve résumé — “quoted” text. ", 400),
		// Many short lines (a list): no heading guesses break anything.
		"list": strings.Repeat("* Item one\n* Item two\nShort line\n", 300),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			chunks := Split(text, ChunkConfig{})
			checkChunks(t, text, chunks, ChunkConfig{})
			if len(chunks) < 2 {
				t.Fatalf("%d chunks", len(chunks))
			}
		})
	}
}

func TestSplitConfig(t *testing.T) {
	text := document(3, 20)
	cfg := ChunkConfig{MinTokens: 100, MaxTokens: 150, OverlapTokens: -1}
	chunks := Split(text, cfg)
	checkChunks(t, text, chunks, cfg)
	for i := 1; i < len(chunks); i++ {
		if chunks[i].Start < chunks[i-1].End {
			t.Fatalf("overlap with OverlapTokens < 0 at chunk %d", i)
		}
	}
	if big := Split(text, ChunkConfig{}); len(chunks) <= len(big) {
		t.Fatalf("smaller max gave %d chunks, default %d", len(chunks), len(big))
	}
}

func TestIsHeading(t *testing.T) {
	body := []rune("This paragraph explains how the grade is computed from the assignments.")
	for _, h := range []string{"Grading Policy", "3. Late Work", "## Office hours", "ASSESSMENT"} {
		if !isHeading([]rune(h), body) {
			t.Errorf("%q should be a heading", h)
		}
	}
	for _, h := range []string{"Submit it on time.", "* Bullet", "lowercase start", "Reading list:", "## "} {
		if isHeading([]rune(h), body) {
			t.Errorf("%q should not be a heading", h)
		}
	}
	if isHeading([]rune("Grading Policy"), nil) {
		t.Error("a last line is not a heading")
	}
}

func TestCountTokens(t *testing.T) {
	text := document(11, 40)
	if got, want := CountTokens(text), tokens.Count(text); got != want {
		t.Fatalf("CountTokens = %d, tokens.Count = %d", got, want)
	}
	if CountTokens("") != 0 || CountTokens("hello world") != 2 {
		t.Fatal("small texts")
	}
	// A 2 MB word: linear, and close to the real count of a shorter one.
	huge := strings.Repeat("ab", 1<<20)
	if n := CountTokens(huge); n < len(huge)/16 || n > len(huge) {
		t.Fatalf("huge word: %d tokens", n)
	}
	chunks := Split(huge, ChunkConfig{})
	if len(chunks) < len(huge)/(DefaultMaxTokens*maxRunesPerToken) {
		t.Fatalf("huge word: %d chunks", len(chunks))
	}
	for _, c := range chunks[:10] {
		if c.Tokens > DefaultMaxTokens {
			t.Fatalf("huge word chunk of %d tokens", c.Tokens)
		}
	}
}

func TestSplitGivesEachChunkItsHeadingPath(t *testing.T) {
	body := func(topic string) string {
		return strings.Repeat("The "+topic+" rules are written here in full sentences for everyone. ", 6)
	}
	text := "Clearwell Manual\n\n" + body("opening") + "\n\n" +
		"4. The Filter Cartridge\n4.1 Filter Lifetime\n" + body("lifetime") + "\n\n" +
		"4.2 Replacing the Cartridge\n" + body("replacing") + "\n\n" +
		"5. Warranty\n" + body("warranty") + "\n"
	cfg := ChunkConfig{Title: "clearwell manual", MinTokens: 30, MaxTokens: 120, OverlapTokens: -1}
	chunks := Split(text, cfg)
	checkChunks(t, text, chunks, cfg)
	want := map[string]string{
		"opening":   "clearwell manual",
		"lifetime":  "clearwell manual › 4. The Filter Cartridge › 4.1 Filter Lifetime",
		"replacing": "clearwell manual › 4. The Filter Cartridge › 4.2 Replacing the Cartridge",
		"warranty":  "clearwell manual › 5. Warranty",
	}
	found := 0
	for _, c := range chunks {
		for topic, path := range want {
			if strings.Contains(c.Text, "The "+topic+" rules") {
				found++
				if c.HeadingPath != path {
					t.Errorf("chunk about %s: heading path %q, want %q", topic, c.HeadingPath, path)
				}
				if strings.Contains(c.Text, "rules") && topic != "opening" && strings.Contains(c.Text, "The opening rules") {
					t.Errorf("chunk about %s spans the opening section: sections start chunks", topic)
				}
			}
		}
	}
	if found < len(want) {
		t.Fatalf("only %d of %d sections found in %d chunks", found, len(want), len(chunks))
	}
	// Without a Drive title the first line is the title; it is in every path once.
	for _, c := range Split(text, ChunkConfig{MinTokens: 30, MaxTokens: 120}) {
		if !strings.HasPrefix(c.HeadingPath, "Clearwell Manual") || strings.Count(c.HeadingPath, "Clearwell") != 1 {
			t.Errorf("heading path %q", c.HeadingPath)
		}
	}
}

func TestHeadingLevels(t *testing.T) {
	for line, want := range map[string]int{"# Title": 1, "### Deep": 3, "7. Travel": 2, "7 Travel": 2, "7.2 Hotels": 3,
		"1.2.3 Fine print": 4, "Plain Heading": 2} {
		if got := headingLevel([]rune(line), false); got != want {
			t.Errorf("headingLevel(%q) = %d, want %d", line, got, want)
		}
	}
	if headingLevel([]rune("Plain Title"), true) != 1 {
		t.Error("a plain first heading is the title")
	}
	if !isHeading([]rune("7. Travel and Expenses"), []rune("7.1 Booking Travel")) {
		t.Error("a numbered heading followed by its first subsection is a heading")
	}
	if sectionNumber([]rune("2027 was a good year.")) != 0 || sectionNumber([]rune("3.5%")) != 0 {
		t.Error("a number that opens a sentence is not a section number")
	}
}
