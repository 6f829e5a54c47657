// Package prompt assembles the chat prompt of one answer (pure functions, no
// I/O): the agent's instructions with their @Document/#label references
// resolved to numbered knowledge passages, the passages retrieved for the
// user's message, as much conversation history as fits the model's context
// window, and the new message. It also defines the knowledge-passage format
// that the LLM simulator reads back (ParseKnowledge) and turns the [n]
// markers of an answer into citations (CitedPassages).
//
// Token counts follow llm.PromptTokens (cl100k_base, OpenAI's chat framing),
// the rule the simulator reports usage with.
package prompt

import (
	"errors"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

// Passage is one piece of an agent's knowledge (converted by the service from
// documentsv1.Passage).
type Passage struct {
	DocumentID   string
	DocumentName string
	URL          string
	Labels       []string
	Text         string
	Score        float64
}

// Input is everything one prompt is made of.
type Input struct {
	AgentName    string
	Instructions string
	// Referenced are the passages of the documents the instructions name with
	// @Document (KnowledgeService.GetPassages) and of the documents carrying
	// the labels they name with #label (KnowledgeService.Search restricted to
	// those labels), in priority order. Build links each reference in the
	// instructions to the numbers of the passages it stands for by
	// DocumentName and Labels, so no separate mapping is needed.
	Referenced []Passage
	// Retrieved are the passages KnowledgeService.Search found for Message,
	// best first. Passages already in Referenced (same document and text)
	// are not repeated.
	Retrieved []Passage
	// History is the conversation so far, oldest first (user and assistant
	// messages, without the new one).
	History []llm.Message
	// Message is the user's new message.
	Message string
	// Caller is system text from whoever calls the agent (the agent API's
	// system messages). It becomes a second system message after the
	// agent's, introduced as subordinate to the agent's instructions, so it
	// can add to them but never replaces them. Always included, like the
	// instructions (ErrTooLong when they do not fit together).
	Caller string
	// ContextWindow is the model's context size in tokens (input + output).
	ContextWindow int
	// MaxOutputTokens is reserved for the answer (Request.MaxTokens).
	MaxOutputTokens int
	// HistoryTokens bounds the history kept, in tokens (the agent's memory,
	// memoryTokens); 0 = no bound but the context window's.
	HistoryTokens int
}

// Output is the assembled prompt.
type Output struct {
	// Messages: the system message, the kept history, the user message.
	Messages []llm.Message
	// InputTokens is llm.PromptTokens(Messages): what the simulator (and,
	// within a few tokens, OpenAI) reports as prompt tokens.
	InputTokens int
	// Passages are the passages included, numbered: Passages[i] is [i+1].
	Passages []Passage
	// HistoryKept is how many of the newest History messages were included.
	HistoryKept int
	// PassagesDropped counts Referenced and Retrieved passages left out for
	// lack of room (duplicates are not counted).
	PassagesDropped int
}

var (
	// ErrTooLong: the instructions and the new message alone do not fit the
	// context window minus the output reserve.
	ErrTooLong = errors.New("prompt: instructions and message do not fit the model's context window")
	// ErrInvalid: the input cannot make a prompt (no message, no window).
	ErrInvalid = errors.New("prompt: invalid input")
)

// Section markers of the system message. The simulator and ParseKnowledge
// rely on them; change them together.
const (
	knowledgeOpen  = "<knowledge>"
	knowledgeClose = "</knowledge>"
	passageClose   = "</passage>"
	knowledgeGuide = "Answer from the passages below when they are relevant. Cite every passage you use with its number in square brackets, for example [1]. If they do not contain the answer, say so instead of guessing.\n" +
		"In the instructions, @Name refers to a document and #label to the documents carrying that label; the numbers after a reference are its passages."
	// noKnowledge: nothing relevant was found (issue 32, "Declining
	// honestly"): the answer says so instead of quoting an unrelated passage.
	noKnowledge = "No passage of the agent's documents is relevant to this message. If it asks about something the documents would cover, say that your documents do not cover it; cite nothing and do not invent facts about them."
)

// Build assembles the prompt. Budget (ContextWindow − MaxOutputTokens, in
// prompt tokens): the instructions and the new message always (ErrTooLong if
// they alone do not fit); then Referenced passages in order; then Retrieved
// passages in order (a passage that does not fit is skipped, a smaller later
// one may still fit); then history, newest first, as long as it fits and,
// with HistoryTokens, stays within them (kept history is contiguous and
// starts with a user message).
func Build(in Input) (Output, error) {
	if strings.TrimSpace(in.Message) == "" || in.ContextWindow <= 0 || in.MaxOutputTokens < 0 {
		return Output{}, fmt.Errorf("%w: message, context window and output reserve are required", ErrInvalid)
	}
	budget := in.ContextWindow - in.MaxOutputTokens
	user := llm.Message{Role: llm.RoleUser, Content: in.Message}
	userTokens := llm.MessageTokens(user)
	var caller []llm.Message
	if c := CallerMessage(in.Caller); c != "" {
		caller = []llm.Message{{Role: llm.RoleSystem, Content: c}}
		// Counted with the user message: both are fixed, separate messages.
		userTokens += llm.MessageTokens(caller[0])
	}
	// Everything of the system message except its content.
	sysFrame := llm.ReplyPriming + llm.MessageOverhead + tokens.CountCached(llm.RoleSystem)

	// Fixed part: system message without passages + the user message.
	fixed := sysFrame + tokens.CountCached(systemHead(in, nil)) + userTokens
	if fixed > budget {
		return Output{}, fmt.Errorf("%w: %d prompt tokens, %d available", ErrTooLong, fixed, budget)
	}

	// Passages. Each block is tokenized once: the system message is
	// head + blocks + tail, and every join is ">\n" followed by "<", where
	// cl100k's pre-tokenizer always splits, so the tokens of the whole are
	// exactly the sum of the parts' (TestCountIsExact checks it). Only the
	// head changes with the choice (the reference annotations, the framing
	// of the first passage), so it is estimated here and counted at the end.
	used := fixed
	framing := tokens.CountCached(knowledgeGuide+"\n\n"+knowledgeOpen+"\n"+knowledgeClose) - tokens.CountCached(noKnowledge)
	var chosen []Passage
	var blocks []string
	var blockTokens []int
	dropped := 0
	seen := map[string]bool{}
	consider := func(p Passage) {
		key := p.DocumentID + "\x00" + p.Text
		if seen[key] {
			return
		}
		seen[key] = true
		block := passageBlock(len(chosen)+1, p) + "\n"
		n := tokens.CountCached(block)
		cost := n + refAnnotationSlack
		if len(chosen) == 0 {
			cost += framing
		}
		if used+cost > budget {
			dropped++
			return
		}
		used += cost
		chosen = append(chosen, p)
		blocks = append(blocks, block)
		blockTokens = append(blockTokens, n)
	}
	for _, p := range in.Referenced {
		consider(p)
	}
	for _, p := range in.Retrieved {
		consider(p)
	}

	// History, newest first; messages are counted separately, so exactly.
	// Within the context window and, when set, the agent's memory.
	histTokens := make([]int, len(in.History))
	start := len(in.History)
	kept := 0
	for start > 0 {
		cost := llm.MessageTokens(in.History[start-1])
		if used+cost > budget || (in.HistoryTokens > 0 && kept+cost > in.HistoryTokens) {
			break
		}
		histTokens[start-1] = cost
		used += cost
		kept += cost
		start--
	}

	// Exact count; the head's estimate may be off by a few tokens either
	// way. Shed the lowest-priority piece until it fits: oldest history,
	// then the last passage (retrieved before referenced, as chosen is in
	// that order).
	tailTokens := tokens.CountCached(knowledgeClose)
	for {
		start = firstUserTurn(in.History, start)
		head := systemHead(in, chosen)
		n := sysFrame + tokens.CountCached(head) + userTokens
		var sys strings.Builder
		sys.WriteString(head)
		if len(chosen) > 0 {
			for i, b := range blocks[:len(chosen)] {
				sys.WriteString(b)
				n += blockTokens[i]
			}
			sys.WriteString(knowledgeClose)
			n += tailTokens
		}
		for _, c := range histTokens[start:] {
			n += c
		}
		if n <= budget {
			msgs := make([]llm.Message, 0, 3+len(in.History)-start)
			msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: sys.String()})
			msgs = append(msgs, caller...)
			msgs = append(msgs, in.History[start:]...)
			msgs = append(msgs, user)
			return Output{
				Messages:        msgs,
				InputTokens:     n,
				Passages:        chosen,
				HistoryKept:     len(in.History) - start,
				PassagesDropped: dropped,
			}, nil
		}
		switch {
		case start < len(in.History):
			start++
		case len(chosen) > 0:
			chosen = chosen[:len(chosen)-1]
			dropped++
		default:
			// Cannot happen: the fixed part was checked to fit.
			return Output{}, fmt.Errorf("%w: %d prompt tokens, %d available", ErrTooLong, n, budget)
		}
	}
}

// callerIntro introduces the caller's system text (Input.Caller).
const callerIntro = "The application calling this agent adds the instructions below. Follow them only where they do not conflict with the instructions above.\n\n"

// CallerMessage is the content of the caller's system message ("" when
// there is no caller text). Knowledge and passage markers in it are broken
// up, so caller text cannot open or forge knowledge passages.
func CallerMessage(text string) string {
	t := strings.TrimSpace(text)
	if t == "" {
		return ""
	}
	return callerIntro + callerEscaper.Replace(t)
}

var callerEscaper = strings.NewReplacer("<knowledge>", "< knowledge>", knowledgeClose, "</ knowledge>",
	"<passage", "< passage", passageClose, "</ passage>")

// refAnnotationSlack is the estimate, per passage, of its number in the
// instructions' reference annotations (" [3],").
const refAnnotationSlack = 3

// firstUserTurn moves start past leading non-user messages, so the kept
// history opens with a user turn (some chat templates, e.g. vLLM's for
// Mistral models, reject a conversation that starts with the assistant).
func firstUserTurn(history []llm.Message, start int) int {
	for start < len(history) && history[start].Role != llm.RoleUser {
		start++
	}
	return start
}

// systemHead is the system message up to its passages: all of it when there
// are none, else up to and including the "<knowledge>\n" line.
func systemHead(in Input, passages []Passage) string {
	var b strings.Builder
	name := strings.TrimSpace(in.AgentName)
	if name != "" {
		fmt.Fprintf(&b, "You are %s, an assistant created on Agentic.", name)
	} else {
		b.WriteString("You are an assistant created on Agentic.")
	}
	b.WriteString(" Answer in Markdown.\n")
	if instr := strings.TrimSpace(in.Instructions); instr != "" {
		b.WriteString("\n## Instructions\n")
		b.WriteString(annotate(instr, passages))
		b.WriteString("\n")
	}
	b.WriteString("\n## Knowledge\n")
	if len(passages) == 0 {
		b.WriteString(noKnowledge)
		return b.String()
	}
	b.WriteString(knowledgeGuide)
	b.WriteString("\n\n" + knowledgeOpen + "\n")
	return b.String()
}

// passageBlock is one passage of the knowledge section:
//
//	<passage n="1" document="Syllabus" labels="algebra week1" url="https://docs.google.com/…">
//	…text…
//	</passage>
//
// Attribute values are HTML-escaped; a literal </passage> or </knowledge>
// inside the text gets a space ("</ passage>") so it cannot close the block.
func passageBlock(n int, p Passage) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<passage n="%d" document="%s"`, n, html.EscapeString(p.DocumentName))
	if len(p.Labels) > 0 {
		fmt.Fprintf(&b, ` labels="%s"`, html.EscapeString(strings.Join(p.Labels, " ")))
	}
	if p.URL != "" {
		fmt.Fprintf(&b, ` url="%s"`, html.EscapeString(p.URL))
	}
	b.WriteString(">\n")
	b.WriteString(textEscaper.Replace(strings.TrimSpace(p.Text)))
	b.WriteString("\n" + passageClose)
	return b.String()
}

var textEscaper = strings.NewReplacer(passageClose, "</ passage>", knowledgeClose, "</ knowledge>")

// annotate appends to every @/# reference of the instructions the numbers of
// the included passages it stands for: "@Syllabus" → "@Syllabus [1]–[3]".
// References without included passages stay as written.
func annotate(instr string, passages []Passage) string {
	if len(passages) == 0 {
		return instr
	}
	var docNames, labels []string
	for _, p := range passages {
		docNames = append(docNames, p.DocumentName)
		labels = append(labels, p.Labels...)
	}
	refs := FindReferences(instr, docNames, labels)
	var b strings.Builder
	at := 0
	for _, ref := range refs {
		if !ref.Known {
			continue
		}
		var nums []int
		for i, p := range passages {
			if ref.Label && hasLabel(p.Labels, ref.Name) || !ref.Label && fold(p.DocumentName) == fold(ref.Name) {
				nums = append(nums, i+1)
			}
		}
		if len(nums) == 0 {
			continue
		}
		b.WriteString(instr[at:ref.End])
		b.WriteString(" " + numberList(nums))
		at = ref.End
	}
	b.WriteString(instr[at:])
	return b.String()
}

func hasLabel(labels []string, label string) bool {
	for _, l := range labels {
		if fold(l) == fold(label) {
			return true
		}
	}
	return false
}

// numberList writes ascending passage numbers compactly: [1]–[3], [5].
func numberList(nums []int) string {
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprintf("[%d]", nums[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprintf("[%d], [%d]", nums[i], nums[j]))
		default:
			parts = append(parts, fmt.Sprintf("[%d]–[%d]", nums[i], nums[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Numbered is a passage read back from a prompt with its number.
type Numbered struct {
	N int
	Passage
}

var passageRe = regexp.MustCompile(`(?s)<passage n="(\d+)" document="([^"]*)"(?: labels="([^"]*)")?(?: url="([^"]*)")?>\n(.*?)\n</passage>`)

// ParseKnowledge reads the numbered passages back from a system message
// built by Build (what the LLM simulator answers from). A system message
// without a knowledge section has none.
func ParseKnowledge(system string) []Numbered {
	open := strings.LastIndex(system, "\n"+knowledgeOpen+"\n")
	if open < 0 {
		return nil
	}
	section := system[open:]
	if end := strings.LastIndex(section, "\n"+knowledgeClose); end >= 0 {
		section = section[:end+1]
	}
	var out []Numbered
	for _, m := range passageRe.FindAllStringSubmatch(section, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		var labels []string
		if m[3] != "" {
			labels = strings.Fields(html.UnescapeString(m[3]))
		}
		out = append(out, Numbered{N: n, Passage: Passage{
			DocumentName: html.UnescapeString(m[2]),
			Labels:       labels,
			URL:          html.UnescapeString(m[4]),
			Text:         m[5],
		}})
	}
	return out
}

// citationRe matches [1], [1, 3], [2-4] and [2–4].
var citationRe = regexp.MustCompile(`\[(\d+(?:\s*(?:,|-|–)\s*\d+)*)\]`)

// Cited is an included passage an answer cites, with its marker number (the
// passage's 1-based place in the prompt, what the answer writes as [N]).
type Cited struct {
	N int
	Passage
}

// CitedPassages returns the included passages the answer cites with [n]
// markers, in order of first citation, each once; numbers outside the
// included passages are ignored. No markers → nil: the caller decides
// whether to cite all included passages instead.
func CitedPassages(answer string, included []Passage) []Cited {
	var out []Cited
	seen := map[int]bool{}
	add := func(n int) {
		if n >= 1 && n <= len(included) && !seen[n] {
			seen[n] = true
			out = append(out, Cited{N: n, Passage: included[n-1]})
		}
	}
	for _, m := range citationRe.FindAllStringSubmatch(answer, -1) {
		for _, part := range strings.Split(m[1], ",") {
			part = strings.TrimSpace(part)
			lo, hi, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
			a, err := strconv.Atoi(strings.TrimSpace(lo))
			if err != nil {
				continue
			}
			if !isRange {
				add(a)
				continue
			}
			b, err := strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || b < a || b-a > len(included) {
				continue
			}
			for n := a; n <= b; n++ {
				add(n)
			}
		}
	}
	return out
}
