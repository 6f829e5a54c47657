package server

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeUses matches the ways services write an {"error","message"} code.
var codeUses = []*regexp.Regexp{
	regexp.MustCompile(`\bCode: *"([a-z_]+)"`),
	regexp.MustCompile(`\bBadRequest\("([a-z_]+)"`),
	regexp.MustCompile(`\bError: *"([a-z_]+)"`),
	regexp.MustCompile(`"error": *"([a-z_]+)"`),
	regexp.MustCompile(`\bwriteError\(w, [^,]+, *"([a-z_]+)"`),
	regexp.MustCompile(`\bCode[A-Za-z]* += +"([a-z_]+)"`),
}

// TestCodesVocabulary reads every service's Go source and fails on an error
// code that is not in Codes: a new code is added to the vocabulary (and to
// docs/conventions.md and the OpenAPI document) or an existing one is used.
// Not scanned: the development simulators (*sim packages, which mimic other
// APIs), the agent API's OpenAI-shaped errors (lines with a Type: field and
// openai.go), Stripe's own error objects and tests.
func TestCodesVocabulary(t *testing.T) {
	root := filepath.Join("..", "..") // services/
	seen := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasSuffix(d.Name(), "sim") || d.Name() == "stripeapi" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || d.Name() == "openai.go" ||
			strings.Contains(path, "/fakes/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "Type:") || strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, re := range codeUses {
				for _, m := range re.FindAllStringSubmatch(line, -1) {
					if !KnownCode(m[1]) {
						t.Errorf("%s:%d: error code %q is not in the vocabulary (services/platform/server/codes.go)", path, i+1, m[1])
					}
					seen[m[1]] = path
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("found only %d codes: is the scan broken? %v", len(seen), seen)
	}
}

func TestCodesAreUniqueAndHaveStatuses(t *testing.T) {
	dup := map[string]bool{}
	for _, c := range Codes {
		if dup[c.Code] {
			t.Errorf("%s listed twice", c.Code)
		}
		dup[c.Code] = true
		if c.Status < 400 || c.Status > 599 || c.Meaning == "" {
			t.Errorf("%+v", c)
		}
	}
}
