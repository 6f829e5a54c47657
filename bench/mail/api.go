package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// createAgent creates one of the bench's agents; it must have an e-mail address.
func createAgent(ctx context.Context, a *benchstack.API, owner *benchstack.Account, name, instructions string) (*benchstack.Agent, error) {
	ag, err := a.CreateAgent(ctx, owner, name, "An agent created by bench/mail to measure e-mail answers.", instructions)
	if err != nil {
		return nil, err
	}
	if ag.Email == "" || !strings.Contains(ag.Email, "@") {
		return nil, fmt.Errorf("create agent: no e-mail address in the answer (agent %s)", ag.ID)
	}
	return ag, nil
}
