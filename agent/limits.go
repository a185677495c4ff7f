package agent

import "github.com/byref/byref/run"

// Defaults of Limits.
const (
	DefaultMaxSteps      = 25
	DefaultResultRetries = 2
	DefaultContextWindow = 128_000
	DefaultContextShare  = 0.75
	DefaultLargeResult   = 8_000
)

// Limits bound a run: run.Limits, which the run's log records. The zero
// value of each field means the default above.
type Limits = run.Limits

// withDefaults returns l with its zero fields set to the defaults.
func withDefaults(l Limits) Limits {
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
