package agents

import (
	"crypto/rand"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxSlug is the longest slug taken from an agent's name.
const MaxSlug = 40

// Slug turns a name into lower-case ASCII letters and digits separated by
// single hyphens (accents are dropped: "Café Bot" → "cafe-bot"); "agent" when
// nothing is left.
func Slug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining mark of a decomposed letter
			continue
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		default:
			hyphen = true
		}
		if b.Len() >= MaxSlug {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > MaxSlug {
		s = strings.TrimRight(s[:MaxSlug], "-")
	}
	if s == "" {
		return "agent"
	}
	return s
}

const randomAlphabet = "abcdefghijkmnpqrstuvwxyz23456789" // 32 symbols, no look-alikes

// RandomSuffix returns n random characters from an unambiguous alphabet.
func RandomSuffix(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = randomAlphabet[int(b[i])%len(randomAlphabet)]
	}
	return string(b)
}

// NewEmailAddress returns "<slug-of-name>-<6 random chars>@<domain>".
func NewEmailAddress(name, domain string) string {
	return Slug(name) + "-" + RandomSuffix(6) + "@" + strings.ToLower(domain)
}
