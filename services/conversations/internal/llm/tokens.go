package llm

import "github.com/agentic-app/agentic/services/platform/tokens"

// Token accounting of chat messages, the one rule shared by prompt assembly
// (internal/prompt), the adapter's own estimate when a provider sends no
// usage, and the LLM simulator's reported usage (internal/llmsim), so the
// three always agree.
//
// It is OpenAI's documented rule for cl100k_base chat models (the
// "num_tokens_from_messages" recipe of the OpenAI cookbook): every message is
// framed as <|im_start|>{role}\n{content}<|im_end|>\n, which costs
// MessageOverhead tokens plus the tokens of its role and its content, and the
// reply is primed with <|im_start|>assistant\n, ReplyPriming more tokens.
// Real providers may differ by a few tokens (other tokenizers, newer
// formats); the service meters the provider's reported usage, so this count
// only sizes the prompt and the worst-case reservation.
const (
	// MessageOverhead is the per-message framing cost.
	MessageOverhead = 3
	// ReplyPriming is the once-per-request cost of priming the reply.
	ReplyPriming = 3
)

// MessageTokens is the cost of one message inside a chat prompt. Its counts
// are remembered (tokens.CountCached): a conversation's messages, and an
// agent's instructions and passages, recur in request after request.
func MessageTokens(m Message) int {
	return MessageOverhead + tokens.CountCached(m.Role) + tokens.CountCached(m.Content)
}

// PromptTokens is the input token count of a chat request made of msgs.
func PromptTokens(msgs []Message) int {
	n := ReplyPriming
	for _, m := range msgs {
		n += MessageTokens(m)
	}
	return n
}

// CompletionTokens is the output token count of generated text.
func CompletionTokens(text string) int { return tokens.Count(text) }
