package conversations

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Library bounds (GET /api/library).
const (
	// MaxLibraryAgents is the most agents the Library shows.
	MaxLibraryAgents = 20
	// MaxLibraryConversations is the most conversations shown per agent.
	MaxLibraryConversations = 5
	// libraryLookups bounds the concurrent catalog look-ups of one Library.
	libraryLookups = 8
)

// LibraryAgent is an agent of the caller's Library: an agent they talked to
// from the marketplace (as a consumer), with their latest conversations.
// Agent holds what the catalog says now (Listed false once it is no longer
// in the marketplace; only ID when the catalog no longer knows it).
type LibraryAgent struct {
	Agent          Agent
	LastActivityAt time.Time
	Conversations  []Conversation
}

// Library returns the agents the caller has consumer conversations with
// (conversations created while their access was AccessConsumer), most
// recent activity first: at most MaxLibraryAgents agents with at most
// MaxLibraryConversations conversations each. An agent no longer listed is
// still returned (Listed false): its conversations stay readable
// (GetConversation needs no current access).
func (s *Service) Library(ctx context.Context, uid string) ([]LibraryAgent, error) {
	if uid == "" {
		return nil, ErrAgentNotFound
	}
	entries, err := s.store.Library(ctx, uid, MaxLibraryAgents, MaxLibraryConversations)
	if err != nil {
		return nil, err
	}
	out := make([]LibraryAgent, len(entries))
	if len(entries) == 0 {
		return out, nil
	}
	if s.agents == nil {
		return nil, ErrCatalogUnavailable
	}
	errs := make([]error, len(entries))
	sem := make(chan struct{}, libraryLookups)
	var wg sync.WaitGroup
	for i, e := range entries {
		out[i] = LibraryAgent{Agent: Agent{ID: e.AgentID}, LastActivityAt: e.LastActivityAt, Conversations: e.Conversations}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a, err := s.agents.GetAgent(ctx, e.AgentID)
			switch {
			case errors.Is(err, ErrAgentNotFound):
				// Deleted: shown by id only, not listed.
			case err != nil:
				errs[i] = err
			default:
				a.ID = e.AgentID
				out[i].Agent = a
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(ErrCatalogUnavailable, err)
	}
	return out, nil
}
