package agent

import (
	"context"
	"log/slog"
	"reflect"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Options configures an Agent. The zero value is valid: no actions but the
// built-in terminate, no variables, reference mode.
type Options struct {
	// Actions the model may call. Nil means none besides the built-ins.
	// The set is shared, never modified.
	Actions *action.Set
	// Variables are the starting variables, recorded at step 0.
	Variables []variable.Spec

	// Rebind brings back a variable of a session (RunOptions.Session)
	// whose value neither this process holds nor the log can give: a live
	// value (a database handle, a browser page) after a restart or on
	// another process, or a secret. It is given the variable's name and
	// type name (as variable.TypeName writes it: "*sql.DB") and returns
	// its value, of that type, or false; a variable that comes back
	// neither way is named to the model as gone, with why. Nil re-binds
	// nothing.
	Rebind func(ctx context.Context, name, typ string) (value any, ok bool)
	// Types are Go types that session variables and restored runs may
	// hold, so that a JSON value from the log gets its type back (a
	// []main.Order, not a []any); matched by variable.TypeName. The types
	// of the actions' parameters and results and of Variables need no
	// entry, nor do strings, booleans, numbers and slices and maps of
	// them.
	Types []reflect.Type
	// SessionCache is how many sessions' variables the agent holds in
	// memory after their runs end (the most recently used), so that live
	// values reach the session's next run. Zero means
	// DefaultSessionCache; negative holds none.
	SessionCache int
	// HideFromAI switches to plain mode: ordinary JSON schemas with no
	// references, actions with reference-only parameters left out, and tool
	// responses that carry result values instead of variable names.
	HideFromAI bool
	// PreviewLimit bounds every preview the model sees, in characters. Zero
	// means variable.DefaultPreviewLimit.
	PreviewLimit int
	// CallTimeout bounds each call of an action, whether or not the
	// action honours its context, when the step's context has no earlier
	// deadline. An action that takes a context sees the deadline; one that
	// does not return by it is abandoned: its call fails with
	// ErrCallTimeout, the run goes on, and the late result is discarded.
	// A bare State's Execute runs on its caller's goroutine and returns
	// when the action does; a success later than the deadline is
	// discarded there too. Zero means DefaultCallTimeout; negative means
	// no bound.
	CallTimeout time.Duration
	// CancelGrace is how long a cancelled step waits for a running action
	// to return before abandoning it (the run then reaches canceled).
	// Zero means DefaultCancelGrace; negative means it waits for the
	// action however long it takes.
	CancelGrace time.Duration
	// MaxOutput bounds what one call may write to each of its stdout and
	// stderr, in bytes; the rest is dropped with a note. Zero means
	// DefaultMaxOutput.
	MaxOutput int
	// MaxMessage bounds every message the model is sent, in bytes: the
	// system prompt, the task and its input, tool results, errors,
	// answers, approvals' reasons and follow-ups. A longer text is cut,
	// with a note saying how much was cut. Zero means DefaultMaxMessage.
	// Tool results above Limits.LargeResult are kept as variables before
	// this bound applies; it is the last guard.
	MaxMessage int
	// Snippets configures the Go interpreter that runs the model's code
	// (its limits and the host packages snippets may import). The
	// interpreter is created on the first snippet.
	Snippets interp.Options
	// DisableSnippets turns Go snippets off: no run_go action, and code
	// blocks in the model's text are ignored.
	DisableSnippets bool

	// Model is the model runs use unless RunOptions.Model overrides it.
	Model llm.Model
	// Prices are what the models' tokens cost, by the model name a run
	// records (RunOptions.ModelName; the key "" prices the runs that name
	// none), so that a run reports its cost (Outcome.Cost). Nil prices
	// nothing: byref ships no price table.
	Prices map[string]llm.Price
	// Store records runs. Nil means an in-memory store of the runtime's
	// own; use run/sqlite for runs that survive the process.
	Store run.Store

	// Answer answers, in the process, what the runs started by this agent
	// await: the approval of a call, a snippet or a plan, a question to the
	// user, input, an authorization. It is called on a goroutine of its
	// own when the await is recorded; its answer resumes the run, and
	// false leaves the await to Resume (Run returns it in its Outcome).
	// Nil leaves every await to Resume. A run restored while awaiting
	// waits for Resume.
	Answer AnswerFunc

	// Logger receives the runtime's logs: runs starting and ending at
	// Info, model and store faults at Warn, steps and failed calls at
	// Debug. Nil means no logs.
	Logger *slog.Logger
	// Tracer observes runs, model calls, steps, tool calls and snippets
	// (package otel adapts OpenTelemetry). Nil means none.
	Tracer Tracer
}

// AnswerFunc answers an await in the process: req is what the run awaits
// (its Await kind, its Message, the Call or Snippet to approve with their
// resolved arguments). It returns the answer and true, or false to leave
// the await to Resume. ctx is canceled when the run's turn ends.
type AnswerFunc func(ctx context.Context, req run.AwaitRequested) (run.Answer, bool)
