package llmsim

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// Answer is the simulator's deterministic answer to a chat prompt: it reads
// the numbered passages of the prompt's knowledge section (the format of
// internal/prompt), scores each against the last user message by lexical
// overlap, and answers with the best passage's most relevant sentences,
// naming and citing it ("According to **Syllabus** [1]: …"). Same prompt,
// same answer.
func Answer(msgs []llm.Message) string {
	if earlier, message, ok := prompt.StandaloneQueryRequest(msgs); ok {
		return standaloneQuery(earlier, message)
	}
	var system strings.Builder
	question := ""
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleSystem, "developer":
			system.WriteString(m.Content)
			system.WriteString("\n")
		case llm.RoleUser:
			question = m.Content
		}
	}
	question = strings.TrimSpace(question)
	if question == "" {
		return "Hello! I am the Agentic LLM simulator. Ask me a question about this agent's documents."
	}
	qTerms := terms(question)
	topic := topicOf(question, qTerms)
	passages := prompt.ParseKnowledge(system.String())
	if len(passages) == 0 {
		return fmt.Sprintf("I don't have any linked knowledge about **%s**. Link a document that covers it to this agent and ask again.", topic)
	}

	best, second := -1, -1
	bestScore, secondScore := 0, 0
	for i, p := range passages {
		s := passageScore(qTerms, p)
		switch {
		case s > bestScore:
			second, secondScore = best, bestScore
			best, bestScore = i, s
		case s > secondScore && s > 0:
			second, secondScore = i, s
		}
	}
	if best < 0 {
		return fmt.Sprintf("I couldn't find anything about **%s** in the %d linked passage%s I was given.", topic, len(passages), plural(len(passages)))
	}
	p := passages[best]
	var b strings.Builder
	fmt.Fprintf(&b, "According to **%s** [%d]:\n\n> %s", mdEscape(p.DocumentName), p.N, quote(p.Text, qTerms))
	if second >= 0 && passages[second].DocumentName != p.DocumentName {
		fmt.Fprintf(&b, "\n\nSee also **%s** [%d].", mdEscape(passages[second].DocumentName), passages[second].N)
	}
	return b.String()
}

// stopWords are left out of matching: they say nothing about the topic.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from had has have how
		i if in into is it its me my of on or our please should so tell than that the their them then there these
		they this to us was we were what when where which who whom why will with would you your about any
		according see also there's what's`) {
		m[w] = true
	}
	return m
}()

// words splits text into lower-case words of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// stem folds simple English plurals so "deadlines" matches "deadline".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// terms are the distinct content words of text, stemmed, in order.
func terms(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(text) {
		if len([]rune(w)) < 2 || stopWords[w] {
			continue
		}
		w = stem(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func termSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range terms(text) {
		set[t] = true
	}
	return set
}

// passageScore: one point per question term in the text, two more per term
// in the document's name or labels (asking about "the syllabus" should find
// the Syllabus).
func passageScore(qTerms []string, p prompt.Numbered) int {
	text := termSet(p.Text)
	meta := termSet(p.DocumentName + " " + strings.Join(p.Labels, " "))
	s := 0
	for _, t := range qTerms {
		if text[t] {
			s++
		}
		if meta[t] {
			s += 2
		}
	}
	return s
}

var sentenceEnd = regexp.MustCompile(`[.!?](\s+|$)|\n+`)

// quote returns the passage's most relevant sentence (and the one after it
// when short), at most maxQuoteWords words, as one line.
func quote(text string, qTerms []string) string {
	var sentences []string
	at := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		if s := strings.TrimSpace(text[at:loc[1]]); s != "" {
			sentences = append(sentences, s)
		}
		at = loc[1]
	}
	if s := strings.TrimSpace(text[at:]); s != "" {
		sentences = append(sentences, s)
	}
	if len(sentences) == 0 {
		return "(the passage is empty)"
	}
	best, bestScore := 0, -1
	for i, s := range sentences {
		set := termSet(s)
		score := 0
		for _, t := range qTerms {
			if set[t] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	chosen := sentences[best]
	if best+1 < len(sentences) && len(strings.Fields(chosen)) < 12 {
		chosen += " " + sentences[best+1]
	}
	fields := strings.Fields(chosen)
	if len(fields) > maxQuoteWords {
		fields = append(fields[:maxQuoteWords], "…")
	}
	return strings.Join(fields, " ")
}

const maxQuoteWords = 60

// topicOf is what the question is about, for "no knowledge" answers: its
// content words as written (at most 8), or the question itself.
func topicOf(question string, qTerms []string) string {
	var kept []string
	for _, w := range strings.FieldsFunc(question, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '-' && r != '\''
	}) {
		lw := strings.ToLower(w)
		if len([]rune(lw)) < 2 || stopWords[lw] {
			continue
		}
		kept = append(kept, w)
		if len(kept) == 8 {
			break
		}
	}
	if len(kept) == 0 {
		return mdEscape(strings.TrimRight(question, "?!. "))
	}
	return mdEscape(strings.Join(kept, " "))
}

var mdSpecial = strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)

// mdEscape keeps names like "Algebra_I" from turning into emphasis, and
// brackets from looking like citations.
func mdEscape(s string) string { return mdSpecial.Replace(s) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pieces splits text into the stream's deltas: each word with the white
// space after it (the first also carries any leading white space), so the
// deltas concatenate back to text exactly.
func pieces(text string) []string {
	var out []string
	i := 0
	for i < len(text) {
		j := i
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// standaloneQuery is the simulator's answer to a follow-up rewrite request
// (prompt.StandaloneQueryMessages): not a model's reading, a fixed rule. A
// message that refers back (it opens with "and"/"what about", or has a
// pronoun such as "it" or "that") gets the previous user message's words
// before its own; any other comes back unchanged.
func standaloneQuery(earlierUser []string, message string) string {
	if len(earlierUser) == 0 || !refersBack(message) {
		return message
	}
	previous := strings.TrimRight(strings.TrimSpace(earlierUser[len(earlierUser)-1]), "?!. ")
	return previous + "; " + message
}

// refersBack: the simulator's rule for a message that needs the one before.
func refersBack(message string) bool {
	ws := words(message)
	if len(ws) == 0 {
		return false
	}
	if ws[0] == "and" || ws[0] == "also" || (len(ws) > 1 && ws[0] == "what" && ws[1] == "about") {
		return true
	}
	for _, w := range ws {
		switch w {
		case "it", "its", "that", "this", "those", "these", "they", "them", "there", "one", "ones":
			return true
		}
	}
	return false
}
