package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// api is the shared client of the gateway and the Auth emulator plus what
// only this bench does (documents, conversations, SSE messages, cleanup).
type api struct {
	*benchstack.API
	project string
	linkMu  sync.Mutex
	linked  []linked
}

// account is one signed-up user.
type account struct {
	benchstack.Account
	// chat state (one goroutine at a time)
	conv   string
	turns  int
	window int64
	used   int
}

// signUp creates an e-mail account on the Auth emulator and onboards it
// through the gateway.
func (a *api) signUp(ctx context.Context, prefix string) (*account, error) {
	acc, err := a.SignUp(ctx, prefix)
	if err != nil {
		return nil, err
	}
	return &account{Account: *acc}, nil
}

func (a *api) createAgent(ctx context.Context, owner *account, name, instructions string) (*benchstack.Agent, error) {
	return a.CreateAgent(ctx, &owner.Account, name, "An agent created by bench/conversations to measure chat answers.", instructions)
}

type document struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	SharingStatus string  `json:"sharingStatus"`
	SyncState     string  `json:"syncState"`
	SyncError     *string `json:"syncError"`
	TokenCount    *int    `json:"tokenCount"`
}

// linkDocument links a Drive-simulator document and waits until it is indexed.
func (a *api) linkDocument(ctx context.Context, owner *account, agentID, name, url string, wait time.Duration) error {
	var d document
	if err := a.DoRetry(ctx, http.MethodPost, a.Base+"/api/agents/"+agentID+"/documents", owner.Token,
		map[string]any{"name": name, "url": url, "labels": []string{}, "sharingStatus": "shared"}, &d); err != nil {
		return fmt.Errorf("link document: %w", err)
	}
	a.remember(linked{acc: owner, agentID: agentID, docID: d.ID})
	deadline := time.Now().Add(wait)
	for {
		var docs []document
		if err := a.DoRetry(ctx, http.MethodGet, a.Base+"/api/agents/"+agentID+"/documents", owner.Token, nil, &docs); err != nil {
			return err
		}
		for _, x := range docs {
			if x.ID == d.ID && x.SyncState == "synced" {
				if x.SharingStatus == "shared" && x.TokenCount != nil {
					return nil
				}
				msg := ""
				if x.SyncError != nil {
					msg = *x.SyncError
				}
				return fmt.Errorf("document %s not readable: %s %s", name, x.SharingStatus, msg)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("document %s not synced after %s", name, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// invite adds sub as an (active) subscriber of the owner's agent.
func (a *api) invite(ctx context.Context, owner *account, agentID string, sub *account) error {
	var s struct {
		Status string `json:"status"`
	}
	if err := a.DoRetry(ctx, http.MethodPost, a.Base+"/api/agents/"+agentID+"/subscribers", owner.Token,
		map[string]any{"email": sub.Email}, &s); err != nil {
		return fmt.Errorf("invite: %w", err)
	}
	if s.Status == "active" {
		return nil
	}
	// Invited: active once the invitee, with a verified address, visits
	// Shared with me (docs/catalog.md).
	if err := a.VerifyEmail(ctx, &sub.Account); err != nil {
		return err
	}
	deadline := time.Now().Add(a.Wait)
	for time.Now().Before(deadline) {
		var shared []struct {
			ID string `json:"id"`
		}
		if err := a.DoRetry(ctx, http.MethodGet, a.Base+"/api/agents/shared", sub.Token, nil, &shared); err != nil {
			return err
		}
		for _, x := range shared {
			if x.ID == agentID {
				return nil
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("subscriber %s still %q after %s", sub.Email, s.Status, a.Wait)
}

func (a *api) createConversation(ctx context.Context, acc *account, agentID, title string) (string, error) {
	var c struct {
		ID string `json:"id"`
	}
	if err := a.DoRetry(ctx, http.MethodPost, a.Base+"/api/agents/"+agentID+"/conversations", acc.Token,
		map[string]any{"title": title}, &c); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	return c.ID, nil
}

type passage struct {
	DocumentName string   `json:"documentName"`
	Labels       []string `json:"labels"`
	Text         string   `json:"text"`
	URL          string   `json:"url"`
}

func (a *api) search(ctx context.Context, owner *account, agentID, query string, limit int) ([]passage, error) {
	var ps []passage
	err := a.DoRetry(ctx, http.MethodPost, a.Base+"/api/agents/"+agentID+"/knowledge/search", owner.Token,
		map[string]any{"query": query, "limit": limit}, &ps)
	return ps, err
}

// --- wallet over HTTP -------------------------------------------------------

type balance struct {
	Balance, Held, Available float64
}

func (a *api) balance(ctx context.Context, acc *account) (balance, error) {
	var out struct {
		Data balance `json:"data"`
	}
	err := a.Do(ctx, http.MethodGet, a.Base+"/api/user/balance", acc.Token, nil, &out)
	return out.Data, err
}

type txItem struct {
	ID          string  `json:"id"`
	Date        string  `json:"date"`
	Amount      float64 `json:"amount"`
	Type        string  `json:"type"`
	Provider    string  `json:"provider"`
	Description string  `json:"description"`
}

func (t txItem) micros() int64 { return int64(math.Round(t.Amount * 1e6)) }

// transactions reads the whole history (stable paging with the snapshot).
func (a *api) transactions(ctx context.Context, acc *account) ([]txItem, error) {
	var all []txItem
	snapshot := int64(-1)
	for offset := 0; ; {
		url := fmt.Sprintf("%s/api/user/transactions?limit=100&offset=%d", a.Base, offset)
		if snapshot >= 0 {
			url += fmt.Sprintf("&snapshot=%d", snapshot)
		}
		var out struct {
			Data struct {
				Items []txItem `json:"items"`
				Meta  struct {
					HasMore  bool  `json:"hasMore"`
					Snapshot int64 `json:"snapshot"`
				} `json:"meta"`
			} `json:"data"`
		}
		if err := a.DoRetry(ctx, http.MethodGet, url, acc.Token, nil, &out); err != nil {
			return nil, err
		}
		all = append(all, out.Data.Items...)
		snapshot = out.Data.Meta.Snapshot
		offset += len(out.Data.Items)
		if !out.Data.Meta.HasMore || len(out.Data.Items) == 0 {
			return all, nil
		}
	}
}

// --- messages (SSE) ----------------------------------------------------------

type usage struct {
	Model        string `json:"model"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	CostMicros   int64  `json:"costMicros"`
	FeeMicros    int64  `json:"feeMicros"`
	// A consumer's answer of a listed agent (issue 28): the creator's parts.
	MarkupMicros   int64 `json:"markupMicros"`
	GreetingMicros int64 `json:"greetingMicros"`
	TotalMicros    int64 `json:"totalMicros"`
}

// result is one message as the client saw it.
// stageNames are the service's stages before the model, in order
// (conversations_answer_stage_seconds; Server-Timing of each answer).
var stageNames = [...]string{"lookup", "limit", "context", "begin", "reserve"}

type result struct {
	Status    int    // HTTP status (0: transport error)
	Code      string // error code of a refusal, or of the stream's error event
	Message   string
	Sent      time.Time
	TTFT      time.Duration                  // request sent → first delta event
	ModelTTFT time.Duration                  // the model's part of TTFT as the service saw it (Server-Timing "model"; 0: not sent)
	Before    time.Duration                  // the service's own time before the model (Server-Timing "platform")
	Stages    [len(stageNames)]time.Duration // Before by stage (Server-Timing, stageNames)
	Total     time.Duration                  // request sent → end of the stream
	Usage     *usage
	Done      string // assistant message id from the done event
	Citations int
	Text      strings.Builder
	Err       error
}

// outcome is the key errors are counted by.
func (r *result) outcome() string {
	switch {
	case r.Status == 0:
		return "transport error"
	case r.Status == http.StatusOK && r.Done != "":
		return "200 answered"
	case r.Status == http.StatusOK && r.Code != "":
		return "200 stream error: " + r.Code
	case r.Status == http.StatusOK:
		return "200 stream ended without done"
	default:
		return fmt.Sprintf("%d %s", r.Status, r.Code)
	}
}

func (r *result) answered() bool { return r.Status == http.StatusOK && r.Done != "" }

var sseBufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// sendMessage posts one chat message with Accept: text/event-stream and reads
// the stream to its end.
func (a *api) sendMessage(ctx context.Context, acc *account, convID, content, clientID string) *result {
	r := &result{}
	body, _ := json.Marshal(map[string]string{"content": content, "clientMessageId": clientID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Base+"/api/conversations/"+convID+"/messages",
		bytes.NewReader(body))
	if err != nil {
		r.Err = err
		return r
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+acc.Token)
	r.Sent = time.Now()
	resp, err := a.HC.Do(req)
	if err != nil {
		r.Err, r.Total = err, time.Since(r.Sent)
		return r
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		r.Total = time.Since(r.Sent)
		var he benchstack.HTTPError
		if json.Unmarshal(b, &he) == nil && he.Code != "" {
			r.Code, r.Message = he.Code, he.Message
		} else if resp.StatusCode == http.StatusOK {
			r.Code = "not_a_stream"
		} else {
			r.Code = strings.TrimSpace(string(b[:min(len(b), 120)]))
		}
		return r
	}
	if d, ok := benchstack.ServerTiming(resp.Header, "model"); ok {
		r.ModelTTFT = d
	}
	if d, ok := benchstack.ServerTiming(resp.Header, "platform"); ok {
		r.Before = d
	}
	for i, name := range stageNames {
		r.Stages[i], _ = benchstack.ServerTiming(resp.Header, name)
	}
	br := sseBufPool.Get().(*bufio.Reader)
	br.Reset(resp.Body)
	defer func() { br.Reset(nil); sseBufPool.Put(br) }()
	var event string
	var data bytes.Buffer
	for {
		line, err := br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if !errors.Is(err, io.EOF) {
				r.Err = err
			}
			break
		}
		s := strings.TrimRight(string(line), "\r\n")
		switch {
		case s == "":
			if event != "" || data.Len() > 0 {
				a.dispatch(r, event, data.Bytes())
			}
			event = ""
			data.Reset()
		case strings.HasPrefix(s, "event:"):
			event = strings.TrimSpace(s[len("event:"):])
		case strings.HasPrefix(s, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(s[len("data:"):], " "))
		}
	}
	r.Total = time.Since(r.Sent)
	return r
}

func (a *api) dispatch(r *result, event string, data []byte) {
	switch event {
	case "delta":
		if r.TTFT == 0 {
			r.TTFT = time.Since(r.Sent)
		}
		var d struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(data, &d) == nil {
			r.Text.WriteString(d.Text)
		}
	case "citations":
		var c []json.RawMessage
		if json.Unmarshal(data, &c) == nil {
			r.Citations = len(c)
		}
	case "usage":
		var u usage
		if json.Unmarshal(data, &u) == nil {
			r.Usage = &u
		}
	case "done":
		var d struct {
			MessageID string `json:"messageId"`
		}
		_ = json.Unmarshal(data, &d)
		r.Done = d.MessageID
		if r.Done == "" {
			r.Done = "?"
		}
	case "error":
		var e benchstack.HTTPError
		_ = json.Unmarshal(data, &e)
		r.Code, r.Message = e.Code, e.Message
		if r.Code == "" {
			r.Code = "unknown"
		}
	}
}

// conversation reads one conversation with its messages.
type message struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Status string `json:"status"`
	Usage  *usage `json:"usage"`
}

func (a *api) conversation(ctx context.Context, acc *account, id string) ([]message, error) {
	var c struct {
		Messages []message `json:"messages"`
	}
	err := a.DoRetry(ctx, http.MethodGet, a.Base+"/api/conversations/"+id, acc.Token, nil, &c)
	return c.Messages, err
}

// --- cleanup -------------------------------------------------------------------

// A linked document is re-synced every DOCUMENT_SYNC_INTERVAL for as long as
// it stays linked, so the bench unlinks what it linked (the accounts, agents
// and conversations stay: there is no API to delete them).
type linked struct {
	acc            *account
	agentID, docID string
}

func (a *api) remember(l linked) {
	a.linkMu.Lock()
	a.linked = append(a.linked, l)
	a.linkMu.Unlock()
}

// unlinkAll deletes the documents this run linked.
func (a *api) unlinkAll(ctx context.Context) {
	a.linkMu.Lock()
	ls := a.linked
	a.linked = nil
	a.linkMu.Unlock()
	a.unlink(ctx, ls)
}

func (a *api) unlink(ctx context.Context, ls []linked) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for _, l := range ls {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			err := a.DoRetry(ctx, http.MethodDelete, a.Base+"/api/agents/"+l.agentID+"/documents/"+l.docID, l.acc.Token, nil, nil)
			var he *benchstack.HTTPError
			if err != nil && !(errors.As(err, &he) && he.Status == http.StatusNotFound) {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if len(ls) > 0 {
		logf("cleanup: unlinked %d documents (%d failed)", len(ls), failed.Load())
	}
}

// sweep unlinks the documents of every earlier bench owner (e-mails
// owner…/payer…@bench.example.com on the emulator).
func (a *api) sweep(ctx context.Context) error {
	var ls []linked
	page := ""
	for {
		url := a.Emulator + "/identitytoolkit.googleapis.com/v1/projects/" + a.project + "/accounts:batchGet?maxResults=1000"
		if page != "" {
			url += "&nextPageToken=" + page
		}
		var out struct {
			Users []struct {
				Email string `json:"email"`
			} `json:"users"`
			NextPageToken string `json:"nextPageToken"`
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer owner") // the emulator's admin credential
		resp, err := a.HC.Do(req)
		if err != nil {
			return err
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("emulator accounts: %w", err)
		}
		for _, u := range out.Users {
			e := u.Email
			if !strings.HasSuffix(e, "@bench.example.com") || !(strings.HasPrefix(e, "owner") || strings.HasPrefix(e, "payer")) {
				continue
			}
			var s struct {
				IDToken string `json:"idToken"`
				LocalID string `json:"localId"`
			}
			if err := a.DoRetry(ctx, http.MethodPost, fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=%s", a.Emulator, a.APIKey),
				"", map[string]any{"email": e, "password": benchstack.Password, "returnSecureToken": true}, &s); err != nil {
				continue
			}
			acc := &account{Account: benchstack.Account{UID: s.LocalID, Email: e, Token: s.IDToken}}
			var agents []benchstack.Agent
			if err := a.DoRetry(ctx, http.MethodGet, a.Base+"/api/agents", acc.Token, nil, &agents); err != nil {
				continue
			}
			for _, ag := range agents {
				var docs []document
				if err := a.DoRetry(ctx, http.MethodGet, a.Base+"/api/agents/"+ag.ID+"/documents", acc.Token, nil, &docs); err != nil {
					continue
				}
				for _, d := range docs {
					ls = append(ls, linked{acc: acc, agentID: ag.ID, docID: d.ID})
				}
			}
		}
		if out.NextPageToken == "" || len(out.Users) == 0 {
			break
		}
		page = out.NextPageToken
	}
	a.unlink(ctx, ls)
	fmt.Printf("cleanup: %d documents of earlier bench owners unlinked\n", len(ls))
	return nil
}
