package run

// FailureKind says, in a form a program can test, why a run failed when the
// cause is the model's answer rather than a fault. The [Error] event that
// precedes the move to failed carries it, and [Snapshot.FailureKind] keeps
// it; [Snapshot.FailureReason] keeps the text for people.
type FailureKind string

// The kinds of failure the runtime records.
const (
	// FailureRefusal means the model declined to do the task; the
	// refusal's text is kept in [Error.Refusal] and [Snapshot.Refusal].
	FailureRefusal FailureKind = "refusal"
	// FailureContentFilter means the provider's safety filter stopped the
	// model's answer.
	FailureContentFilter FailureKind = "content_filter"
	// FailureMaxTokens means the model's answer was cut by its output token
	// limit, so its text or its tool calls are incomplete. The runtime does
	// not continue such an answer; raise the model's output limit (for
	// models opened with llm.Open, llm.Config.MaxTokens).
	FailureMaxTokens FailureKind = "max_tokens"
)
