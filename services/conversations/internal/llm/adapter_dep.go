package llm

// The production adapter (openai.go) is built on openai-go; this keeps the
// dependency pinned in go.mod until it lands.
import _ "github.com/openai/openai-go/v3"
