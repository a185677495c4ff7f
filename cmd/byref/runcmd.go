package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// runCmd is byref run.
func runCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlags("run")
	modelSpec := fs.String("model", "", "")
	db := fs.String("db", defaultDB(), "")
	approve := fs.String("approve", string(agent.ApproveOnToolCall), "")
	session := fs.String("session", "", "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return usagef("say what to do, in quotes: byref run \"summarise README.md\"")
	}
	approval, err := parseApproval(*approve)
	if err != nil {
		return err
	}
	model, err := openModel(*modelSpec)
	if err != nil {
		return err
	}
	store, err := openStore(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	rt, err := agent.New(agent.Options{Model: model, Store: store})
	if err != nil {
		return err
	}
	opts := agent.RunOptions{Task: pos[0], ModelName: *modelSpec, Approval: approval, Name: "byref run", Session: run.SessionID(*session)}
	if *session != "" {
		// The session's earlier messages are the run's history; its
		// variables the runtime brings back itself.
		sess, err := rt.Session(ctx, opts.Session)
		if err != nil {
			return err
		}
		opts.History = agent.HistoryOf(sess)
		fmt.Fprintf(stdout, "session %s: %s before this one, %s\n", *session, count(len(sess.Runs), "run"), count(len(sess.Variables), "variable"))
	}
	h, err := rt.Start(ctx, opts)
	if err != nil {
		return err
	}
	// A run's life is its own: Ctrl-C (ctx) cancels it explicitly.
	stop := context.AfterFunc(ctx, func() { _ = h.Cancel(context.Background()) })
	defer stop()
	fmt.Fprintf(stdout, "run %s (recorded in %s)\n", h.ID(), *db)
	in := bufio.NewReader(stdin)
	var pending *run.AwaitRequested
	// Follow the run to its end, even after ctx is cancelled (Ctrl-C
	// cancels the run; its cancellation is shown).
	p := &printer{out: stdout}
	for e, err := range h.Events(context.WithoutCancel(ctx), 1) {
		if err != nil {
			return err
		}
		p.show(e)
		// Answer once the run is awaiting: the AwaitRequested event comes
		// just before the move to awaiting.
		switch d := e.Payload.(type) {
		case run.AwaitRequested:
			pending = &d
		case run.StatusChanged:
			if d.To == run.StatusAwaiting && pending != nil {
				if err := answer(ctx, h, *pending, in, stdout); err != nil {
					return err
				}
				pending = nil
			}
		}
	}
	o, err := h.Wait(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	switch o.Status {
	case run.StatusCompleted:
		return nil
	case run.StatusCanceled:
		return fmt.Errorf("run %s was cancelled", o.RunID)
	}
	return fmt.Errorf("run %s %s: %s", o.RunID, o.Status, o.Reason)
}

// answer resolves an await at the prompt.
func answer(ctx context.Context, h *agent.Handle, a run.AwaitRequested, in *bufio.Reader, out io.Writer) error {
	fmt.Fprintln(out, indent(term(server.DescribeAwait(a)), "? "))
	for {
		fmt.Fprint(out, "> ")
		line, err := in.ReadString('\n')
		text := strings.TrimSpace(line)
		if err != nil && text == "" {
			// Standard input is closed: deny, or answer nothing.
			text = "deny: standard input closed"
			if a.Await == run.AwaitQuestion || a.Await == run.AwaitInput {
				text = ""
			}
			fmt.Fprintln(out, text)
		}
		ans, perr := server.ParseAnswer(a, text)
		if perr != nil {
			fmt.Fprintln(out, "  "+term(perr.Error()))
			if err != nil {
				return perr
			}
			continue
		}
		return h.Resume(ctx, a.ID, ans)
	}
}

// printer prints a run's events as they come: the model's text as it is
// written (live deltas), then one line per logged event (describe).
type printer struct {
	out io.Writer
	// step is the step whose text is being printed as it is written, 0
	// for none; text is what was printed of it.
	step int
	text string
}

// show prints one event.
func (p *printer) show(e run.Event) {
	switch d := e.Payload.(type) {
	case run.Delta:
		if d.What != run.DeltaText {
			return
		}
		if p.step != d.Step {
			p.end()
			p.step = d.Step
			fmt.Fprint(p.out, "model: ")
		}
		p.text += d.Text
		fmt.Fprint(p.out, term(d.Text))
		return
	case run.AssistantMessage:
		if p.step != 0 && p.step == d.Step {
			if d.Text == p.text {
				p.step, p.text = 0, ""
				fmt.Fprintln(p.out) // the message was printed as it was written
				return
			}
			p.end() // some of it was missed: print it whole
		}
	}
	line := describe(e)
	if line == "" {
		// An event shown as nothing (usage, a phase) leaves the text
		// being written as it is: its message follows.
		return
	}
	p.end()
	fmt.Fprintln(p.out, term(line))
}

// end ends a line of text being written.
func (p *printer) end() {
	if p.step != 0 {
		fmt.Fprintln(p.out)
		p.step, p.text = 0, ""
	}
}

// describe is the progress line of an event; "" for events not shown. It
// holds text from the run as it is: print it through term.
func describe(e run.Event) string {
	switch d := e.Payload.(type) {
	case run.RunCreated:
		if d.Options.ModelName != "" {
			return "· created (model " + d.Options.ModelName + ")"
		}
		return "· created"
	case run.StatusChanged:
		s := "· " + string(d.To)
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		return s
	case run.UserMessage:
		return "user: " + d.Text
	case run.AssistantMessage:
		if d.Text == "" {
			return ""
		}
		return "model: " + d.Text
	case run.ToolCallScheduled:
		return fmt.Sprintf("→ %s %s", d.Call.Name, d.Call.Arguments)
	case run.ToolCallCompleted:
		if !d.Success {
			return "← error: " + d.Error
		}
		s := fmt.Sprintf("← ok (%v)", d.Duration.Round(time.Microsecond))
		for _, v := range d.Created {
			s += fmt.Sprintf("; %s = %s", v.Name, v.Preview)
		}
		return s
	case run.SnippetExecuted:
		s := "← snippet ok"
		if !d.Success {
			s = "← snippet error: " + d.Error
		}
		if d.Stdout != "" {
			s += "\n" + indent(strings.TrimRight(d.Stdout, "\n"), "  | ")
		}
		for _, v := range append(d.Created, d.Modified...) {
			s += fmt.Sprintf("; %s = %s", v.Name, v.Preview)
		}
		return s
	case run.Progress:
		return "  … " + d.Message
	case run.AwaitResolved:
		switch {
		case d.Answer.Decision != "":
			return "  " + string(d.Answer.Decision)
		case d.Answer.Text != "":
			return "  answered: " + d.Answer.Text
		}
		return "  answered"
	case run.Result:
		return "result: " + string(d.Value)
	case run.Error:
		return "error: " + d.Message
	case run.ContextCompacted:
		return fmt.Sprintf("context compacted after step %d: %d messages became a summary (the request was %d tokens, the threshold %d)", d.Step, d.Messages, d.Tokens, d.Threshold)
	}
	return ""
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
