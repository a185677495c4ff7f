package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/agui"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/server"
)

// serveCmd is byref serve.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve")
	addr := fs.String("addr", server.DefaultAddr, "")
	db := fs.String("db", defaultDB(), "")
	storeSpec := fs.String("store", os.Getenv("BYREF_STORE"), "")
	token := fs.String("token", os.Getenv("BYREF_TOKEN"), "")
	modelSpec := fs.String("model", "", "")
	approve := fs.String("approve", string(agent.ApproveOnToolCall), "")
	grace := fs.Duration("grace", server.DefaultShutdownGrace, "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	approval, err := parseApproval(*approve)
	if err != nil {
		return err
	}
	// With no model named, the agent runs on the scripted model: stored runs
	// can be browsed, and the API tried, with no key.
	spec := *modelSpec
	if spec == "" {
		spec = os.Getenv("BYREF_MODEL")
	}
	if spec == "" {
		spec = scriptedSpec
	}
	model, err := openModel(spec)
	if err != nil {
		return err
	}
	flagName := "--db"
	if *storeSpec != "" {
		*db, flagName = *storeSpec, "--store"
	}
	store, where, err := openServed(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	// On PostgreSQL, every byref serve is a replica: any serves any run.
	var replicas server.Replicas
	if pg, ok := store.(*postgres.Store); ok {
		r, err := pg.NewReplica()
		if err != nil {
			return err
		}
		replicas = r
	}
	ag, err := agent.New(agent.Options{Model: model, Store: store})
	if err != nil {
		return err
	}
	s, err := server.New(server.Options{
		Store: store, Token: *token, ShutdownGrace: *grace, Replicas: replicas,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
		Agents: []server.Agent{{
			Name:        "byref",
			Description: agentDescription(spec),
			Agent:       ag,
			Run:         agent.RunOptions{ModelName: spec, Approval: approval},
		}},
	})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := a2a.Mount(s, a2a.Options{Token: *token != ""}); err != nil {
		return err
	}
	if _, err := agui.Mount(s, agui.Options{Logger: slog.New(slog.NewTextHandler(stderr, nil))}); err != nil {
		return err
	}
	if replicas != nil {
		s.OnTakeOver(func(from string, runs int) {
			if from != "" { // "" when it joins
				fmt.Fprintf(stdout, "byref: took over %s of replica %s, which stopped\n", count(runs, "run"), from)
			}
		})
	}
	restored, interrupted, err := s.Recover(ctx)
	if err != nil {
		return err
	}
	if len(restored)+len(interrupted) > 0 {
		goOn := "go on"
		if len(restored) == 1 {
			goOn = "goes on"
		}
		fmt.Fprintf(stdout, "byref: %s awaiting before the restart %s; %s marked failed\n", count(len(restored), "run"), goOn, count(len(interrupted), "interrupted run"))
	}
	if *token == "" {
		if err := checkLoopback(*addr); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (pass --addr 127.0.0.1:PORT for another port)", *addr, err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "byref: serving the agent \"byref\" over ACP at %s, model %s, approval %s (runs in %s)\n", url, spec, approval, where)
	if replicas != nil {
		fmt.Fprintf(stdout, "byref: replica %s: every byref serve on this database serves every run; when one stops, another takes its runs over\n", replicas.ID())
	}
	fmt.Fprintf(stdout, "byref: the run inspector is at %s/ui/\n", url)
	fmt.Fprintf(stdout, "byref: and over A2A: card at %s/.well-known/agent-card.json, endpoint %s/a2a/byref\n", url, url)
	fmt.Fprintf(stdout, "byref: and over AG-UI, for front ends: POST %s/agui/byref\n", url)
	if spec == scriptedSpec {
		fmt.Fprintf(stdout, "byref: no model named: the agent runs on the built-in scripted model (no API key, no network); pass --model provider:name for a real one\n")
	}
	fmt.Fprintln(stdout, "byref: Ctrl-C stops; awaiting runs stay awaiting and resume after a restart")
	if err := s.Serve(ctx, ln); err != nil {
		if errors.Is(err, server.ErrLeaseLost) {
			return fmt.Errorf("lost the connection to the database, and with it this replica's lease on its runs: they were stopped here, and another replica takes them over; start byref serve again once the database is reachable (%w)", err)
		}
		return err
	}
	again := "byref serve " + flagName + " " + where
	if where != *db { // the store's URL, its password hidden: not a command to paste as it is
		again += " (the URL with its password, or $BYREF_STORE)"
	}
	if replicas != nil {
		fmt.Fprintf(stdout, "byref: stopped; runs awaiting an approval or an answer are kept in %s: another replica on it takes them over, or the next %s\n", where, again)
		return nil
	}
	fmt.Fprintf(stdout, "byref: stopped; runs awaiting an approval or an answer are kept in %s and go on after %s\n", where, again)
	return nil
}

// scriptedSpec is the model byref serve runs on when none is named: a
// scripted model that runs one Go snippet (approved under on_tool_call)
// and returns the variable it set.
const scriptedSpec = "scripted:approval"

// agentDescription is the description of byref serve's agent.
func agentDescription(spec string) string {
	if spec == scriptedSpec {
		return "A byref agent on the built-in scripted model (no API key): it runs one Go snippet, answer := 6 * 7, and returns answer."
	}
	return "A byref agent that can run Go snippets and ask questions, on " + spec + "."
}

// checkLoopback refuses an address that is not loopback, as the server
// does without a token, before the banner.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w (address %s)", server.ErrNeedsToken, addr)
}

// parseApproval reads an --approve flag: the names of agent.Approval.
func parseApproval(s string) (agent.Approval, error) {
	switch a := agent.Approval(s); a {
	case agent.ApproveNone, agent.ApproveOnStart, agent.ApproveOnToolCall:
		return a, nil
	}
	return "", usagef("--approve %q: use on_tool_call (ask before every tool call and snippet, the default), on_start (approve the plan first) or none (run everything without asking), as agent.Approval names them", s)
}
