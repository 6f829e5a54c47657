// Command eventsadmin inspects and re-drives a service's event tables: the
// consumer's parked messages and the relay's given-up outbox rows.
//
//	eventsadmin [-database-url URL] parked list   [-group g] [-id id] [-limit n]
//	eventsadmin [-database-url URL] parked replay (-group g | -id id | -all)
//	eventsadmin [-database-url URL] parked drop   -group g -id id
//	eventsadmin [-database-url URL] outbox failed [-limit n]
//	eventsadmin [-database-url URL] outbox retry  (-id n | -all)
//
// -database-url defaults to $DATABASE_URL: the service's own database.
// "parked replay" only marks the messages: the service's running consumer of
// each message's group applies them within a few seconds (ReplayInterval),
// once (processed_events still deduplicates), and removes them from
// parked_events; one that fails again stays parked with the new error.
// "outbox retry" re-queues given-up rows; the relay sends them on its next
// round.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/events"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "eventsadmin:", err)
		os.Exit(2)
	}
}

const usage = `usage:
  eventsadmin [-database-url URL] parked list   [-group g] [-id id] [-limit n]
  eventsadmin [-database-url URL] parked replay (-group g | -id id | -all)
  eventsadmin [-database-url URL] parked drop   -group g -id id
  eventsadmin [-database-url URL] outbox failed [-limit n]
  eventsadmin [-database-url URL] outbox retry  (-id n | -all)`

func run(ctx context.Context, args []string, out io.Writer) error {
	global := flag.NewFlagSet("eventsadmin", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	dbURL := global.String("database-url", os.Getenv("DATABASE_URL"), "the service's database (default $DATABASE_URL)")
	if err := global.Parse(args); err != nil {
		return fmt.Errorf("%w\n%s", err, usage)
	}
	rest := global.Args()
	if len(rest) < 2 {
		return errors.New(usage)
	}
	if *dbURL == "" {
		return errors.New("-database-url or DATABASE_URL is required")
	}
	cmd := rest[0] + " " + rest[1]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	group := fs.String("group", "", "consumer group")
	id := fs.String("id", "", "event id (parked) or outbox row id (outbox)")
	limit := fs.Int("limit", 100, "rows to list")
	all := fs.Bool("all", false, "every row")
	if err := fs.Parse(rest[2:]); err != nil {
		return fmt.Errorf("%s: %w\n%s", cmd, err, usage)
	}

	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()

	switch cmd {
	case "parked list":
		rows, err := events.ListParked(ctx, pool, events.ParkedFilter{Group: *group, EventID: *id, Limit: *limit})
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "GROUP\tEVENT ID\tTYPE\tTOPIC/PARTITION/OFFSET\tPARKED AT\tATTEMPTS\tREASON\tREPLAY\tERROR")
		for _, p := range rows {
			replay := "-"
			if p.ReplayRequestedAt != nil {
				replay = "requested " + p.ReplayRequestedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%d/%d\t%s\t%d\t%s\t%s\t%s\n", p.Group, p.EventID, p.Type, p.Topic, p.Partition, p.Offset,
				p.ParkedAt.UTC().Format(time.RFC3339), p.Attempts, p.Reason, replay, oneLine(p.Error))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d parked\n", len(rows))
	case "parked replay":
		if *group == "" && *id == "" && !*all {
			return errors.New("parked replay: give -group, -id or -all")
		}
		n, err := events.RequestReplay(ctx, pool, events.ParkedFilter{Group: *group, EventID: *id})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d parked event(s) marked for replay; the running consumer of each group applies them\n", n)
	case "parked drop":
		n, err := events.DropParked(ctx, pool, *group, *id)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d parked event(s) dropped\n", n)
	case "outbox failed":
		rows, err := events.ListFailedOutbox(ctx, pool, *limit)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEVENT ID\tTYPE\tTOPIC\tKEY\tFAILED AT\tATTEMPTS\tLAST ERROR")
		for _, f := range rows {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", f.ID, f.EventID, f.Type, f.Topic, f.Key,
				f.FailedAt.UTC().Format(time.RFC3339), f.Attempts, oneLine(f.LastError))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d failed\n", len(rows))
	case "outbox retry":
		var rowID int64
		switch {
		case *id != "":
			if _, err := fmt.Sscan(*id, &rowID); err != nil || rowID <= 0 {
				return fmt.Errorf("outbox retry: -id must be an outbox row id, got %q", *id)
			}
		case !*all:
			return errors.New("outbox retry: give -id or -all")
		}
		n, err := events.RetryFailedOutbox(ctx, pool, rowID)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d outbox row(s) re-queued\n", n)
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
