// Command drivesim runs the development Google Drive simulator (see
// services/documents/internal/drivesim and docs/documents.md, "Drive
// simulator"). Never deploy it.
//
//	DRIVE_SIM_ADDR  listen address (default 127.0.0.1:8111)
//	DRIVE_SIM_DATA  JSON file the documents persist in (default .data/drivesim.json,
//	                relative to the working directory; set but empty = memory only)
//	DRIVE_SIM_SEED  add the sample documents when the store is empty (default true)
//	DRIVE_SIM_DRIVE_LIKE_EXPORT  export text as Drive does: BOM + CRLF (default false)
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/observability"
)

func main() {
	logger := observability.NewLogger("drivesim")
	addr := config.String("DRIVE_SIM_ADDR", "127.0.0.1:8111")
	// LookupEnv rather than config.String: an empty value is meaningful here
	// (memory only), while config treats empty as unset.
	data, set := os.LookupEnv("DRIVE_SIM_DATA")
	if !set {
		data = ".data/drivesim.json"
	}
	var l config.Loader
	seed := l.Bool("DRIVE_SIM_SEED", true)
	driveLike := l.Bool("DRIVE_SIM_DRIVE_LIKE_EXPORT", false)
	if err := l.Err(); err != nil {
		logger.Error("drive simulator: bad configuration", "error", err)
		os.Exit(2)
	}
	sim, err := drivesim.New(drivesim.Config{DataFile: data, Seed: seed, Logger: logger, DriveLikeExport: driveLike})
	if err != nil {
		logger.Error("drive simulator: cannot load its documents", "error", err)
		os.Exit(1)
	}

	srv := &http.Server{Addr: addr, Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	// Printed (not only logged) so the URLs can be copied into the app's
	// "Add Google Docs Document" dialog straight from the terminal.
	fmt.Printf("Google Drive simulator — development only — http://%s/\n", addr)
	for _, f := range sim.Files() {
		access := "restricted"
		if f.AnyoneWithLink {
			access = "anyone with the link"
		}
		fmt.Printf("  %-45s %s  (%s)\n", f.Title, drivesim.DocsURL(f.ID), access)
	}
	logger.Info("drive simulator listening", "addr", addr, "data", data, "documents", len(sim.Files()))
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("drive simulator failed", "error", err)
		os.Exit(1)
	}
}
