package users

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/agentic-app/agentic/services/platform/events"
)

// fakeStore is an in-memory Store that records enqueued events.
type fakeStore struct {
	mu     sync.Mutex
	users  map[string]User
	events []events.Event
}

func newFakeStore() *fakeStore { return &fakeStore{users: map[string]User{}} }

func (f *fakeStore) Mutate(_ context.Context, uid string, fn MutateFunc) (User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.users[uid]
	if !ok {
		cur = User{UID: uid, CreatedAt: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	}
	next, evs, err := fn(cur, !ok)
	if err != nil {
		return User{}, err
	}
	next.UID, next.CreatedAt = uid, cur.CreatedAt
	f.users[uid] = next
	f.events = append(f.events, evs...)
	return next, nil
}

func (f *fakeStore) Get(_ context.Context, uid string) (User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u, ok := f.users[uid]
	if !ok {
		return User{}, ErrNotFound
	}
	return u, nil
}

func (f *fakeStore) GetMany(_ context.Context, uids []string) ([]User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []User{}
	for _, id := range uids {
		if u, ok := f.users[id]; ok {
			out = append(out, u)
		}
	}
	return out, nil
}

func (f *fakeStore) FindByEmails(_ context.Context, emails []string) ([]User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []User{}
	for _, e := range emails {
		for _, u := range f.users {
			if strings.EqualFold(u.Email, e) {
				out = append(out, u)
			}
		}
	}
	return out, nil
}

func (f *fakeStore) Delete(_ context.Context, uid string, fn func(User) []events.Event) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u, ok := f.users[uid]
	if !ok {
		return false, nil
	}
	delete(f.users, uid)
	f.events = append(f.events, fn(u)...)
	return true, nil
}

func (f *fakeStore) eventTypes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		out = append(out, e.Type)
	}
	return out
}
