package prompt

import (
	"fmt"
	"strings"
	"testing"
)

// A realistic prompt: 2 referenced and 8 retrieved passages of ~250 tokens,
// 10 history messages.
func BenchmarkBuild(b *testing.B) {
	para := strings.Repeat("Homework is due every Friday before noon and late work loses ten percent per day. ", 14)
	var refs, rets []Passage
	for i := 0; i < 2; i++ {
		refs = append(refs, Passage{DocumentID: "s", DocumentName: "Syllabus", Text: fmt.Sprint(i, para)})
	}
	for i := 0; i < 8; i++ {
		rets = append(rets, Passage{DocumentID: fmt.Sprint("r", i), DocumentName: fmt.Sprint("Notes", i), Text: fmt.Sprint(i, para)})
	}
	in := Input{AgentName: "Tutor", Instructions: "Use @Syllabus. " + para[:200], Referenced: refs, Retrieved: rets,
		History: history(10), Message: "When is homework due?", ContextWindow: 16000, MaxOutputTokens: 1024}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCold counts every passage afresh (no cache hits).
func BenchmarkBuildCold(b *testing.B) {
	para := strings.Repeat("Homework is due every Friday before noon and late work loses ten percent per day. ", 14)
	i := 0
	for b.Loop() {
		i++
		var rets []Passage
		for j := 0; j < 10; j++ {
			rets = append(rets, Passage{DocumentID: fmt.Sprint("r", j), DocumentName: "Notes", Text: fmt.Sprint(i, "-", j, para)})
		}
		in := Input{Retrieved: rets, History: history(10), Message: fmt.Sprint("q", i), ContextWindow: 16000, MaxOutputTokens: 1024}
		if _, err := Build(in); err != nil {
			b.Fatal(err)
		}
	}
}
