package knowledgebench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
)

// corpus generates realistic text: the sentences of the Drive simulator's
// seeded documents (a syllabus, an ISO 9001 checklist, a product FAQ, ...),
// with about a third of their content words replaced by words of the
// document's topic or of a large Zipf-distributed vocabulary. Real corpora
// have tens of thousands of distinct words and a few very frequent ones;
// that shape, not the words themselves, decides how many chunks a query
// matches, which is what a full-text search's speed depends on.
type corpus struct {
	sentences [][]string // words (and punctuation attached) of each base sentence
	vocab     []string   // rank order: vocab[0] is the most frequent
	zipf      *rand.Zipf
	r         *rand.Rand
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

func newCorpus(seed uint64, vocabSize int) *corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &corpus{r: r}
	seen := map[string]bool{}
	var real []string
	for _, f := range drivesim.SeedFiles() {
		for _, line := range strings.Split(f.Text, "\n") {
			for _, s := range sentenceEnd.Split(line, -1) {
				ws := strings.Fields(s)
				if len(ws) < 5 {
					continue
				}
				c.sentences = append(c.sentences, ws)
				for _, w := range ws {
					w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
					if len(w) >= 4 && !seen[w] {
						seen[w] = true
						real = append(real, w)
					}
				}
			}
		}
	}
	// The real words are the frequent head; synthetic words the long tail.
	c.vocab = append(c.vocab, real...)
	syll := []string{"ka", "lo", "mer", "tin", "sa", "ve", "dor", "pel", "qui", "ran", "so", "ta", "ber", "ni", "gal",
		"fen", "mo", "rus", "ti", "zan", "ple", "cor", "vi", "hal", "den", "ur", "bri", "sto", "lan", "mi"}
	for len(c.vocab) < vocabSize {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	c.zipf = rand.NewZipf(r, 1.07, 2, uint64(len(c.vocab)-1))
	return c
}

// topic is the words a document is about.
type topic []string

func (c *corpus) topic(n int) topic {
	t := make(topic, n)
	for i := range t {
		// Topic words come from the tail: specific, not "student" or "week".
		t[i] = c.vocab[200+c.r.IntN(len(c.vocab)-200)]
	}
	return t
}

func (c *corpus) word(t topic) string {
	if len(t) > 0 && c.r.IntN(2) == 0 {
		return t[c.r.IntN(len(t))]
	}
	return c.vocab[c.zipf.Uint64()]
}

// sentence is a base sentence with about a third of its content words replaced.
func (c *corpus) sentence(t topic) string {
	base := c.sentences[c.r.IntN(len(c.sentences))]
	out := make([]string, len(base))
	for i, w := range base {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		if len(core) >= 4 && c.r.IntN(3) == 0 {
			w = strings.Replace(w, core, c.word(t), 1)
		}
		out[i] = w
	}
	s := strings.Join(out, " ")
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// text returns about words words of paragraphs under headings.
func (c *corpus) text(t topic, words int) string {
	var b strings.Builder
	n := 0
	for n < words {
		fmt.Fprintf(&b, "%s %s\n", strings.ToUpper(t[c.r.IntN(len(t))][:1])+t[c.r.IntN(len(t))][1:], c.word(t))
		for p := 0; p < 2+c.r.IntN(3) && n < words; p++ {
			for s := 0; s < 2+c.r.IntN(5); s++ {
				sen := c.sentence(t)
				n += len(strings.Fields(sen))
				b.WriteString(sen)
				b.WriteByte(' ')
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// query returns a search like a creator's or a conversation's: mostly
// natural questions about a document's topic, some keyword searches, and
// some questions with a word that no document has (a typo), which fall back
// to the relaxed stages.
func (c *corpus) query(t topic) string {
	w := func() string { return t[c.r.IntN(len(t))] }
	head := func() string { return c.vocab[c.r.IntN(150)] }
	switch k := c.r.IntN(10); {
	case k < 5:
		return fmt.Sprintf("What does the document say about %s and %s?", w(), w())
	case k < 7:
		return fmt.Sprintf("How is the %s %s %s handled?", head(), w(), w())
	case k < 9:
		return w() + " " + w()
	default:
		return fmt.Sprintf("Where can I find the %s for %s xqzv%d?", head(), w(), c.r.IntN(1000))
	}
}
