// Package tokens counts tokens with a real BPE tokenizer (tiktoken's
// cl100k_base), loaded from the encodings compiled into the binary by
// tiktoken-go-loader, so counting never downloads anything at run time.
//
// Every service that sizes text for a model (documents for chunk and document
// sizes, conversations for prompts, the LLM simulator for usage) counts with
// this one package, so the numbers agree across the system.
package tokens

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the BPE encoding used everywhere.
const Encoding = "cl100k_base"

var (
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error
)

func encoder() *tiktoken.Tiktoken {
	once.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, err = tiktoken.GetEncoding(Encoding)
		if err != nil {
			// The encoding is compiled in; failing to load it is a build fault.
			panic("tokens: load " + Encoding + ": " + err.Error())
		}
	})
	return enc
}

// Count returns the number of tokens of text.
func Count(text string) int {
	if text == "" {
		return 0
	}
	return len(encoder().Encode(text, nil, nil))
}

// Encode returns the token ids of text.
func Encode(text string) []int {
	return encoder().Encode(text, nil, nil)
}

// Decode turns token ids back into text.
func Decode(ids []int) string {
	return encoder().Decode(ids)
}

// Truncate returns the longest prefix of text that has at most max tokens.
func Truncate(text string, max int) string {
	if max <= 0 {
		return ""
	}
	ids := Encode(text)
	if len(ids) <= max {
		return text
	}
	return Decode(ids[:max])
}
