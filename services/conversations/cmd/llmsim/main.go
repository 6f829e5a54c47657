// Command llmsim runs the development LLM simulator (see
// services/conversations/internal/llmsim and docs/llm.md): an
// OpenAI-compatible Chat Completions API answering from the prompt's
// passages, with exact usage and fault injection. Never deploy it.
//
//	LLM_SIM_ADDR     listen address (default 127.0.0.1:8112); clients use
//	                 LLM_BASE_URL=http://127.0.0.1:8112/v1, LLM_MODEL=agentic-sim
//	LLM_SIM_API_KEY  if set, the only API key accepted
package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/observability"
)

func main() {
	logger := observability.NewLogger("llmsim")
	addr := config.String("LLM_SIM_ADDR", llmsim.DefaultAddr)
	sim := llmsim.New(llmsim.Config{
		APIKey: config.String("LLM_SIM_API_KEY", ""),
		Logger: logger,
	})
	// No WriteTimeout: streams with injected latency last as long as they last.
	srv := &http.Server{Addr: addr, Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	logger.Info("LLM simulator listening", "addr", addr, "base_url", "http://"+addr+"/v1", "model", llmsim.Model)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("LLM simulator failed", "error", err)
		os.Exit(1)
	}
}
