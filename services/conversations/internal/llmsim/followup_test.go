package llmsim

import (
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// The simulator answers a follow-up rewrite request by its fixed rule: a
// message that refers back gets the previous user message before it; one
// that stands on its own comes back unchanged (it is not answered).
func TestAnswerRewritesFollowUpsByRule(t *testing.T) {
	earlier := []llm.Message{{Role: llm.RoleUser, Content: "Which problem sets are due?"},
		{Role: llm.RoleAssistant, Content: "Sets 1 and 2."}}
	for msg, want := range map[string]string{
		"And the late policy?":          "Which problem sets are due; And the late policy?",
		"What about the second one?":    "Which problem sets are due; What about the second one?",
		"When are the office hours?":    "When are the office hours?",
		"Is it graded on a curve?":      "Which problem sets are due; Is it graded on a curve?",
		"How is the final exam graded?": "How is the final exam graded?",
	} {
		if got := Answer(prompt.StandaloneQueryMessages(earlier, msg)); got != want {
			t.Errorf("rewrite of %q = %q, want %q", msg, got, want)
		}
	}
	if got := Answer(prompt.StandaloneQueryMessages(nil, "And the late policy?")); got != "And the late policy?" {
		t.Errorf("without history: %q", got)
	}
}
