package runtime

import "github.com/byref/byref/llm"

// Defaults of Limits.
const (
	DefaultMaxSteps      = 25
	DefaultResultRetries = 2
	DefaultContextWindow = 128_000
	DefaultContextShare  = 0.75
	DefaultLargeResult   = 8_000
)

// Limits bound a run. The zero value means the defaults.
type Limits struct {
	// MaxSteps is the number of model calls after which the run (or the
	// turn, after a follow-up) completes with a null result. Zero means
	// DefaultMaxSteps.
	MaxSteps int
	// MaxTokens is the token budget of a turn (input plus output, as the
	// model reports them) after which it completes with a null result.
	// Zero means no budget.
	MaxTokens int64
	// ResultRetries is how many invalid results go back to the model before
	// the run completes with a null result. Zero means
	// DefaultResultRetries; negative means none.
	ResultRetries int
	// ContextWindow is the model's context window, in tokens. Zero means
	// DefaultContextWindow.
	ContextWindow int
	// ContextShare is the share of the window a request may fill before
	// the run compacts its context, between 0 and 1, when CompactAt is
	// zero. Zero, or a value outside that range, means
	// DefaultContextShare.
	ContextShare float64
	// CompactAt is the estimated size of a request, in tokens, past which
	// the run compacts its context before sending it: every message after
	// the task becomes one summary the runtime writes from the log, which
	// names each earlier step's variables by reference with a one-line
	// preview (the values stay in the variables). Zero means ContextShare
	// of ContextWindow.
	CompactAt int
	// ModelSummary adds, at a compaction, a summary the model writes of
	// the messages it folds (one model call without tools) to the one the
	// runtime writes; the log records the whole text. Off by default: the
	// runtime's summary costs no call and names every variable.
	ModelSummary bool
	// LargeResult is the size, in bytes, above which a tool result is
	// kept as a variable and the model gets its preview and reference.
	// Zero means DefaultLargeResult.
	LargeResult int
	// Retry is how model calls are retried on rate limits and provider
	// errors; the zero value is llm.RetryPolicy's default.
	Retry llm.RetryPolicy
}

func (l Limits) withDefaults() Limits {
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.ResultRetries == 0 {
		l.ResultRetries = DefaultResultRetries
	}
	if l.ContextWindow <= 0 {
		l.ContextWindow = DefaultContextWindow
	}
	if l.ContextShare <= 0 || l.ContextShare > 1 {
		l.ContextShare = DefaultContextShare
	}
	if l.CompactAt <= 0 {
		l.CompactAt = int(float64(l.ContextWindow) * l.ContextShare)
	}
	if l.LargeResult <= 0 {
		l.LargeResult = DefaultLargeResult
	}
	return l
}
