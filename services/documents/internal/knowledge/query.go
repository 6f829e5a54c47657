package knowledge

import (
	"strings"
	"unicode"
)

// DefaultMinRelevance is the relevance below which a passage is not worth
// answering from (RETRIEVAL_MIN_RELEVANCE): measured on bench/retrieval's
// tuning half, it declines the questions whose best passage covers little
// of what they ask while declining almost none that the documents answer
// (docs/documents.md, "Declining").
const DefaultMinRelevance = 0.15

// Relevant reports whether a search found anything worth answering from:
// its best passage (the first) is relevant enough.
func Relevant(ps []Passage) bool { return len(ps) > 0 && ps[0].Relevant }

// contextFactor is how much the words of the message a follow-up follows
// up count against the follow-up's own words.
const contextFactor = 0.5

// followUpContext is the earlier message a question follows up, "" when it
// reads as a question of its own. A follow-up refers back ("And where is
// it held?", "What about part-time staff?", "How much does that cost?"):
// it opens with a connective, or has a pronoun standing for something
// said before, or is too short to say what it is about. Only the last
// earlier message is used: a conversation moves on.
//
// This is the deterministic rule; it needs no model. With a real model
// the conversations service sends a standalone query the model rewrote
// instead, and no earlier messages (FOLLOW_UP_SEARCH=model).
func followUpContext(question string, earlier []string) string {
	for i := len(earlier) - 1; i >= 0; i-- {
		if strings.TrimSpace(earlier[i]) == "" {
			continue
		}
		if isFollowUp(question) {
			return earlier[i]
		}
		return ""
	}
	return ""
}

var (
	connectives = map[string]bool{"and": true, "also": true, "but": true, "so": true, "then": true, "or": true}
	referring   = map[string]bool{"it": true, "its": true, "it's": true, "that": true, "this": true, "those": true,
		"these": true, "they": true, "them": true, "their": true, "there": true, "he": true, "him": true, "his": true,
		"she": true, "her": true, "one": true, "ones": true, "same": true, "former": true, "latter": true}
	questionWords = map[string]bool{"what": true, "which": true, "who": true, "whom": true, "when": true, "where": true,
		"why": true, "how": true, "is": true, "are": true, "do": true, "does": true, "did": true, "can": true,
		"could": true, "should": true, "would": true, "will": true, "much": true, "many": true, "long": true,
		"about": true, "a": true, "an": true, "the": true, "of": true, "for": true, "to": true, "in": true, "on": true,
		"i": true, "me": true, "my": true, "we": true, "our": true, "you": true, "your": true, "if": true, "be": true}
)

func isFollowUp(question string) bool {
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	if len(words) == 0 {
		return false
	}
	if connectives[words[0]] || (len(words) > 1 && (words[0] == "what" || words[0] == "how") && words[1] == "about") {
		return true
	}
	content := 0
	for _, w := range words {
		if referring[w] {
			return true
		}
		if !questionWords[w] {
			content++
		}
	}
	return content <= 2
}
