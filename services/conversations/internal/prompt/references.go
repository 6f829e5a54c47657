package prompt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The instructions' reference grammar, a port of the web editor's
// web/src/features/documents/lib/references.ts (docs/web-documents.md,
// "Reference grammar"), so the service resolves exactly what the owner saw
// highlighted:
//
//   - a reference is a sigil, '@' (document) or '#' (label), followed by a
//     run of one or more characters that are neither white space nor '@'
//     nor '#' (document names and labels cannot contain spaces);
//   - the sigil must start a word: at the start of the text, or not after a
//     letter, digit or '_' (so "ada@example.com" and "C#" are plain text);
//   - trailing punctuation (. , ; : ! ? ' " ) ] } ’ ” » …) is not part of the
//     reference unless it is part of a known name: the reference is the
//     longest of the run and its prefixes without trailing punctuation that
//     is known, else the run without all its trailing punctuation;
//   - names and labels compare case-insensitively.

// Reference is one @/# reference found in the instructions.
type Reference struct {
	// Label is true for '#label', false for '@Document'.
	Label bool
	// Name is the referenced name without the sigil.
	Name string
	// Known is true when Name matched one of the known names given.
	Known bool
	// Start and End are byte offsets of the reference (sigil included,
	// trailing punctuation excluded) in the instructions.
	Start, End int
}

const trailingPunctuation = ".,;:!?'\")]}’”»…"

// isJSSpace is JavaScript's Unicode-aware \s, which the web editor uses (it
// differs from unicode.IsSpace on U+0085 and U+FEFF).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

func isRunRune(r rune) bool { return r != '@' && r != '#' && !isJSSpace(r) }

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

func fold(s string) string { return strings.ToLower(s) }

// FindReferences returns every reference in text, left to right, resolved
// against the known document names and labels (either may be nil: then
// every reference is "unknown" and loses all its trailing punctuation).
func FindReferences(text string, knownDocuments, knownLabels []string) []Reference {
	docs, labels := foldSet(knownDocuments), foldSet(knownLabels)
	var refs []Reference
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if (r == '@' || r == '#') && startsWord(text, i) {
			end := i + size
			for end < len(text) {
				rr, s := utf8.DecodeRuneInString(text[end:])
				if !isRunRune(rr) {
					break
				}
				end += s
			}
			known := docs
			if r == '#' {
				known = labels
			}
			name, isKnown := resolveRun(text[i+size:end], known)
			if name != "" {
				tokenEnd := i + size + len(name)
				refs = append(refs, Reference{Label: r == '#', Name: name, Known: isKnown, Start: i, End: tokenEnd})
				i = tokenEnd
				continue
			}
		}
		i += size
	}
	return refs
}

// References returns the document names referenced with '@' and the labels
// referenced with '#' in the instructions, each once (case-insensitively,
// first spelling), in order of appearance. Without the agent's names it
// cannot know that a document is really called "Notes." so trailing
// punctuation is always dropped ("See @Syllabus." → "Syllabus"); use
// FindReferences with the known names when they are at hand.
func References(instructions string) (docNames []string, labels []string) {
	seenDoc, seenLabel := map[string]bool{}, map[string]bool{}
	for _, ref := range FindReferences(instructions, nil, nil) {
		key := fold(ref.Name)
		if ref.Label {
			if !seenLabel[key] {
				seenLabel[key] = true
				labels = append(labels, ref.Name)
			}
		} else if !seenDoc[key] {
			seenDoc[key] = true
			docNames = append(docNames, ref.Name)
		}
	}
	return docNames, labels
}

func startsWord(text string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return !isWordRune(r)
}

func resolveRun(run string, known map[string]bool) (string, bool) {
	candidate := run
	for {
		if candidate != "" && known[fold(candidate)] {
			return candidate, true
		}
		last, size := utf8.DecodeLastRuneInString(candidate)
		if candidate == "" || !strings.ContainsRune(trailingPunctuation, last) {
			return candidate, false
		}
		candidate = candidate[:len(candidate)-size]
	}
}

func foldSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[fold(n)] = true
	}
	return set
}
