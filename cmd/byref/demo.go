package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/cmd/byref/demotable"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// demoModel is the scripted model of the demo: what a model would send,
// step by step, including a mistaken reference and a Go snippet.
func demoModel() llm.Model {
	steps := []llm.Response{
		{Text: "I'll keep the late orders first.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "filter_rows",
			Arguments: `{"table":"<<var:orders>>","column":"status","value":"late","return":null}`}}},
		{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "count_rows", Arguments: `{"table":"<<var:late_orders>>","return":null}`}}},
		{Text: "That variable does not exist; the error lists the right one.", ToolCalls: []llm.ToolCall{{ID: "call_3", Name: "count_rows",
			Arguments: `{"table":"<<var:filter_rows_result>>","return":null}`}}},
		{Text: "Now the share of late orders, in Go:\n```go\nshare := float64(count_rows_result) / float64(len(orders.Rows)) * 100\nfmt.Printf(\"%.1f%% of orders are late\\n\", share)\n```"},
		{ToolCalls: []llm.ToolCall{{ID: "call_4", Name: "terminate", Arguments: `{"success":true,"result":"<<var:share>>"}`}}},
	}
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		if n >= len(steps) {
			return llm.Response{}, fmt.Errorf("the demo script has %d steps", len(steps))
		}
		return steps[n], nil
	})
}

// demo runs an agent over a table held by reference: on a real model when
// --model is given (or a provider's key is set), else on the scripted model;
// then shows the stored run and the Go code that replays it.
func demo(ctx context.Context, args []string, w io.Writer) error {
	fs := newFlags("demo")
	modelSpec := fs.String("model", "", "")
	db := fs.String("db", defaultDB(), "")
	replay := fs.String("replay", "", "")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	spec := *modelSpec
	if spec == "" {
		switch {
		case os.Getenv("OPENAI_API_KEY") != "":
			spec = "openai:gpt-4o-mini"
		case os.Getenv("ANTHROPIC_API_KEY") != "":
			spec = "anthropic:claude-3-5-haiku-latest"
		}
	}
	var model llm.Model
	if spec == "" || spec == "scripted" {
		spec = ""
		model = demoModel()
		fmt.Fprintln(w, "byref demo on the built-in scripted model (no API key, no network): it plays what a model would send.")
		fmt.Fprintln(w, "Pass --model provider:name, or set OPENAI_API_KEY or ANTHROPIC_API_KEY, to run it on a real model (--model scripted forces this one).")
	} else {
		m, err := openModel(spec)
		if err != nil {
			return err
		}
		model = m
		fmt.Fprintf(w, "byref demo on %s.\n", spec)
	}
	store, err := openStore(*db)
	if err != nil {
		return err
	}
	defer store.Close()

	actions := demotable.Actions()
	rt, err := agent.New(agent.Options{
		Actions: actions, Model: model, Store: store,
		Variables: []variable.Spec{{Name: "orders", Value: demotable.Orders(1000), Description: "this month's 1,000 orders"}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "The model refers to a 1,000-row table as <<var:orders>> and never sees its rows.")
	fmt.Fprintln(w)
	h, err := rt.Start(ctx, agent.RunOptions{Task: "What share of this month's orders are late?", ModelName: spec, Name: demoName})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = h.Cancel(context.Background()) })
	defer stop()
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			return err
		}
		if line := describe(e); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if o.Status != run.StatusCompleted {
		return fmt.Errorf("the demo run %s: %s", o.Status, o.Reason)
	}

	events, err := store.Read(ctx, h.ID(), 1, 0)
	if err != nil {
		return err
	}
	snap := run.Fold(events)
	calls, snippets := callsAndSnippets(snap)
	fmt.Fprintf(w, "\nThe stored run: %s in %s, %s, %s, %s, %s, result %s.\n",
		h.ID(), *db, count(len(events), "event"), count(calls, "tool call"), count(snippets, "snippet"),
		count(len(snap.Variables), "variable"), snap.Result)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		return err
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		return err
	}
	path := *replay
	if path == "" {
		// A folder whose name starts with _ is left out of ./... patterns:
		// beside a checkout's demo.db it is no package of the module.
		path = filepath.Join(filepath.Dir(*db), "_byref-demo-replay", "main.go")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing the replay program: %w (pass --replay to put it elsewhere)", err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return fmt.Errorf("writing the replay program: %w (pass --replay to put it elsewhere)", err)
	}
	fmt.Fprintf(w, "\nA Go program that replays it with no model, %d lines, is in %s: run it with go run in a module that requires github.com/byref/byref (in a checkout of byref: cd %s && go run .). byref replay %s --db %s prints it again.\n",
		bytes.Count(src, []byte("\n")), path, filepath.Dir(path), h.ID(), *db)
	return nil
}

// count writes n and a noun, plural unless n is 1: "1 snippet", "4 tool
// calls".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
