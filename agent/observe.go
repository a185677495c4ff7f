package agent

import (
	"context"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// SpanKind names the kinds of work a Tracer sees.
type SpanKind string

// The kinds of span, nested in this order.
const (
	SpanRun     SpanKind = "run"     // a run's turn, from start (or follow-up) to its end
	SpanModel   SpanKind = "model"   // one model call
	SpanStep    SpanKind = "step"    // the execution of one step
	SpanTool    SpanKind = "tool"    // one tool call
	SpanSnippet SpanKind = "snippet" // one Go snippet
)

// Span describes the work a Tracer is told about.
type Span struct {
	Kind SpanKind
	// Name is the run's name, the model's name, the action's name, or
	// "snippet".
	Name  string
	RunID run.ID
	Tags  map[string]string
	// Step is the step's number (model, step, tool and snippet spans).
	Step int
	// CallID is the tool call's ID.
	CallID string
}

// SpanEnd is how the work ended.
type SpanEnd struct {
	// Err is set when the work failed: a failed call, a failed model call,
	// a run that failed.
	Err error
	// Usage is the tokens a model call spent.
	Usage llm.Usage
	// Status is the status a run's turn ended in.
	Status run.Status
}

// Tracer observes the work of runs; package otel implements it with
// OpenTelemetry. Start is called when a run's turn, a model call, a step, a
// tool call or a snippet begins; the work runs under the returned context
// (so the trace reaches actions through their context), and end is called
// once when it finishes. Implementations must be safe for concurrent use.
type Tracer interface {
	Start(ctx context.Context, s Span) (context.Context, func(SpanEnd))
}

type runInfoKey struct{}

// runInfo is what nested spans need to know of their run.
type runInfo struct {
	id   run.ID
	tags map[string]string
}

// startSpan starts a span on tracer, if there is one, naming the run that
// ctx is part of.
func startSpan(ctx context.Context, tracer Tracer, s Span) (context.Context, func(SpanEnd)) {
	if tracer == nil {
		return ctx, func(SpanEnd) {}
	}
	if info, ok := ctx.Value(runInfoKey{}).(*runInfo); ok && s.RunID == "" {
		s.RunID, s.Tags = info.id, info.tags
	}
	return tracer.Start(ctx, s)
}
