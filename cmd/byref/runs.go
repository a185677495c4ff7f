package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// runsCmd is byref runs ls|show.
func runsCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("runs")
	db := fs.String("db", defaultDB(), "")
	limit := fs.Int("limit", 20, "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("say ls or show RUN_ID")
	}
	store, err := openExisting(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	switch pos[0] {
	case "ls", "list":
		runs, _, err := store.List(ctx, run.Query{Limit: *limit})
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			fmt.Fprintf(stdout, "no runs in %s\n", *db)
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tNAME\tTASK\tREASON")
		for _, s := range runs {
			task, err := taskOf(ctx, store, s.ID)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", term(string(s.ID)), s.Status, s.CreatedAt.Local().Format(time.DateTime), term(s.Name), term(clip(task, 50)), term(clip(s.Reason, 50)))
		}
		return tw.Flush()
	case "show":
		if len(pos) != 2 {
			return usagef("say which run: byref runs show RUN_ID (byref runs ls lists them)")
		}
		_, events, err := readRun(ctx, store, pos[1], *db)
		if err != nil {
			return err
		}
		snap := run.Fold(events)
		// Everything from the run goes through term: a run's text may hold
		// escape sequences.
		fmt.Fprintf(stdout, "run      %s\nname     %s\nstatus   %s\n", term(string(snap.RunID)), term(snap.Name), snap.Status)
		if snap.Options.ModelName != "" {
			fmt.Fprintf(stdout, "model    %s\n", term(snap.Options.ModelName))
		}
		if snap.Session != "" {
			fmt.Fprintf(stdout, "session  %s\n", term(string(snap.Session)))
		}
		fmt.Fprintf(stdout, "created  %s\nupdated  %s\n", snap.CreatedAt.Local().Format(time.DateTime), snap.UpdatedAt.Local().Format(time.DateTime))
		if snap.FailureReason != "" {
			fmt.Fprintf(stdout, "failure  %s\n", term(snap.FailureReason))
		}
		if snap.Result != nil {
			fmt.Fprintf(stdout, "result   %s\n", term(string(snap.Result)))
		}
		calls, snippets := callsAndSnippets(snap)
		fmt.Fprintf(stdout, "steps    %d, tool calls %d, snippets %d, tokens %s\n",
			snap.Step, calls, snippets, tokens(snap.Usage))
		if snap.Compactions > 0 {
			fmt.Fprintf(stdout, "context  compacted %d times\n", snap.Compactions)
		}
		for _, v := range snap.Variables {
			fmt.Fprintf(stdout, "var      %s %s = %s\n", term(v.Name), term(v.Type), term(clip(v.Preview, 80)))
		}
		fmt.Fprintln(stdout, "\nevents")
		for _, e := range events {
			if line := describe(e); line != "" {
				fmt.Fprintf(stdout, "%4d %s %s\n", e.Seq, e.Time.Local().Format("15:04:05.000"), strings.ReplaceAll(term(line), "\n", "\n                  "))
			}
		}
		return nil
	}
	return usagef("unknown runs command %q; say ls or show RUN_ID", pos[0])
}

// callsAndSnippets counts a run's tool calls and snippets: a run_go call
// runs a snippet, and counts as one.
func callsAndSnippets(snap run.Snapshot) (calls, snippets int) {
	snippets = len(snap.Snippets)
	for _, c := range snap.ToolCalls {
		if c.Call.Name == agent.RunGoName {
			snippets++
		} else {
			calls++
		}
	}
	return calls, snippets
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// taskOf returns a run's task: the text of its first user message, among
// its first events.
func taskOf(ctx context.Context, store run.Store, id run.ID) (string, error) {
	events, err := store.Read(ctx, id, 1, 8)
	if err != nil {
		return "", err
	}
	for _, e := range events {
		if m, ok := e.Payload.(run.UserMessage); ok {
			return m.Text, nil
		}
	}
	return "", nil
}

// resolveID returns the ID of the one run whose ID is arg or starts with
// readRun reads the whole log of the run that arg names (an ID or any
// unique prefix of one) in the store of the database db.
func readRun(ctx context.Context, store run.Store, arg, db string) (run.ID, []run.Event, error) {
	id, err := resolveID(ctx, store, arg, db)
	if err != nil {
		return "", nil, err
	}
	events, err := store.Read(ctx, id, 1, 0)
	if err != nil {
		return "", nil, fmt.Errorf("%w (byref runs ls lists the runs in %s)", err, db)
	}
	return id, events, nil
}

// arg.
func resolveID(ctx context.Context, store run.Store, arg, db string) (run.ID, error) {
	if _, err := store.Get(ctx, run.ID(arg)); err == nil {
		return run.ID(arg), nil
	} else if !errors.Is(err, run.ErrRunNotFound) {
		return "", err
	}
	var found []run.ID
	q := run.Query{Limit: run.MaxListLimit}
	for {
		page, next, err := store.List(ctx, q)
		if err != nil {
			return "", err
		}
		for _, s := range page {
			if arg != "" && strings.HasPrefix(string(s.ID), arg) {
				found = append(found, s.ID)
			}
		}
		if next == "" {
			break
		}
		q.Cursor = next
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no run's ID is or starts with %q in %s (byref runs ls lists them)", term(arg), db)
	case 1:
		return found[0], nil
	}
	ids := make([]string, 0, 5)
	for _, id := range found[:min(len(found), 5)] {
		ids = append(ids, string(id))
	}
	return "", fmt.Errorf("%d runs' IDs start with %q (%s…); give more of the ID", len(found), term(arg), strings.Join(ids, ", "))
}

// tokens writes a run's usage: input (and what of it the provider's prompt
// cache read and wrote), output (and what of it the model spent
// reasoning), and the cost the provider reported, when it did.
func tokens(u run.Usage) string {
	s := fmt.Sprintf("%d in", u.InputTokens)
	if u.CacheReadTokens != 0 || u.CacheWriteTokens != 0 {
		s += fmt.Sprintf(" (%d read from the prompt cache, %d written to it)", u.CacheReadTokens, u.CacheWriteTokens)
	}
	s += fmt.Sprintf(" / %d out", u.OutputTokens)
	if u.ReasoningTokens != 0 {
		s += fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
	}
	if u.Cost != 0 {
		s += fmt.Sprintf(", $%g reported by the provider", u.Cost)
	}
	return s
}
