package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// loop drives the model of one turn of a run, on the run's goroutine, the
// only one that executes its steps: it calls the model, runs the steps it
// asks for and decides how the turn ends. It owns what the turn counts
// (the run's limits and the invalid results it answered), which nothing
// else reads, so they need no lock; the run's control (Handle) keeps the
// lifecycle, its awaits and its conversation their own.
type loop struct {
	h   *Handle
	lim Limits
	// retries is how many invalid results the turn has answered.
	retries int
}

// newLoop is the loop of run h's turn, which answered retries invalid
// results already (a restored run's).
func (h *Handle) newLoop(retries int) *loop {
	return &loop{h: h, lim: withDefaults(h.opts.Limits), retries: retries}
}

// run drives the model until the turn ends, and returns its outcome.
func (l *loop) run(ctx context.Context) Outcome {
	for {
		if o, done := l.modelStep(ctx); done {
			return o
		}
	}
}

// modelStep is one model call and the step it asks for: done reports that
// the turn ended, with its outcome.
func (l *loop) modelStep(ctx context.Context) (Outcome, bool) {
	if o, done := l.beforeModel(ctx); done {
		return o, true
	}
	resp, step, o, done := l.callModel(ctx)
	if done {
		return o, true
	}
	calls := resp.ToolCalls // one type from the provider to the step
	snippets := extractCode(resp.Text)
	before := []run.Payload{l.h.conv.usage(resp.Usage)}
	if resp.Text != "" || resp.Reasoning != "" || len(resp.Thinking) > 0 {
		before = append(before, run.AssistantMessage{Step: step, Text: resp.Text, Reasoning: resp.Reasoning, Thinking: resp.Thinking})
	}
	if kind, reason := stopFailure(resp); kind != "" {
		// A refused or cut answer is not a result, and its calls are
		// not run: fail with the typed reason, keeping what was said.
		if err := l.h.rec.append(ctx, before...); err != nil {
			return l.h.storeFault(ctx, err), true
		}
		return l.h.failWith(ctx, run.Error{Step: step, Message: reason, Failure: kind, Refusal: resp.Refusal}, reason), true
	}

	if len(calls) == 0 && len(snippets) == 0 {
		// A plain answer: it is the result.
		if err := l.h.rec.append(ctx, before...); err != nil {
			return l.h.storeFault(ctx, err), true
		}
		return l.textResult(ctx, resp.Text)
	}

	if o, done := l.schedule(ctx, step, before, calls); done {
		return o, true
	}
	if o, done, refused := l.approveStep(ctx, resp.Text, snippets, calls); done || refused {
		return o, done
	}
	res, err := l.h.st.exec.execute(ctx, Step{Snippets: snippets, Calls: calls, Reason: resp.Text}, runGate{l.h.awaits, l.h})
	return l.afterStep(ctx, res, err)
}

// beforeModel checks, before a model call, that the run goes on: not
// cancelled, within its step limit and token budget, and not paused.
func (l *loop) beforeModel(ctx context.Context) (Outcome, bool) {
	if o, stop := l.h.stopped(ctx); stop {
		return o, true
	}
	l.h.mu.Lock()
	steps, usage := l.h.steps-l.h.turnSteps, l.h.usage.Total()-l.h.turnTokens
	l.h.mu.Unlock()
	if steps >= l.lim.MaxSteps {
		return l.h.complete(ctx, nil, fmt.Sprintf("the step limit (%d) was reached before the task was done", l.lim.MaxSteps)), true
	}
	if l.lim.MaxTokens > 0 && int64(usage) >= l.lim.MaxTokens {
		return l.h.complete(ctx, nil, fmt.Sprintf("the token budget (%d) was spent before the task was done", l.lim.MaxTokens)), true
	}
	if err := l.checkpoint(ctx, PauseModel); err != nil {
		if o, stop := l.h.stopped(ctx); stop {
			return o, true
		}
		return l.h.fail(ctx, err.Error()), true
	}
	return Outcome{}, false
}

// callModel asks the model for the next step, and counts the call: step
// is the number of the step it asks for.
func (l *loop) callModel(ctx context.Context) (resp llm.Response, step int, o Outcome, done bool) {
	if err := l.h.rec.setPhase(ctx, run.PhasePlanning); err != nil {
		return resp, 0, l.h.storeFault(ctx, err), true
	}
	req, summarized, err := l.h.conv.request(ctx, l.lim)
	l.h.mu.Lock()
	l.h.usage = l.h.usage.Add(summarized) // a compaction's summary by the model
	l.h.mu.Unlock()
	if err != nil {
		return resp, 0, l.h.storeFault(ctx, err), true
	}
	modelCtx, endModel := l.h.st.startSpan(ctx, Span{Kind: SpanModel, Name: l.h.opts.ModelName, Step: l.h.st.Steps() + 1})
	resp, err = l.h.generate(modelCtx, req)
	endModel(SpanEnd{Err: err, Usage: resp.Usage})
	if err != nil {
		l.h.st.log().Warn("model call failed", "run", string(l.h.id), "err", err)
		if o, stop := l.h.stopped(ctx); stop {
			return resp, 0, o, true
		}
		return resp, 0, l.h.failAs(ctx, run.FailureModel, "model: "+err.Error()), true
	}
	l.h.mu.Lock()
	l.h.steps++
	step = l.h.st.Steps() + 1 // the loop is the only executor of its runtime's steps
	l.h.usage = l.h.usage.Add(resp.Usage)
	l.h.mu.Unlock()
	return resp, step, Outcome{}, false
}

// schedule records the step's calls as scheduled, after the model's
// message (before), and pauses there if asked to.
func (l *loop) schedule(ctx context.Context, step int, before []run.Payload, calls []ToolCall) (Outcome, bool) {
	before = append(before, run.PhaseChanged{From: run.PhasePlanning, To: run.PhaseExecuting})
	for _, c := range calls {
		// Resolved when it runs (after the step's snippets and earlier
		// calls, which may make the variables it refers to); the
		// resolution is recorded with its completion.
		before = append(before, run.ToolCallScheduled{Step: step, Call: c})
	}
	if err := l.h.rec.appendPhased(ctx, before...); err != nil {
		return l.h.storeFault(ctx, err), true
	}
	if err := l.checkpoint(ctx, PauseStep); err != nil {
		if o, stop := l.h.stopped(ctx); stop {
			return o, true
		}
		return l.h.fail(ctx, err.Error()), true
	}
	return Outcome{}, false
}

// approveStep asks for the approval of the run's plan, under
// ApproveOnStart, before its first step: refused reports that the step was
// denied (and recorded so), done that the turn ended.
func (l *loop) approveStep(ctx context.Context, text string, snippets []string, calls []ToolCall) (o Outcome, done, refused bool) {
	if l.h.opts.Approval != ApproveOnStart || l.h.awaits.planApproved() {
		return Outcome{}, false, false
	}
	deny := l.approvePlan(ctx, text, snippets, calls)
	if f := l.h.awaits.fatalReason(); f != "" {
		return Outcome{Status: run.StatusFailed, Reason: f}, true, false
	}
	if o, stop := l.h.stopped(ctx); stop {
		return o, true, false
	}
	if deny != "" {
		if err := l.refuseStep(ctx, calls, deny); err != nil {
			return l.h.storeFault(ctx, err), true, false
		}
		return Outcome{}, false, true
	}
	return Outcome{}, false, false
}

// afterStep goes on from a step that the State ran and recorded (runLog:
// in the log, and given to the model; recorded is the log's error): it
// fails the run on a call's failure of a typed kind, and handles
// terminate; done reports that the turn ended.
func (l *loop) afterStep(ctx context.Context, res StepResult, recorded error) (Outcome, bool) {
	if f := l.h.awaits.fatalReason(); f != "" {
		return Outcome{Status: run.StatusFailed, Reason: f}, true
	}
	if errors.Is(context.Cause(ctx), ErrClosed) {
		// The agent was closed during the step, which was not recorded.
		return l.h.closed(ctx), true
	}
	if recorded != nil {
		return l.h.storeFault(ctx, recorded), true
	}
	for _, r := range res.Responses {
		if f := r.Failure; f != nil {
			reason := r.Name + ": " + f.Message
			return l.h.failAs(ctx, f.Kind, reason), true
		}
	}
	if res.Termination != nil {
		return l.terminate(ctx, res)
	}
	return Outcome{}, false
}

// terminate handles a step that called terminate.
func (l *loop) terminate(ctx context.Context, res StepResult) (Outcome, bool) {
	t := res.Termination
	if t.Success && t.Tainted {
		return l.taintedResult(ctx, t)
	}
	if !t.Success {
		// The model gave up: the run fails, typed, with its reason.
		reason := "the model gave up: it reported that it could not do the task"
		if t.Result != nil && !t.Tainted {
			reason += ": " + l.h.st.redacted(fmt.Sprint(t.Result))
		}
		return l.h.failAs(ctx, run.FailureGaveUp, reason), true
	}
	value, err := l.resultJSON(t.Result)
	if err == nil {
		o := l.h.complete(ctx, value, "")
		o.ResultVariable = t.From
		return o, true
	}
	return l.retryResult(ctx, err)
}

// taintedResult completes a run whose result is a secret or derived from
// one. The result is checked against the result schema, but neither the
// model nor the log sees it: the recorded result is null and the reason
// names the variable, which the host reads in Go (Outcome.ResultVariable).
// A result that everybody may see must come from an action that
// declassifies it.
func (l *loop) taintedResult(ctx context.Context, t *action.Termination) (Outcome, bool) {
	if l.h.result != nil {
		b, err := marshal(t.Result)
		if err == nil {
			err = l.h.result.Validate(b)
		}
		if err != nil {
			return l.retryResult(ctx, errors.New("the variable "+t.From+" does not match the result schema (its value is hidden: it is derived from a secret)"))
		}
	}
	o := l.h.complete(ctx, nil, "the result is the variable "+t.From+", which is a secret or derived from one: it is kept from the model and the log, and the host reads it in Go")
	o.ResultVariable, o.Redacted = t.From, true
	return o, true
}

// textResult handles an answer given as text, with no call and no code.
func (l *loop) textResult(ctx context.Context, text string) (Outcome, bool) {
	if l.h.result == nil {
		b, _ := marshal(text)
		return l.h.complete(ctx, b, ""), true
	}
	value, err := l.resultJSON(text)
	if err == nil {
		return l.h.complete(ctx, value, ""), true
	}
	return l.retryResult(ctx, err)
}

// invalidResult begins the message of the run.Error that records an
// invalid result: a restored run counts them (unfinished.retries).
const invalidResult = "invalid result: "

// maxErrorQuote bounds the text of an error quoted back to the model, which
// may quote the value it refused.
const maxErrorQuote = 1 << 10

// retryResult tells the model its result was invalid, or gives up.
func (l *loop) retryResult(ctx context.Context, err error) (Outcome, bool) {
	l.retries++
	fault := run.Error{Message: invalidResult + clip(err.Error(), maxErrorQuote)}
	give := l.retries <= l.lim.ResultRetries && l.lim.ResultRetries >= 0
	if give {
		fault.Sent = "Your result is not valid: " + clip(err.Error(), maxErrorQuote) + ". Call terminate again with a result that matches the result schema."
	}
	if !give { // recorded with the turn's end, which a restored run then has
		return l.h.complete(ctx, nil, "no valid result after "+fmt.Sprint(l.retries)+" attempts: "+clip(err.Error(), maxErrorQuote), fault), true
	}
	_ = l.h.rec.append(ctx, fault) // told to the model when it applies (conversation)
	return Outcome{}, false
}

// resultJSON encodes a result and validates it against the result schema.
// A string holding JSON is accepted as that JSON when the schema wants it.
func (l *loop) resultJSON(v any) (json.RawMessage, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the result cannot be written as JSON (%v); return a JSON value or a JSON-representable variable", err)
	}
	if l.h.st.showsSecret(string(b)) {
		return nil, errors.New("the result holds the value of a secret variable, and results are recorded; return something that does not contain it")
	}
	if l.h.result == nil {
		return b, nil
	}
	verr := l.h.result.Validate(b)
	if verr == nil {
		return b, nil
	}
	if s, ok := v.(string); ok && json.Valid([]byte(strings.TrimSpace(s))) {
		inner := json.RawMessage(strings.TrimSpace(s))
		if l.h.result.Validate(inner) == nil {
			return inner, nil
		}
	}
	return nil, verr
}

// stopFailure says whether the model's stop reason fails the run, and why:
// a refusal or a content filter (the answer is not the task done), or the
// output token limit (the text or the last call's arguments are cut, and
// chat APIs cannot resume a cut tool call, so the run fails rather than
// asking the model to go on).
func stopFailure(resp llm.Response) (run.FailureKind, string) {
	switch {
	case resp.StopReason == llm.StopRefusal:
		what := resp.Refusal
		if what == "" {
			what = resp.Text
		}
		return run.FailureRefusal, "the model refused the task: " + preview(what)
	case resp.StopReason == llm.StopContentFilter:
		return run.FailureContentFilter, "the provider's content filter stopped the model's answer"
	case resp.StopReason.Truncated():
		return run.FailureMaxTokens, "the model's answer was cut off by its output token limit; raise the model's max tokens (llm.Config.MaxTokens)"
	}
	return "", ""
}

// preview bounds a model's text quoted in a failure reason.
func preview(s string) string {
	const limit = 500
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// approvePlan awaits the approval of the model's plan: its text and the
// step it wants to run first. It returns why the plan was refused, or "".
func (l *loop) approvePlan(ctx context.Context, text string, snippets []string, calls []ToolCall) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(text))
	if len(calls) > 0 || len(snippets) > 0 {
		b.WriteString("\n\nFirst step:")
		for _, c := range calls {
			fmt.Fprintf(&b, "\n- %s %s", c.Name, c.Arguments)
		}
		for range snippets {
			b.WriteString("\n- a Go snippet")
		}
	}
	a, err := l.h.awaits.ask(ctx, run.AwaitRequested{Await: run.AwaitApproval, Message: "Approve this plan?\n\n" + b.String()})
	if err != nil {
		return "not run: " + err.Error()
	}
	if a.Decision == run.Denied {
		reason := a.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return "the user rejected the plan: " + reason + ". Propose another plan."
	}
	l.h.awaits.approvePlan()
	return ""
}

// refuseStep answers every call of a step that must not run (or the step
// itself, without calls) by recording the answers (run.Error.Refused):
// the conversation applies them, and a restored run does not run the
// refused calls.
func (l *loop) refuseStep(ctx context.Context, calls []ToolCall, why string) error {
	refusal := run.Error{Message: why, Sent: why}
	for _, c := range calls {
		refusal.Refused = append(refusal.Refused, c.ID)
	}
	return l.h.rec.append(ctx, refusal)
}
