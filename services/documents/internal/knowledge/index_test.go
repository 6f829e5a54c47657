package knowledge_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

const (
	agent = "01900000-0000-7000-8000-00000000000a"
	other = "01900000-0000-7000-8000-00000000000b"
)

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "knowledge")
	if err := database.Migrate(context.Background(), pool, documents.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	return pool
}

// addDoc inserts a document row and indexes text for it.
func addDoc(t *testing.T, pool *pgxpool.Pool, agentID, name string, labels []string, text string, cfg knowledge.ChunkConfig) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	ctx := context.Background()
	if labels == nil {
		labels = []string{}
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id, labels)
			VALUES ($1, $2, 'alice', $3, $4, $5, $6)`, id, agentID, name,
			"https://docs.google.com/document/d/1"+strings.Repeat("x", 30)+"/edit", "1"+strings.Repeat("x", 30), labels); err != nil {
			return err
		}
		return knowledge.ReplaceChunks(ctx, tx, agentID, id, knowledge.Split(text, cfg))
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

const syllabus = `CS101 Introduction to Programming

Course Description
This course introduces programming in Python. Students write small programs every week and a final project.

Grading Policy
Your final grade is computed from the weekly homework (40%), the midterm exam (25%) and the final exam (35%). Grades are posted on the course website within one week.

Late Work
Homework submitted after the deadline loses ten percent per day. Submissions more than five days late receive no credit unless you have a documented emergency.

Office Hours
The instructor holds office hours on Tuesdays from 2 to 4 pm in room 101. Teaching assistants are available in the lab on Thursdays.
`

const faq = `Product FAQ

How do I reset my password?
Open the settings page, choose Security and follow the reset link sent to your e-mail address.

Can I export my data?
Yes. The export button on the account page produces a ZIP archive of all your projects.
`

// small chunks: every section of the test texts is its own chunk.
var small = knowledge.ChunkConfig{MinTokens: 20, MaxTokens: 60, OverlapTokens: -1}

func TestSearch(t *testing.T) {
	pool := newPool(t)
	ix := knowledge.NewIndex(pool)
	ctx := context.Background()
	syl := addDoc(t, pool, agent, "Syllabus", []string{"course"}, syllabus, small)
	fq := addDoc(t, pool, agent, "FAQ", []string{"faq", "support"}, faq, small)
	// Another agent's document about grading: never in agent's answers.
	addDoc(t, pool, other, "OtherSyllabus", nil, "Grading Policy\nThe grading policy of another agent: grades are pass or fail.", small)

	search := func(q knowledge.Query) []knowledge.Passage {
		t.Helper()
		if q.AgentID == "" {
			q.AgentID = agent
		}
		ps, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatalf("search %q: %v", q.Text, err)
		}
		for _, p := range ps {
			if p.DocumentID != syl && p.DocumentID != fq {
				t.Fatalf("search %q returned another agent's passage %+v", q.Text, p)
			}
		}
		return ps
	}

	// A natural question: every word of it is in the grading section.
	ps := search(knowledge.Query{Text: "What is the grading policy?"})
	if len(ps) == 0 || !strings.HasPrefix(ps[0].Text, "Grading Policy") || ps[0].DocumentName != "Syllabus" ||
		fmt.Sprint(ps[0].Labels) != "[course]" || ps[0].Score <= 0 || !strings.Contains(ps[0].URL, "docs.google.com") {
		t.Fatalf("grading policy: %+v", ps)
	}
	// Offsets point into the document's text.
	if got := string([]rune(syllabus)[ps[0].Start:ps[0].End]); got != ps[0].Text || ps[0].Tokens != tokens.Count(got) {
		t.Fatalf("offsets [%d,%d) give %q", ps[0].Start, ps[0].End, got)
	}
	// No passage has every word: "at least two words" finds the late-work rule
	// ahead of passages sharing one word with the question.
	ps = search(knowledge.Query{Text: "How are late homework submissions penalized by the teacher?"})
	if len(ps) == 0 || !strings.HasPrefix(ps[0].Text, "Late Work") {
		t.Fatalf("late homework: %+v", ps)
	}
	// Only one word can match: the OR stage still answers.
	ps = search(knowledge.Query{Text: "Where is the lab for zebra giraffe?"})
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Text, "Office Hours") {
		t.Fatalf("one word: %+v", ps)
	}
	// Typed search syntax: phrases and exclusions.
	// The only "final exam" passage mentions homework: the relaxed stages
	// widen the words but keep the exclusion.
	ps = search(knowledge.Query{Text: `"final exam" -homework`})
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Text, "CS101") {
		t.Fatalf("excluded word: %+v", ps)
	}
	if ps = search(knowledge.Query{Text: `"office hours"`}); len(ps) != 1 || !strings.HasPrefix(ps[0].Text, "Office Hours") {
		t.Fatalf("phrase: %+v", ps)
	}
	// Nothing searchable, nothing found.
	for _, q := range []string{"", "   ", "what is the", "zebra giraffe", "!!!"} {
		if ps := search(knowledge.Query{Text: q}); len(ps) != 0 {
			t.Fatalf("%q: %+v", q, ps)
		}
	}
	// Filters: labels, document ids, either; unknown ones find nothing.
	if ps = search(knowledge.Query{Text: "password reset export data grading", Labels: []string{"support"}}); len(ps) == 0 {
		t.Fatal("label filter found nothing")
	}
	for _, p := range ps {
		if p.DocumentID != fq {
			t.Fatalf("label filter returned %s", p.DocumentName)
		}
	}
	for _, p := range search(knowledge.Query{Text: "password grading", DocumentIDs: []string{strings.ToUpper(syl), "junk"}}) {
		if p.DocumentID != syl {
			t.Fatalf("document filter returned %s", p.DocumentName)
		}
	}
	both := search(knowledge.Query{Text: "password grading", DocumentIDs: []string{syl}, Labels: []string{"faq"}, Limit: 50})
	names := map[string]bool{}
	for _, p := range both {
		names[p.DocumentName] = true
	}
	if !names["Syllabus"] || !names["FAQ"] {
		t.Fatalf("document or label: %v", names)
	}
	if ps = search(knowledge.Query{Text: "grading", Labels: []string{"nope"}}); len(ps) != 0 {
		t.Fatalf("unknown label: %+v", ps)
	}
	if ps = search(knowledge.Query{Text: "grading", DocumentIDs: []string{uuid.NewString()}}); len(ps) != 0 {
		t.Fatalf("unknown document: %+v", ps)
	}
	// Limit and token budget.
	all := search(knowledge.Query{Text: "course or password or office or late or grade or export", Limit: 50})
	if len(all) < 4 {
		t.Fatalf("broad query: %d passages", len(all))
	}
	if ps = search(knowledge.Query{Text: "course or password or office or late or grade or export", Limit: 2}); len(ps) != 2 {
		t.Fatalf("limit 2: %d", len(ps))
	}
	budget := all[0].Tokens + all[1].Tokens
	if ps = search(knowledge.Query{Text: "course or password or office or late or grade or export", Limit: 50, TokenBudget: budget}); len(ps) != 2 {
		t.Fatalf("budget %d: %d passages", budget, len(ps))
	}
	ps = search(knowledge.Query{Text: "course or password or office or late or grade or export", TokenBudget: 5})
	if len(ps) != 1 || ps[0].Tokens > 5 || ps[0].Tokens == 0 || !strings.HasPrefix(all[0].Text, ps[0].Text) ||
		ps[0].End != ps[0].Start+knowledge.RuneLen(ps[0].Text) {
		t.Fatalf("tiny budget: %+v", ps)
	}
	// Agents: empty is an error, unknown finds nothing.
	if _, err := ix.Search(ctx, knowledge.Query{Text: "grading"}); err == nil {
		t.Fatal("no agent: no error")
	}
	if ps, err := ix.Search(ctx, knowledge.Query{AgentID: "not-a-uuid", Text: "grading"}); err != nil || len(ps) != 0 {
		t.Fatalf("bad agent: %v %v", ps, err)
	}
}

func TestGetPassages(t *testing.T) {
	pool := newPool(t)
	ix := knowledge.NewIndex(pool)
	ctx := context.Background()
	overlapping := knowledge.ChunkConfig{MinTokens: 20, MaxTokens: 40, OverlapTokens: 15}
	long := strings.Repeat("Students must submit each assignment on time. Late work loses points. ", 20)
	a := addDoc(t, pool, agent, "Long", nil, long, overlapping)
	b := addDoc(t, pool, agent, "FAQ", nil, faq, small)
	foreign := addDoc(t, pool, other, "Foreign", nil, syllabus, small)

	ps, err := ix.GetPassages(ctx, agent, []string{b, a, foreign, "junk", a}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// FAQ first (as asked), then Long; the foreign and junk ids skipped.
	var faqText, longText strings.Builder
	prevEnd := map[string]int{}
	for _, p := range ps {
		switch p.DocumentID {
		case b:
			if longText.Len() > 0 {
				t.Fatal("documents not in the order asked")
			}
			faqText.WriteString(p.Text + "\n")
		case a:
			longText.WriteString(p.Text + " ")
		default:
			t.Fatalf("passage of %s", p.DocumentName)
		}
		// Without overlap: each passage starts at or after the previous end.
		if p.Start < prevEnd[p.DocumentID] {
			t.Fatalf("passage [%d,%d) overlaps the previous (end %d)", p.Start, p.End, prevEnd[p.DocumentID])
		}
		prevEnd[p.DocumentID] = p.End
		runes := []rune(long)
		if p.DocumentID == a && string(runes[p.Start:p.End]) != p.Text {
			t.Fatalf("offsets [%d,%d) do not give the text %q", p.Start, p.End, p.Text)
		}
	}
	// The whole text, once: the same words as the document.
	if strings.Join(strings.Fields(longText.String()), " ") != strings.Join(strings.Fields(long), " ") {
		t.Fatalf("Long rebuilt as\n%s", longText.String())
	}
	if strings.Join(strings.Fields(faqText.String()), " ") != strings.Join(strings.Fields(faq), " ") {
		t.Fatalf("FAQ rebuilt as\n%s", faqText.String())
	}
	// Budget cuts the list.
	cut, _ := ix.GetPassages(ctx, agent, []string{a}, 60)
	sum := 0
	for _, p := range cut {
		sum += p.Tokens
	}
	if len(cut) == 0 || sum > 60 {
		t.Fatalf("budget 60: %d passages, %d tokens", len(cut), sum)
	}
	if _, err := ix.GetPassages(ctx, "", []string{a}, 0); err == nil {
		t.Fatal("no agent: no error")
	}
	checkLexemeCounts(t, pool)
	// Removing a document's chunks takes them out of the counts.
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return knowledge.RemoveChunks(ctx, tx, agent, a) }); err != nil {
		t.Fatal(err)
	}
	checkLexemeCounts(t, pool)
	if ps, _ := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "assignment late"}); len(ps) != 0 {
		t.Fatalf("removed chunks found: %+v", ps)
	}
}

// A document re-indexed again and again while searches run: every search
// sees one whole version (all its chunks, none of the other's), never a mix
// and never nothing.
func TestReindexIsAtomicForSearches(t *testing.T) {
	pool := newPool(t)
	ix := knowledge.NewIndex(pool)
	ctx := context.Background()
	cfg := knowledge.ChunkConfig{MinTokens: 20, MaxTokens: 40, OverlapTokens: -1}
	version := func(tag string, paragraphs int) string {
		var b strings.Builder
		for i := 0; i < paragraphs; i++ {
			fmt.Fprintf(&b, "Paragraph %d of version %s explains the shared grading rubric in some detail for students.\n", i, tag)
		}
		return b.String()
	}
	texts := map[string]string{"alpha": version("alpha", 12), "beta": version("beta", 17)}
	counts := map[string]int{}
	for tag, text := range texts {
		counts[tag] = len(knowledge.Split(text, cfg))
	}
	if counts["alpha"] == counts["beta"] || counts["alpha"] < 3 {
		t.Fatalf("chunk counts %v", counts)
	}
	id := addDoc(t, pool, agent, "Rubric", nil, texts["alpha"], cfg)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tags := []string{"beta", "alpha"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tag := tags[i%2]
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				return knowledge.ReplaceChunks(ctx, tx, agent, id, knowledge.Split(texts[tag], cfg))
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	checks := 0
	for time.Now().Before(deadline) {
		for _, get := range []func() ([]knowledge.Passage, error){
			func() ([]knowledge.Passage, error) {
				return ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "grading rubric", Limit: 50})
			},
			func() ([]knowledge.Passage, error) { return ix.GetPassages(ctx, agent, []string{id}, 0) },
		} {
			ps, err := get()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, p := range ps {
				for tag := range texts {
					if strings.Contains(p.Text, "version "+tag) {
						seen[tag]++
					}
				}
			}
			if len(seen) != 1 {
				t.Fatalf("check %d saw %v (%d passages)", checks, seen, len(ps))
			}
			for tag, n := range seen {
				if n != counts[tag] {
					t.Fatalf("check %d saw %d of %d %s chunks", checks, n, counts[tag], tag)
				}
			}
			checks++
		}
	}
	close(stop)
	wg.Wait()
	if checks < 20 {
		t.Fatalf("only %d checks", checks)
	}
	checkLexemeCounts(t, pool)
}

// checkLexemeCounts compares agent_lexemes with counts taken from the chunks.
func checkLexemeCounts(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	var diff int
	err := pool.QueryRow(context.Background(), `
		WITH real AS (
			SELECT c.agent_id, l.lexeme, count(*)::int AS n FROM document_chunks c, unnest(c.tsv) AS l GROUP BY 1, 2
			UNION ALL SELECT agent_id, '', count(*)::int FROM document_chunks GROUP BY 1
		), kept AS (
			SELECT agent_id, lexeme, chunks AS n FROM agent_lexemes WHERE chunks > 0
		)
		SELECT count(*) FROM (SELECT * FROM real EXCEPT SELECT * FROM kept UNION ALL (SELECT * FROM kept EXCEPT SELECT * FROM real)) d`).Scan(&diff)
	if err != nil || diff != 0 {
		t.Fatalf("lexeme counts differ from the chunks in %d rows (%v)", diff, err)
	}
}

// Documents of one agent re-indexed concurrently (overlapping words, as
// every sync of an agent's documents): no deadlock, and the lexeme counts
// stay exact.
func TestConcurrentReindexKeepsCounts(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	cfg := knowledge.ChunkConfig{MinTokens: 20, MaxTokens: 40, OverlapTokens: -1}
	var ids []string
	for i := 0; i < 4; i++ {
		ids = append(ids, addDoc(t, pool, agent, fmt.Sprintf("Doc%d", i), nil, syllabus, cfg))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 15; k++ {
				text := syllabus
				if (i+k)%2 == 0 {
					text = faq + fmt.Sprintf("\nVersion %d of document %d adds words like rubric%d.\n", k, i, k)
				}
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					return knowledge.ReplaceChunks(ctx, tx, agent, id, knowledge.Split(text, cfg))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkLexemeCounts(t, pool)
}
