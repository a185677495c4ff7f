package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// ErrInterrupted is returned by Restore for a run that cannot continue: it
// was running when its process stopped, or it held variables that cannot
// be rebuilt from its log. Such runs are marked failed with a reason that
// starts with "interrupted".
var ErrInterrupted = errors.New("runtime: the run was interrupted")

// Recover is called once when a process starts on a durable store that no
// other process is using. Runs left created, running or cancelling cannot
// go on (their loop and live variables died with the process): each is
// marked failed with the reason "interrupted". Awaiting runs are returned:
// Restore brings them back.
func Recover(ctx context.Context, store run.Store) (awaiting, interrupted []run.ID, err error) {
	q := run.Query{Statuses: []run.Status{run.StatusCreated, run.StatusRunning, run.StatusCancelling, run.StatusAwaiting}, Limit: run.MaxListLimit}
	for {
		page, next, err := store.List(ctx, q)
		if err != nil {
			return awaiting, interrupted, err
		}
		for _, s := range page {
			if s.Status == run.StatusAwaiting {
				awaiting = append(awaiting, s.ID)
				continue
			}
			if err := markInterrupted(ctx, store, s, "interrupted: the process running it stopped"); err != nil {
				return awaiting, interrupted, err
			}
			interrupted = append(interrupted, s.ID)
		}
		if next == "" {
			return awaiting, interrupted, nil
		}
		q.Cursor = next
	}
}

func markInterrupted(ctx context.Context, store run.Store, s run.Summary, reason string) error {
	_, err := store.Append(ctx, s.ID, s.LastSeq, run.Event{Data: run.Error{Message: reason, Failure: run.FailureInterrupted}}, run.Event{Data: run.StatusChanged{From: s.Status, To: run.StatusFailed, Reason: reason}})
	return err
}

// RestoreOptions says how to rebuild a run's variables from its log.
type RestoreOptions struct {
	// Types are the Go types of the variables to restore, so that they get
	// their types back (a []main.Row, not a []any); matched by type name as
	// variable.TypeName writes it. Strings, booleans, numbers, slices and
	// maps of them, any, json.RawMessage, run.Artifact and the types the
	// agent knows (Options.Types, its actions' and variables') need no
	// entry.
	Types []reflect.Type
	// Variables supply values the log does not hold, by name: secrets,
	// and live objects the host can rebuild (a database handle).
	Variables []variable.Spec

	// The process-local parts of the run's options, which its log does not
	// hold (the rest of its spec comes from its first event): Model
	// overrides Options.Model, OnStatus is RunOptions.OnStatus, and
	// History is the session's earlier conversation.
	Model    llm.Model
	OnStatus func(run.StatusChanged)
	History  []llm.Message
	// Driven makes the restored run driven (RunOptions.Driven), whatever
	// it was: how a run is stepped is the restoring process's choice.
	Driven bool
}

// Restore rebuilds the run id from the log in the agent's store and
// continues it on this agent: its actions and model serve the run, and its
// options are read from the run's first event (OptionsOf), with the
// process-local parts from ro.
// Variables come back from the JSON values in the log, typed through
// ro.Types, or from ro.Variables. When one cannot be rebuilt, the run is
// marked failed with the reason "interrupted: …" naming the lost
// variables, and Restore returns an error wrapping ErrInterrupted.
//
// What happens next depends on the run's status in the log:
//   - awaiting: the returned Handle's Pending await can be Resumed as if
//     the process had never stopped.
//   - running: the run goes on from its last recorded step. A step whose
//     calls were scheduled but whose results were not recorded runs again
//     (its actions run at least once, so they should be idempotent);
//     otherwise the model is called again.
//   - completed: the Handle ends its turn at once with the recorded
//     result, ready for a FollowUp.
//   - cancelling: the run moves to canceled.
//   - created: the Handle has not begun; call Begin (ropts.Task must be
//     the run's task, which the log does not hold before it begins).
//
// Runs that ended (failed, canceled) cannot be restored. Recover marks runs
// left running as interrupted instead of restoring them: restoring a
// running run is for an engine that knows its process is gone and that the
// run's actions may run again (package temporal).
//
// The conversation comes back as it was sent, byte for byte (see "What
// the model reads" in the package doc). Not restored: session History
// (pass it again in ro), and variables the host set or deleted during a
// turn (those it defines between turns are logged with the follow-up that
// announces them).
func (rt *Runtime) Restore(ctx context.Context, id run.ID, ro RestoreOptions) (*Handle, error) {
	store := rt.store
	events, err := store.Read(ctx, id, 1, 0)
	if err != nil {
		return nil, err
	}
	snap := run.Fold(events)
	if snap.Status.Final() || snap.Status == "" || (snap.Status == run.StatusAwaiting && snap.Await == nil) {
		return nil, fmt.Errorf("runtime: run %s is %s; only a run that has not ended can be restored", id, snap.Status)
	}
	created, _ := events[0].Data.(run.RunCreated)
	ropts := OptionsOf(id, created)
	ropts.Model, ropts.OnStatus, ropts.History, ropts.Driven = ro.Model, ro.OnStatus, ro.History, ro.Driven
	st, err := rt.NewState()
	if err != nil {
		return nil, err
	}
	for _, v := range st.Variables() { // they come from the log
		st.Delete(v.Name)
	}
	ro.Types = append(rt.sessions.knownTypes(), ro.Types...) // ro's own win
	specs, lost := restoredVariables(snap, ro)
	sum, err := store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		reason := "interrupted: these variables cannot be restored from the log: " + strings.Join(lost, ", ")
		if err := markInterrupted(ctx, store, sum, reason); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: run %s: %s", ErrInterrupted, id, reason)
	}
	model := ropts.Model
	if model == nil {
		model = rt.opts.Model
	}
	if model == nil {
		return nil, ErrNoModel
	}
	h := &Handle{
		rt: rt, st: st, id: id, model: llm.WithRetry(model, ropts.Limits.Retry), opts: ropts, begun: snap.Status != run.StatusCreated,
		// The last event read, not the summary: an append by another
		// writer since the Read makes this run's first append conflict.
		rec:  &recorder{store: store, id: id, last: snap.LastSeq, status: snap.Status, phase: snap.Phase, hook: ropts.OnStatus},
		done: make(chan struct{}),
	}
	h.drivenBy(ropts.Driven)
	h.ctx.starting, h.ctx.only = startingNames(events), compactedTools(events)
	if len(ropts.ResultSchema) > 0 {
		if h.result, err = schema.Compile(ropts.ResultSchema); err != nil {
			return nil, err
		}
	}
	msgs, work := replayLog(events, withDefaults(ropts.Limits).LargeResult)
	h.messages = append([]llm.Message{llm.SystemMessage(sentSystem(events))}, ropts.History...)
	h.messages = append(h.messages, msgs[1:]...)
	if snap.Status == run.StatusCreated {
		h.messages = append(h.messages, llm.UserMessage(taskText(ropts, rt.opts.HideFromAI, rt.opts.MaxMessage)))
	}
	h.usage = usageOf(snap.Usage)
	h.steps = work.modelSteps
	h.turnSteps, h.turnTokens = work.turnSteps, int(work.turnTokens)
	h.awaits = work.awaits
	h.planOK = work.planApproved || ropts.Approval != ApproveOnStart

	st.mu.Lock()
	for _, s := range specs {
		if err := st.define(s, snap.Step, "restore"); err != nil {
			st.mu.Unlock()
			return nil, fmt.Errorf("runtime: restoring variable %s: %w", s.Name, err)
		}
	}
	st.step = snap.Step
	st.seedDescribed(events)
	st.record = storeLog{store: h.rec.store, id: h.id}
	st.attach(ropts.Actions, ropts.ResultSchema, !ropts.NonInteractive)
	st.mu.Unlock()

	if err := h.resume(ctx, snap, work); err != nil {
		return nil, err
	}
	return h, nil
}

// restoredVariables are the variables of a run as its log and ro give
// them back; lost names those that cannot be (no value in the log, or a
// type ro.Types does not name).
func restoredVariables(snap run.Snapshot, ro RestoreOptions) (specs []variable.Spec, lost []string) {
	types := map[string]reflect.Type{}
	for _, t := range append(builtinTypes, ro.Types...) {
		types[variable.TypeName(t)] = t
	}
	given := map[string]variable.Spec{}
	for _, s := range ro.Variables {
		given[s.Name] = s
	}
	for _, v := range snap.Variables {
		if s, ok := given[v.Name]; ok {
			specs = append(specs, s)
			continue
		}
		t, known := types[v.Type]
		if v.Value == nil || !known {
			lost = append(lost, v.Name+" ("+v.Type+")")
			continue
		}
		ptr := reflect.New(t)
		if err := json.Unmarshal(v.Value, ptr.Interface()); err != nil {
			lost = append(lost, v.Name+" ("+v.Type+")")
			continue
		}
		specs = append(specs, variable.Spec{Name: v.Name, Value: ptr.Elem().Interface(), Type: t, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly})
	}
	return specs, lost
}

// resume goes on with a restored run from where its log left it (snap).
func (h *Handle) resume(ctx context.Context, snap run.Snapshot, work unfinished) error {
	switch snap.Status {
	case run.StatusAwaiting:
		p := newPendingAwait(*snap.Await, true)
		h.pending = p
		if h.drive != nil {
			h.drive.post(Pause{Kind: PauseAwait, Await: snap.Await})
		}
		h.launchWith(ctx, func(ctx context.Context) Outcome { return h.continueRestored(ctx, p, work) })
	case run.StatusRunning:
		h.launchWith(ctx, func(ctx context.Context) Outcome { return h.continueRunning(ctx, work) })
	case run.StatusCompleted:
		h.end(Outcome{Status: run.StatusCompleted, Result: snap.Result})
	case run.StatusCancelling:
		reason := "canceled while its process was gone"
		err := h.rec.transition(ctx, run.StatusCanceled, reason)
		h.end(Outcome{Status: run.StatusCanceled, Reason: reason})
		return err
	}
	return nil
}

// continueRunning goes on with a run that was running when its process
// stopped: it runs the step whose results were not recorded, if any, then
// the loop.
func (h *Handle) continueRunning(ctx context.Context, w unfinished) Outcome {
	if len(w.calls) == 0 && len(w.snippets) == 0 {
		return h.loop(ctx)
	}
	lim := withDefaults(h.opts.Limits)
	retries := 0
	if err := h.checkpoint(ctx, PauseStep); err != nil {
		if o, stop := h.stopped(ctx); stop {
			return o
		}
		return h.fail(ctx, err.Error())
	}
	if h.opts.Approval == ApproveOnStart && !h.planApproved() {
		deny := h.approvePlan(ctx, w.reason, w.snippets, w.calls)
		if f := h.fatalReason(); f != "" {
			return Outcome{Status: run.StatusFailed, Reason: f}
		}
		if o, stop := h.stopped(ctx); stop {
			return o
		}
		if deny != "" {
			if err := h.refuseStep(ctx, w.calls, w.snippets, deny); err != nil {
				return h.storeFault(ctx, err)
			}
			return h.loop(ctx)
		}
	}
	res, err := h.st.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, h)
	if o, done := h.afterStep(ctx, res, err, &retries, lim); done {
		return o
	}
	return h.loop(ctx)
}

// unfinished is the work of the step that was awaiting when the log ended.
type unfinished struct {
	modelSteps int
	// turnSteps and turnTokens are the model steps and tokens before the
	// latest turn.
	turnSteps    int
	turnTokens   int64
	awaits       int
	planApproved bool
	reason       string
	calls        []ToolCall
	snippets     []string
}

// replayLog rebuilds the conversation from a run's events and finds the
// unfinished work of its last step.
//
// A tool result longer than large was kept as a variable when the run got
// it: it comes back cut to that size, as the model first saw it, never
// whole.
func replayLog(events []run.Event, large int) ([]llm.Message, unfinished) {
	msgs := []llm.Message{llm.SystemMessage("")}
	var w unfinished
	var cur *llm.Message
	var snippetOut []string
	lastText, executedSnippets := "", 0
	done := map[string]bool{}
	var scheduled []ToolCall
	flush := func() {
		if cur != nil {
			msgs = append(msgs, *cur)
			cur = nil
		}
	}
	flushSnippets := func() {
		if len(snippetOut) > 0 {
			msgs = append(msgs, llm.UserMessage("Results of your Go code:\n"+strings.Join(snippetOut, "\n")))
			snippetOut = nil
		}
	}
	var lastPlanAwait string
	users, tokens := 0, int64(0)
	for _, e := range events {
		switch p := e.Data.(type) {
		case run.UserMessage:
			flush()
			flushSnippets()
			if users++; users > 1 {
				w.turnSteps, w.turnTokens = w.modelSteps, tokens
			}
			msgs = append(msgs, llm.UserMessage(cmp.Or(p.Sent, p.Text))) // as sent
		case run.Error:
			if p.Sent != "" { // the model was told: a refused plan, an invalid result
				flush()
				if len(p.Refused) == 0 {
					flushSnippets()
				}
				executedSnippets = max(executedSnippets, len(extractCode(lastText))) // no code of the answer will run
				msgs = append(msgs, answerMessages(p, scheduled, done)...)
			}
		case run.Usage:
			flush()
			flushSnippets()
			w.modelSteps++
			tokens += p.InputTokens + p.OutputTokens
			cur = &llm.Message{Role: llm.RoleAssistant}
			scheduled, done, executedSnippets, lastText = nil, map[string]bool{}, 0, ""
		case run.AssistantMessage:
			if cur == nil {
				cur = &llm.Message{Role: llm.RoleAssistant}
			}
			cur.Text, lastText = p.Text, p.Text
			cur.Thinking = append(cur.Thinking, p.Thinking...)
		case run.ToolCallScheduled:
			if cur == nil {
				cur = &llm.Message{Role: llm.RoleAssistant}
			}
			c := p.Call
			cur.ToolCalls = append(cur.ToolCalls, c)
			scheduled = append(scheduled, c)
		case run.ToolCallCompleted:
			flush()
			done[p.CallID] = true
			msgs = append(msgs, llm.ToolResultMessage(llm.ToolCall{ID: p.CallID, Name: callName(scheduled, p.CallID)}, sentTool(p, large)))
		case run.SnippetExecuted:
			executedSnippets++
			snippetOut = append(snippetOut, sentSnippet(p, large))
		case run.ContextCompacted:
			flush()
			flushSnippets()
			msgs = append(msgs[:2:2], llm.UserMessage(p.Summary))
		case run.AwaitRequested:
			w.awaits++
			if p.Await == run.AwaitApproval && p.Call == nil && p.Snippet == nil {
				lastPlanAwait = p.ID
			}
		case run.AwaitResolved:
			if p.ID == lastPlanAwait && p.Answer.Decision == run.Approved {
				w.planApproved = true
			}
		}
	}
	flush()
	for _, c := range scheduled {
		if !done[c.ID] {
			w.calls = append(w.calls, c)
		}
	}
	if codes := extractCode(lastText); executedSnippets < len(codes) {
		w.snippets = codes[executedSnippets:]
	}
	if len(w.calls) == 0 {
		flushSnippets()
	}
	w.reason = lastText
	return msgs, w
}

// continueRestored waits for the answer to the await that was pending when
// the run's process stopped, finishes the step it interrupted and goes on
// with the loop.
func (h *Handle) continueRestored(ctx context.Context, p *pendingAwait, w unfinished) Outcome {
	answer, err := h.waitAnswer(ctx, p)
	if f := h.fatalReason(); f != "" {
		return Outcome{Status: run.StatusFailed, Reason: f}
	}
	if o, stop := h.stopped(ctx); stop {
		return o
	}
	if err != nil {
		return h.fail(ctx, err.Error())
	}
	lim := withDefaults(h.opts.Limits)
	retries := 0
	plan := p.req.Await == run.AwaitApproval && p.req.Call == nil && p.req.Snippet == nil
	if plan {
		if answer.Decision == run.Denied {
			reason := answer.Reason
			if reason == "" {
				reason = "no reason given"
			}
			if err := h.refuseStep(ctx, w.calls, w.snippets, "the user rejected the plan: "+reason+". Propose another plan."); err != nil {
				return h.storeFault(ctx, err)
			}
			return h.loop(ctx)
		}
		h.mu.Lock()
		h.planOK = true
		h.mu.Unlock()
		res, err := h.st.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, h)
		if o, done := h.afterStep(ctx, res, err, &retries, lim); done {
			return o
		}
		return h.loop(ctx)
	}
	g := &restoredGate{Handle: h, req: p.req, answer: answer}
	res, err := h.st.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, g)
	if o, done := h.afterStep(ctx, res, err, &retries, lim); done {
		return o
	}
	return h.loop(ctx)
}

// restoredGate is the gate of a restored step: the first question of the kind
// that was pending gets the answer given to the restored await; the rest go
// to the run as usual.
type restoredGate struct {
	*Handle
	req    run.AwaitRequested
	answer run.Answer
	used   bool
}

func (g *restoredGate) take(kind run.AwaitKind) (run.Answer, bool) {
	if g.used || g.req.Await != kind {
		return run.Answer{}, false
	}
	g.used = true
	return g.answer, true
}

func (g *restoredGate) approveCall(ctx context.Context, c *ToolCall, refs func() map[string]run.VariableRef, needsApproval bool) string {
	if g.req.Call != nil && g.req.Call.ID == c.ID {
		if a, ok := g.take(run.AwaitApproval); ok {
			if a.Decision == run.Denied {
				return denied(a.Reason)
			}
			if a.Arguments != "" {
				c.Arguments = a.Arguments
			}
			return ""
		}
	}
	return g.Handle.approveCall(ctx, c, refs, needsApproval)
}

func (g *restoredGate) approveSnippet(ctx context.Context, code string, access interp.Access, guarded []string) string {
	if g.req.Snippet != nil {
		if a, ok := g.take(run.AwaitApproval); ok {
			if a.Decision == run.Denied {
				return denied(a.Reason)
			}
			return ""
		}
	}
	return g.Handle.approveSnippet(ctx, code, access, guarded)
}

func (g *restoredGate) human(ctx context.Context, c ToolCall, refs func() map[string]run.VariableRef, need error) (context.Context, string) {
	if g.req.Call != nil && g.req.Call.ID == c.ID {
		if a, ok := g.take(g.req.Await); ok {
			switch g.req.Await {
			case run.AwaitAuthorization:
				if a.Decision == run.Denied {
					return nil, "the user did not authorize " + c.Name + ": " + a.Reason
				}
				return ctx, ""
			case run.AwaitInput:
				return action.WithInput(ctx, a.Input), ""
			}
		}
	}
	return g.Handle.human(ctx, c, refs, need)
}

func (g *restoredGate) ask(ctx context.Context, c ToolCall, question string) (string, string) {
	if a, ok := g.take(run.AwaitQuestion); ok {
		return a.Text, ""
	}
	return g.Handle.ask(ctx, c, question)
}

// callName is the name of the call id among scheduled, or "".
func callName(scheduled []ToolCall, id string) string {
	for _, c := range scheduled {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}

// answerMessages are the messages a fault the model was told of gave it
// (p.Sent is set): one answer per refused call (marked done), else Sent
// as a message of its own (an invalid result, a rejected plan without
// calls).
func answerMessages(p run.Error, scheduled []ToolCall, done map[string]bool) []llm.Message {
	if len(p.Refused) == 0 {
		return []llm.Message{llm.UserMessage(p.Sent)}
	}
	var out []llm.Message
	for _, id := range p.Refused {
		done[id] = true
		out = append(out, llm.ToolResultMessage(llm.ToolCall{ID: id, Name: callName(scheduled, id)}, refusedContent(p.Sent)))
	}
	return out
}
