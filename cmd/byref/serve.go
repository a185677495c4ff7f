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
	"github.com/byref/byref/llm"
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
	tf := addTemporalFlags(fs)
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
	spec := servedModel(*modelSpec)
	flagName := "--db"
	if *storeSpec != "" {
		*db, flagName = *storeSpec, "--store"
	}
	var model llm.Model
	if tf.on() { // the workers have the model
		if err := tf.check(*db); err != nil {
			return err
		}
		spec = *modelSpec
	} else if model, err = openModel(spec); err != nil {
		return err
	}
	store, where, err := openServed(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	served := servedAgent(spec, approval)
	opts := server.Options{Store: store, Token: *token, ShutdownGrace: *grace}
	// On PostgreSQL, every byref serve is a replica: any serves any run
	// (with an engine, the replicas share out the background work only).
	var replicas server.Replicas
	if pg, ok := store.(*postgres.Store); ok {
		if replicas, err = pg.NewReplica(); err != nil {
			return err
		}
		opts.Replicas = replicas
	}
	if tf.on() {
		e, closeEngine, err := tf.engine(ctx, store, stderr)
		if err != nil {
			return err
		}
		defer closeEngine()
		opts.Engine = e
	} else if served.Agent, err = agent.New(agent.Options{Model: model, Store: store}); err != nil {
		return err
	}
	opts.Agents = []server.Agent{served}
	s, err := newServer(opts, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	if replicas != nil {
		s.OnTakeOver(func(from string, runs int) {
			switch {
			case from == "": // when it joins
			case runs == 0: // another replica took them, or it held none
				fmt.Fprintf(stdout, "byref: replica %s stopped; this one took none of its runs over\n", from)
			default:
				fmt.Fprintf(stdout, "byref: took over %s of replica %s, which stopped\n", count(runs, "run"), from)
			}
		})
	}
	if !tf.on() || replicas != nil { // an engine recovers its own runs
		if err := recoverRuns(ctx, s, stdout); err != nil {
			return err
		}
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
	if tf.on() {
		fmt.Fprintf(stdout, "byref: serving the agent \"byref\" over ACP at %s, approval %s, its runs on the workers of Temporal at %s, task queue %s (byref worker; runs in %s)\n", url, approval, *tf.hostPort, *tf.queue, where)
	} else {
		fmt.Fprintf(stdout, "byref: serving the agent \"byref\" over ACP at %s, model %s, approval %s (runs in %s)\n", url, spec, approval, where)
	}
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

// recoverRuns brings back the runs that were awaiting when the server
// last stopped, and says how many.
func recoverRuns(ctx context.Context, s *server.Server, stdout io.Writer) error {
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
	return nil
}

// servedAgent is the agent byref serve serves, but its agent.Agent.
func servedAgent(spec string, approval agent.Approval) server.Agent {
	return server.Agent{
		Name:        "byref",
		Description: agentDescription(spec),
		Run:         agent.RunOptions{ModelName: spec, Approval: approval},
	}
}

// newServer returns the server of opts, logging to stderr, with A2A and
// AG-UI mounted beside ACP.
func newServer(opts server.Options, stderr io.Writer) (*server.Server, error) {
	opts.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	s, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	if _, err := a2a.Mount(s, a2a.Options{Token: opts.Token != ""}); err != nil {
		s.Close()
		return nil, err
	}
	if _, err := agui.Mount(s, agui.Options{Logger: opts.Logger}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// servedModel is the model of a server or a worker: --model's spec, else
// $BYREF_MODEL, else the built-in scripted model, so that stored runs can
// be browsed, and the API tried, with no key.
func servedModel(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("BYREF_MODEL"); env != "" {
		return env
	}
	return scriptedSpec
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
	if spec == "" { // --temporal: the workers' model
		return "A byref agent that can run Go snippets and ask questions, on the model of its Temporal workers."
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
