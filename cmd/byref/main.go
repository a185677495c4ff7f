// Command byref runs byref agents from a terminal.
//
// Usage:
//
//	byref demo                          run the built-in demo (no API key needed)
//	byref run "task" [flags]            run a task with live progress
//	byref serve [flags]                 serve an agent over ACP, A2A and AG-UI (HTTP)
//	byref worker [flags]                host on Temporal the runs byref serve --temporal starts
//	byref runs ls|show [flags]          list stored runs, or show one
//	byref replay RUN_ID [flags]         print a Go program that replays a run
//	byref mcp [flags]                   serve the agent over MCP (stdio or HTTP)
//	byref a2a call URL "task"           send a task to an A2A agent, showing its progress
//	byref eval run|add|diff             run eval sets, make cases from runs, compare reports
//	byref help                          show this help
//
// Runs are recorded in a SQLite file: --db, else $BYREF_DB, else
// $XDG_DATA_HOME/byref/runs.db (~/.local/share/byref/runs.db); byref
// serve records them in PostgreSQL instead with --store postgres://…. Models are
// named "provider:model" (--model, else $BYREF_MODEL); the provider's API
// key comes from its usual environment variable (OPENAI_API_KEY, …).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGTERM too (what service managers and kill send), so that commands
	// end as on Ctrl-C: byref serve closes its server and its store.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := realMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `byref runs LLM agents whose tools are Go functions and whose state is Go values.

Usage:
  byref demo [--model provider:name|scripted] [--db file] [--replay file.go]
                                   an agent over a table held by reference, its stored run and
                                   a Go program that replays it, written to --replay (default
                                   _byref-demo-replay/main.go beside the database); on the
                                   built-in scripted model (no API key needed) unless --model
                                   names a provider or a provider's key is set (--model
                                   scripted forces it)
  byref run "task" [flags]         run a task, with live progress (the model's text as it
                                   is written); approvals and questions are answered at the
                                   prompt
      --model provider:name|scripted
                                   the model (default $BYREF_MODEL), e.g. openai:gpt-4o-mini;
                                   scripted is the built-in one (no API key, no network);
                                   scripted?delay=100ms answers after that delay, as a
                                   provider would (for load and failover tests)
      --db file                    the SQLite file runs are recorded in
      --approve on_tool_call|on_start|none
                                   as agent.Approval: ask before every tool call and snippet
                                   (the default), approve the plan first, or ask nothing
      --session ID                 go on with the conversation of session ID (any name): the
                                   run gets its earlier runs' messages and the variables they
                                   left whose values the database holds
  byref serve [flags]              serve an agent named "byref" over ACP (HTTP + SSE) and the
                                   run inspector at /ui/; on the built-in scripted model when
                                   no model is named (no API key needed); and over A2A beside
                                   it (card: /.well-known/agent-card.json) and AG-UI (POST
                                   /agui/byref)
      --addr host:port             default 127.0.0.1:8000; other hosts need --token
      --token secret               bearer token clients must send; prefer setting $BYREF_TOKEN
                                   (the default), since other users can see a flag in ps
      --grace 10s                  on Ctrl-C or SIGTERM, how long running steps may go on; a
                                   step still going then is marked interrupted
      --store postgres://user:password@host:5432/db
                                   record runs in PostgreSQL (its schema "byref", migrated at
                                   start) instead of the SQLite file of --db; prefer
                                   setting $BYREF_STORE (the default), since other users can
                                   see a flag, password included, in ps. Every byref serve on
                                   one database is a replica: any answers any run, and when
                                   one stops or dies another takes its runs over; see
                                   docs/deploy.md
      --temporal host:port         run the agent's runs on Temporal, hosted by byref worker
                                   processes, instead of in this process (default
                                   $BYREF_TEMPORAL); needs --store postgres://…, which the
                                   workers share; any number of servers may then serve the
                                   database, each answering for any run. Temporal's flags and
                                   byref worker need a byref built with the tag temporal:
                                   go install -tags temporal github.com/byref/byref/cmd/byref
      --task-queue name            with --temporal, the workers' task queue (default byref)
      --worker-lost-after 5s       with --temporal, how long a worker may be silent (in a
                                   model call, a step or a workflow task, or not taking a
                                   run's next task) before its runs move to another worker
                                   (default 10s silent, 30s not taking a task)
      --model, --db, --approve     as for run (with --temporal, --model only names the model
                                   in the runs' records: the workers' --model answers)
  byref worker --temporal host:port --store postgres://… [--task-queue name] [--model …]
                                   a Temporal worker: hosts the runs of the agent "byref"
                                   that byref serve --temporal starts, on the model of
                                   --model (as for run; default the built-in scripted one),
                                   recording them in the store the servers read; start
                                   several, on any hosts. A run whose worker dies goes on
                                   on another from its log. Ctrl-C or SIGTERM stops it
      --worker-lost-after 5s       how long a run's next workflow task waits for this worker
                                   before another takes it (default 5s); give it the servers'
                                   value
  byref runs ls [--db file] [--limit n]   list recorded runs, newest first, with their tasks
  byref runs show RUN_ID [--db file]      show a run: its state and events
  byref replay RUN_ID [--db file] [--actions path.Func] [--package name=path]
                                   print a Go program that replays a recorded run, any run:
                                   its log names the Go functions of the actions it called.
                                   Closures and methods become fields of an Actions struct;
                                   --actions names a function returning the run's
                                   *action.Set (example.com/app.Actions, or main.actions for
                                   a replay beside your package main) for main to fill them
                                   --package says which import path a host package the
                                   snippets name is (model2=example.com/b/model) when the
                                   log does not show it
  byref mcp [--model] [--db] [--http 127.0.0.1:PORT]
                                   serve the agent as an MCP tool, over stdio or streamable HTTP
  byref a2a call URL "task" [--token] [--task ID] [--context ID]
                                   send a task to any A2A agent and show its progress
  byref eval run SET [--model provider:name|scripted] [--reps n] [--record] [--out dir]
                                   run an eval set on its cassettes (no key) or on a model;
                                   byref eval help lists every flag
  byref eval add RUN_ID --set SET  turn a stored run into a case of an eval set
  byref eval diff A.json B.json    compare two eval reports: what got better, what got worse
  byref help                       show this help

RUN_ID may be any unique prefix of a run's ID. Ctrl-C or SIGTERM stops byref serve without
losing a run: runs awaiting an answer stay awaiting and go on after a restart.
`

// realMain is main without the process: it returns the exit code.
func realMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "demo":
		err = demo(ctx, args[1:], stdout)
	case "run":
		err = runCmd(ctx, args[1:], stdin, stdout)
	case "serve":
		err = serveCmd(ctx, args[1:], stdout, stderr)
	case "worker":
		err = workerCmd(ctx, args[1:], stdout, stderr)
	case "runs":
		err = runsCmd(ctx, args[1:], stdout)
	case "replay":
		err = replayCmd(ctx, args[1:], stdout)
	case "mcp":
		err = mcpCmd(ctx, args[1:], stdin, stdout, stderr)
	case "a2a":
		err = a2aCmd(ctx, args[1:], stdout)
	case "eval":
		err = evalCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "byref: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) { // -h or --help after the command
			fmt.Fprint(stdout, commandUsage(args[0]))
			return 0
		}
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "byref %s: %v\n\n%s", args[0], err, usage)
			return 2
		}
		fmt.Fprintf(stderr, "byref %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// commandUsage is the help a command's -h or --help prints: the eval and
// a2a commands have their own, the others share the general one.
func commandUsage(command string) string {
	switch command {
	case "eval":
		return evalUsage
	case "a2a":
		return a2aUsage
	}
	return usage
}

// usageError is a command line the command cannot understand.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("byref "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags wherever they appear among the arguments, and returns
// the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
