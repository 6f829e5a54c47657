package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Worker is a background job (e.g. the outbox relay). It must return soon
// after its context is cancelled.
type Worker struct {
	Name string
	Run  func(ctx context.Context) error
}

// RunConfig describes what Run serves.
type RunConfig struct {
	Logger *slog.Logger

	// HTTPAddr and HTTPHandler: the public HTTP server (HTTPListener, if set, is used instead of HTTPAddr).
	HTTPAddr     string
	HTTPListener net.Listener
	HTTPHandler  http.Handler

	// GRPCAddr and GRPCServer: the internal gRPC server (optional; GRPCListener overrides GRPCAddr).
	GRPCAddr     string
	GRPCListener net.Listener
	GRPCServer   *grpc.Server
	GRPCHealth   *health.Server

	Workers []Worker

	// ShutdownTimeout bounds the graceful drain (default 10s).
	ShutdownTimeout time.Duration

	// ListenWait is how long a port in use is tried again before Run
	// fails (default ShutdownTimeout + 5s): a restarted process (Tilt
	// starts the new one when it signals the old) waits for its
	// predecessor to drain and let go of the port.
	ListenWait time.Duration

	// Ready, if set, is called once all listeners are open (tests).
	Ready func(httpAddr, grpcAddr net.Addr)
}

// Run serves HTTP and gRPC and runs the workers until ctx is cancelled, the
// process receives SIGINT or SIGTERM, or a component fails. It then shuts
// everything down within ShutdownTimeout: the gRPC health status flips to
// NOT_SERVING, the HTTP server drains, gRPC stops gracefully, and workers are
// cancelled and awaited. It returns the first component error (nil on a
// clean shutdown).
func Run(ctx context.Context, cfg RunConfig) error {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	timeout := cfg.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	listenWait := cfg.ListenWait
	if listenWait <= 0 {
		listenWait = DefaultListenWait(timeout)
	}
	httpLn := cfg.HTTPListener
	if httpLn == nil && cfg.HTTPHandler != nil {
		ln, err := Listen(ctx, logger, cfg.HTTPAddr, listenWait)
		if err != nil {
			return fmt.Errorf("listen http %s: %w", cfg.HTTPAddr, err)
		}
		httpLn = ln
	}
	grpcLn := cfg.GRPCListener
	if grpcLn == nil && cfg.GRPCServer != nil {
		ln, err := Listen(ctx, logger, cfg.GRPCAddr, listenWait)
		if err != nil {
			if httpLn != nil {
				_ = httpLn.Close()
			}
			return fmt.Errorf("listen grpc %s: %w", cfg.GRPCAddr, err)
		}
		grpcLn = ln
	}

	pprofSrv, err := servePprof(logger)
	if err != nil {
		for _, ln := range []net.Listener{httpLn, grpcLn} {
			if ln != nil {
				_ = ln.Close()
			}
		}
		return err
	}
	if pprofSrv != nil {
		defer pprofSrv.Close() // also closed when shutdown starts, below
	}

	// Workers get their own context: they are stopped after the servers have
	// drained, not as soon as the signal arrives.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	errCh := make(chan error, 2+len(cfg.Workers))
	var wg sync.WaitGroup

	var httpSrv *http.Server
	if httpLn != nil {
		httpSrv = &http.Server{
			Handler:           cfg.HTTPHandler,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       120 * time.Second,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			logger.Info("http server listening", "addr", httpLn.Addr().String())
			if err := httpSrv.Serve(httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errCh <- fmt.Errorf("http server: %w", err)
			}
		}()
	}
	if grpcLn != nil && cfg.GRPCServer != nil {
		if cfg.GRPCHealth != nil {
			cfg.GRPCHealth.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			logger.Info("grpc server listening", "addr", grpcLn.Addr().String())
			if err := cfg.GRPCServer.Serve(grpcLn); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
				errCh <- fmt.Errorf("grpc server: %w", err)
			}
		}()
	}
	var workers sync.WaitGroup
	for _, w := range cfg.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			if err := w.Run(runCtx); err != nil && runCtx.Err() == nil {
				errCh <- fmt.Errorf("worker %s: %w", w.Name, err)
			}
		}()
	}
	if cfg.Ready != nil {
		var ha, ga net.Addr
		if httpLn != nil {
			ha = httpLn.Addr()
		}
		if grpcLn != nil {
			ga = grpcLn.Addr()
		}
		cfg.Ready(ha, ga)
	}

	var runErr error
	select {
	case <-ctx.Done():
		logger.Info("shutting down", "reason", context.Cause(ctx))
	case runErr = <-errCh:
		logger.Error("component failed, shutting down", "error", runErr)
	}

	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), timeout)
	defer cancelShutdown()

	if cfg.GRPCHealth != nil {
		cfg.GRPCHealth.Shutdown() // NOT_SERVING for every service
	}
	if pprofSrv != nil {
		// Its port is free again at once, as the HTTP server's is: a
		// replacement process (Tilt, a rolling update) binds it while this
		// one drains.
		_ = pprofSrv.Close()
	}
	if httpSrv != nil {
		if err := httpSrv.Shutdown(shutdownCtx); err != nil {
			logger.Warn("http shutdown incomplete", "error", err)
			_ = httpSrv.Close()
		}
	}
	if cfg.GRPCServer != nil && grpcLn != nil {
		done := make(chan struct{})
		go func() { cfg.GRPCServer.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-shutdownCtx.Done():
			logger.Warn("grpc graceful stop timed out; forcing")
			cfg.GRPCServer.Stop()
		}
	}
	cancel() // stop workers after the servers no longer accept work
	workersDone := make(chan struct{})
	go func() { workers.Wait(); close(workersDone) }()
	select {
	case <-workersDone:
	case <-shutdownCtx.Done():
		logger.Warn("workers did not stop within the shutdown timeout")
	}
	wg.Wait()
	logger.Info("shutdown complete")
	return runErr
}

// DefaultListenWait is how long a port in use is waited for by a process
// whose predecessor drains for up to shutdownTimeout.
func DefaultListenWait(shutdownTimeout time.Duration) time.Duration {
	return shutdownTimeout + 5*time.Second
}

// Listen opens a TCP listener on addr. A port in use is tried again every
// 100 ms for up to wait, because on a restart the old process may still be
// draining and hold it for a few seconds; any other error is returned at
// once. Run uses it for its listeners; a service's other listeners (mail's
// SMTP) should too.
func Listen(ctx context.Context, logger *slog.Logger, addr string, wait time.Duration) (net.Listener, error) {
	deadline := time.Now().Add(wait)
	logged := false
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return ln, err
		}
		if !logged {
			logger.Warn("address in use, waiting for it to be released", "addr", addr, "wait", wait.String())
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
