package agent

import (
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
var ErrInterrupted = errors.New("agent: the run was interrupted")

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
	_, err := store.Append(ctx, s.ID, s.LastSeq, run.Event{Payload: run.Error{Message: reason, Failure: run.FailureInterrupted}}, run.Event{Payload: run.StatusChanged{From: s.Status, To: run.StatusFailed, Reason: reason}})
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
func (rt *Agent) Restore(ctx context.Context, id run.ID, ro RestoreOptions) (*Handle, error) {
	store := rt.store
	events, err := store.Read(ctx, id, 1, 0)
	if err != nil {
		return nil, err
	}
	snap := run.Fold(events)
	if snap.Status.Final() || snap.Status == "" || (snap.Status == run.StatusAwaiting && snap.Await == nil) {
		return nil, fmt.Errorf("agent: run %s is %s; only a run that has not ended can be restored", id, snap.Status)
	}
	created, _ := events[0].Payload.(run.RunCreated)
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
	// The conversation is the fold of the log read, with the same method
	// a live run applies its events with; the task of a run that has not
	// begun is applied when Begin logs it.
	runConversation(h).fold(events)
	h.drivenBy(ropts.Driven)
	h.awaits = newAwaits(h.rec, h.drive, &h.opts)
	if len(ropts.ResultSchema) > 0 {
		if h.result, err = schema.Compile(ropts.ResultSchema); err != nil {
			return nil, err
		}
	}
	work := unfinishedWork(events)
	h.usage = usageOf(snap.Usage)
	h.steps = work.modelSteps
	h.turnSteps, h.turnTokens = work.turnSteps, int(work.turnTokens)
	h.awaits.count = work.awaits
	h.awaits.planOK = work.planApproved || ropts.Approval != ApproveOnStart

	st.mu.Lock()
	for _, s := range specs {
		if err := st.s.define(s, snap.Step, "restore"); err != nil {
			st.mu.Unlock()
			return nil, fmt.Errorf("agent: restoring variable %s: %w", s.Name, err)
		}
	}
	st.s.step = snap.Step
	if len(work.calls) > 0 || len(work.snippets) > 0 {
		st.s.step-- // the step under way runs again, as the step it was
	}
	st.s.ids.seed(events)
	st.s.record = storeLog{store: h.rec.store, id: h.id}
	st.s.attach(ropts.Actions, ropts.ResultSchema, !ropts.NonInteractive)
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
		h.awaits.restore(p)
		if h.drive != nil {
			h.drive.post(Pause{Kind: PauseAwait, Await: snap.Await})
		}
		h.launchWith(ctx, func(ctx context.Context) Outcome { return h.newLoop(work.retries).continueRestored(ctx, p, work) })
	case run.StatusRunning:
		if !h.conv.begun() {
			// A log written before Begin recorded the task with the
			// move to running: its process stopped between the two.
			if err := h.rec.append(ctx, h.task()...); err != nil {
				return err
			}
		}
		h.launchWith(ctx, func(ctx context.Context) Outcome { return h.newLoop(work.retries).continueRunning(ctx, work) })
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
func (l *loop) continueRunning(ctx context.Context, w unfinished) Outcome {
	if len(w.calls) == 0 && len(w.snippets) == 0 {
		return l.run(ctx)
	}
	if err := l.checkpoint(ctx, PauseStep); err != nil {
		if o, stop := l.h.stopped(ctx); stop {
			return o
		}
		return l.h.fail(ctx, err.Error())
	}
	if l.h.opts.Approval == ApproveOnStart && !l.h.awaits.planApproved() {
		deny := l.approvePlan(ctx, w.reason, w.snippets, w.calls)
		if f := l.h.awaits.fatalReason(); f != "" {
			return Outcome{Status: run.StatusFailed, Reason: f}
		}
		if o, stop := l.h.stopped(ctx); stop {
			return o
		}
		if deny != "" {
			if err := l.refuseStep(ctx, w.calls, deny); err != nil {
				return l.h.storeFault(ctx, err)
			}
			return l.run(ctx)
		}
	}
	res, err := l.h.st.exec.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, runGate{l.h.awaits, l.h})
	if o, done := l.afterStep(ctx, res, err); done {
		return o
	}
	return l.run(ctx)
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
	// retries is how many invalid results the latest turn answered.
	retries  int
	reason   string
	calls    []ToolCall
	snippets []string
}

// unfinishedWork reads, from a run's events, what its loop counts (model
// steps, turns, awaits, an approved plan) and the work of its last step
// that the log does not record as done. The conversation is not rebuilt
// here: it is the fold of the same events (conversation.apply).
func unfinishedWork(events []run.Event) unfinished {
	var w unfinished
	lastText, executedSnippets := "", 0
	done := map[string]bool{}
	var scheduled []ToolCall
	var lastPlanAwait string
	users, tokens := 0, int64(0)
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.UserMessage:
			if users++; users > 1 {
				w.turnSteps, w.turnTokens = w.modelSteps, tokens
			}
			w.retries = 0
		case run.Error:
			if strings.HasPrefix(p.Message, invalidResult) {
				w.retries++
			}
			if p.Sent != "" { // the model was told: a refused plan, an invalid result
				executedSnippets = max(executedSnippets, len(extractCode(lastText))) // no code of the answer will run
				for _, id := range p.Refused {
					done[id] = true
				}
			}
		case run.Usage:
			w.modelSteps++
			tokens += p.InputTokens + p.OutputTokens
			scheduled, done, executedSnippets, lastText = nil, map[string]bool{}, 0, ""
		case run.AssistantMessage:
			lastText = p.Text
		case run.ToolCallScheduled:
			scheduled = append(scheduled, p.Call)
		case run.ToolCallCompleted:
			done[p.CallID] = true
		case run.SnippetExecuted:
			executedSnippets++
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
	for _, c := range scheduled {
		if !done[c.ID] {
			w.calls = append(w.calls, c)
		}
	}
	if codes := extractCode(lastText); executedSnippets < len(codes) {
		w.snippets = codes[executedSnippets:]
	}
	w.reason = lastText
	return w
}

// continueRestored waits for the answer to the await that was pending when
// the run's process stopped, finishes the step it interrupted and goes on
// with the loop.
func (l *loop) continueRestored(ctx context.Context, p *pendingAwait, w unfinished) Outcome {
	answer, err := l.h.awaits.wait(ctx, p)
	if f := l.h.awaits.fatalReason(); f != "" {
		return Outcome{Status: run.StatusFailed, Reason: f}
	}
	if o, stop := l.h.stopped(ctx); stop {
		return o
	}
	if err != nil {
		return l.h.fail(ctx, err.Error())
	}
	plan := p.req.Await == run.AwaitApproval && p.req.Call == nil && p.req.Snippet == nil
	if plan {
		if answer.Decision == run.Denied {
			reason := answer.Reason
			if reason == "" {
				reason = "no reason given"
			}
			if err := l.refuseStep(ctx, w.calls, "the user rejected the plan: "+reason+". Propose another plan."); err != nil {
				return l.h.storeFault(ctx, err)
			}
			return l.run(ctx)
		}
		l.h.awaits.approvePlan()
		res, err := l.h.st.exec.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, runGate{l.h.awaits, l.h})
		if o, done := l.afterStep(ctx, res, err); done {
			return o
		}
		return l.run(ctx)
	}
	g := &restoredGate{runGate: runGate{l.h.awaits, l.h}, req: p.req, answer: answer}
	res, err := l.h.st.exec.execute(ctx, Step{Snippets: w.snippets, Calls: w.calls, Reason: w.reason}, g)
	if o, done := l.afterStep(ctx, res, err); done {
		return o
	}
	return l.run(ctx)
}

// restoredGate is the gate of a restored step: the first question of the kind
// that was pending gets the answer given to the restored await; the rest go
// to the run as usual.
type restoredGate struct {
	runGate
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
	return g.awaits.approveCall(ctx, c, refs, needsApproval)
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
	return g.awaits.approveSnippet(ctx, code, access, guarded)
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
	return g.awaits.human(ctx, c, refs, need)
}

func (g *restoredGate) question(ctx context.Context, c ToolCall, question string) (string, string) {
	if a, ok := g.take(run.AwaitQuestion); ok {
		return a.Text, ""
	}
	return g.awaits.question(ctx, c, question)
}
