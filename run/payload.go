package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Payload is the typed content of an [Event]: one struct per [EventType].
// The set is closed: only this package's types implement it. Switch on the
// concrete type to read one:
//
//	switch p := e.Payload.(type) {
//	case run.ToolCallCompleted:
//		fmt.Println(p.CallID, p.Duration)
//	}
//
// Payloads are values. Their slices and maps are shared by every copy of
// the event: treat them as immutable once appended to a store.
type Payload interface {
	// Kind returns the event type this payload is recorded under.
	Kind() EventType
	isPayload()
}

// RunCreated is the first event of every run (sequence number 1), written
// by [Store.Create]. Its run starts in [StatusCreated].
type RunCreated struct {
	// Name is a human-readable name.
	Name string `json:"name,omitempty"`
	// Session groups this run with the other turns of a conversation.
	Session SessionID `json:"session,omitempty"`
	// Turn is the conversational turn this run serves.
	Turn TurnID `json:"turn,omitempty"`
	// ParentRun is the run whose tool call started this one, for a child
	// run; empty for a top-level run.
	ParentRun ID `json:"parent_run,omitempty"`
	// ParentToolCall is the ID of that tool call.
	ParentToolCall string `json:"parent_tool_call,omitempty"`
	// Tags are key-value pairs runs can be listed by (see [Query]).
	Tags map[string]string `json:"tags,omitempty"`
	// Input is the structured input, as JSON; nil for none.
	Input json.RawMessage `json:"input,omitempty"`
	// Options is the rest of the run's spec.
	Options Spec `json:"options,omitzero"`
}

// StatusChanged records a move of the run's status. Stores refuse one whose
// From is not the run's current status or whose move [CanTransition]
// refuses.
type StatusChanged struct {
	From   Status `json:"from"`
	To     Status `json:"to"`
	Reason string `json:"reason,omitempty"` // why, e.g. "interrupted" or an await timeout
}

// PhaseChanged records a move of the run's phase within running.
type PhaseChanged struct {
	From Phase `json:"from,omitempty"`
	To   Phase `json:"to"`
}

// UserMessage is a message from the user: the task, or a follow-up.
type UserMessage struct {
	Text string `json:"text"`
	Turn TurnID `json:"turn,omitempty"` // the turn it opens, if any
	// Message is the protocol message that carried Text, as its client
	// sent it (an A2A message, as JSON: its ID, parts and metadata), kept
	// so that a protocol server shows the history as sent; nil for a
	// message from Go. The model never reads it.
	Message json.RawMessage `json:"message,omitempty"`
	// Sent is the text the model was given for this message, when it is
	// not Text (a follow-up that also announces variables the host defined
	// since the last turn): a restored run gives the model the same bytes.
	Sent string `json:"sent,omitempty"`
}

// AssistantMessage is text from the model, with the reasoning it stated.
type AssistantMessage struct {
	Step      int    `json:"step,omitempty"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// Thinking are the reasoning blocks the provider wants back with this
	// turn (Anthropic's extended thinking), kept so that a run restored
	// from its log sends them back as the live run would.
	Thinking []Thinking `json:"thinking,omitempty"`
}

// Thinking is a block of a model's reasoning its provider wants back
// unchanged: the text and the provider's signature over it, or the opaque
// data of a redacted block. For OpenAI's Responses API, a block is one part
// of a reasoning item's summary (Text), with the item's ID and, on its first
// part, its encrypted_content (Signature).
type Thinking struct {
	// Text is the reasoning as the provider showed it; empty for a redacted
	// block.
	Text string `json:"text,omitempty"`
	// Signature is the provider's signature over Text, which it checks when
	// the block comes back (a Responses reasoning item's encrypted_content).
	Signature string `json:"signature,omitempty"`
	// Redacted is the opaque data of a block the provider encrypted
	// (Anthropic's redacted_thinking); Text is then empty.
	Redacted string `json:"redacted,omitempty"`
	// Provider names the wire API that wrote the block, which alone reads
	// it back: empty for Anthropic's Messages API (the blocks logged before
	// this field existed), "openai-responses" for a reasoning item of
	// OpenAI's Responses API. A client sends back only its own blocks, so a
	// conversation that changes providers never hands one provider's opaque
	// state to another.
	Provider string `json:"provider,omitempty"`
	// ID is the provider's ID of the item the block belongs to (a Responses
	// reasoning item's "rs_…"), sent back with it. Consecutive blocks with
	// one ID are parts of one item (the parts of its summary).
	ID string `json:"id,omitempty"`
}

// VariableRef is a reference resolved to the variable it names, as an
// approver or an inspector sees it.
type VariableRef struct {
	Variable string `json:"variable"`
	Type     string `json:"type"`
	Preview  string `json:"preview,omitempty"` // bounded, redacted for secrets
}

// Argument is how one argument of a tool call was resolved: by reference
// to a variable (Ref, of Go type Type), as a raw JSON value (Raw), or as
// the parameter's default (Default: the argument was left out or null).
type Argument struct {
	// Param is the parameter's name.
	Param string `json:"param"`
	// Ref is the variable passed by reference, or "".
	Ref string `json:"ref,omitempty"`
	// Type is the Go type of Ref's variable, as variable.TypeName writes it.
	Type string `json:"type,omitempty"`
	// Raw is the raw JSON value, when Ref is "" and Default is false.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Default reports that the parameter took its default value.
	Default bool `json:"default,omitempty"`
}

// Resolution is how a tool call was resolved, once, when it was scheduled
// for execution: each argument in parameter order, and the return target.
// Replay code and the inspector read it; nothing parses the arguments
// again.
type Resolution struct {
	// Args are the arguments in parameter order.
	Args []Argument `json:"args"`
	// Target is the existing variable named in "return" to assign the
	// result to; "" means a new variable (or no result).
	Target string `json:"target,omitempty"`
}

// ToolCallScheduled records a tool call about to run (or to await approval).
type ToolCallScheduled struct {
	Step int      `json:"step,omitempty"`
	Call ToolCall `json:"call"`
}

// VariableInfo names a variable and describes it by type and preview.
type VariableInfo struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Preview string `json:"preview,omitempty"`
}

// ToolCallCompleted records the end of a tool call, successful or not.
type ToolCallCompleted struct {
	CallID   string        `json:"call_id"`
	Success  bool          `json:"success"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	// Stdout and Stderr are what the action wrote, bounded by the producer.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// Created and Modified are the variables the call created or changed.
	Created  []VariableInfo `json:"created,omitempty"`
	Modified []VariableInfo `json:"modified,omitempty"`
	// Resolution is how the call's arguments were resolved; nil when they
	// could not be (the call failed before it ran).
	Resolution *Resolution `json:"resolution,omitempty"`
	// Result is the variable the call's result was stored in, or "".
	Result string `json:"result,omitempty"`
	// Kept is the variable a result too large for the conversation was
	// kept in (the model got its start and the name), or "".
	Kept string `json:"kept,omitempty"`
	// Content is the text the model was given for this result, when it
	// is not the one rebuilt from the other fields (a value in plain
	// mode, a result kept as a variable, a cut): a restored run gives the
	// model the same bytes, so that its prompt cache still serves it.
	Content string `json:"content,omitempty"`
	// Snippet is the code a call of the built-in run_go ran, as run, with
	// the variables it reads and writes; nil for other calls and for a
	// run_go call refused before it ran.
	Snippet *Snippet `json:"snippet,omitempty"`
	// Start is when the call started.
	Start time.Time `json:"start,omitzero"`
	// Action is the Go identity of the called action, for replay code:
	// set on the first completion of each action in the run (a restored
	// run reads what its log holds), nil on the others and for the
	// built-in actions.
	Action *GoAction `json:"action,omitempty"`
	// Usage is what the call spent of the run's model on its own behalf
	// (an MCP server's sampling requests, served with the run's model),
	// nil when nothing: it counts in the run's usage, and is no model
	// step of the run's conversation.
	Usage *Usage `json:"usage,omitempty"`
}

// Snippet is Go code the model wrote, with the variables it reads and
// writes (from static analysis).
type Snippet struct {
	Code   string   `json:"code"`
	Reads  []string `json:"reads,omitempty"`
	Writes []string `json:"writes,omitempty"`
}

// SnippetExecuted records a snippet that ran.
type SnippetExecuted struct {
	Step     int            `json:"step,omitempty"`
	Snippet  Snippet        `json:"snippet"`
	Success  bool           `json:"success"`
	Error    string         `json:"error,omitempty"`
	Duration time.Duration  `json:"duration"`
	Stdout   string         `json:"stdout,omitempty"`
	Stderr   string         `json:"stderr,omitempty"`
	Created  []VariableInfo `json:"created,omitempty"`
	// Modified includes, for a failed snippet, the variables it may have
	// changed in place before failing (changes that could not be undone).
	Modified []VariableInfo `json:"modified,omitempty"`
	// Kept is the variable a result too large for the conversation was
	// kept in, or "".
	Kept string `json:"kept,omitempty"`
	// Content is the text the model was given for this result, when it
	// is not the one rebuilt from the other fields (a value in plain
	// mode, a result kept as a variable, a cut): a restored run gives the
	// model the same bytes, so that its prompt cache still serves it.
	Content string `json:"content,omitempty"`
	// Start is when the snippet started.
	Start time.Time `json:"start,omitzero"`
	// Actions are the Go identities of the actions the code names, for
	// replay code, each recorded once per run (see [GoAction]).
	Actions []GoAction `json:"actions,omitempty"`
}

// VariableCreated records a new variable.
type VariableCreated struct {
	// Step is the step that created it; 0 for a starting variable.
	Step     int          `json:"step,omitempty"`
	Variable VariableInfo `json:"variable"`
	// Secret reports that the preview is redacted and Value is omitted.
	Secret bool `json:"secret,omitempty"`
	// Tainted reports that the value is derived from a secret: the preview
	// is redacted and Value is omitted, as for a secret.
	Tainted bool `json:"tainted,omitempty"`
	// Handle reports that the value is a handle (a *sql.DB, a client, a
	// connection, a file: see package variable): a live resource whose
	// value is never recorded; replay code asks the host to supply it.
	Handle bool `json:"handle,omitempty"`
	// RunOnly reports a variable that stays with its run: a later run of
	// the session does not start with it ([Session]).
	RunOnly bool `json:"run_only,omitempty"`
	// Value is the JSON encoding of the value when its type is
	// JSON-representable and it is neither secret nor tainted; nil
	// otherwise. A run is
	// restored after a restart from these values.
	Value json.RawMessage `json:"value,omitempty"`
	// MediaType is the media type of a value whose Go type implements
	// [Media] (a PNG screenshot: "image/png"); such a value is output.
	MediaType string `json:"media_type,omitempty"`
	// GoType is the variable's type in the form of [GoType] (import
	// paths, not package names), for replay code; "" when it reads the
	// same as Variable.Type (no named type of a package).
	GoType string `json:"go_type,omitempty"`
	// Types describes the named types of GoType that the log has not
	// described yet.
	Types []NamedType `json:"types,omitempty"`
}

// VariableModified records a new value of an existing variable, assigned
// or mutated through a reference. Its fields are [VariableCreated]'s and
// mean what they mean there.
type VariableModified VariableCreated

// AwaitKind is what a run awaits.
type AwaitKind string

// The kinds of await.
const (
	// AwaitApproval: approval of the plan, of a tool call or of a snippet.
	AwaitApproval AwaitKind = "approval"
	// AwaitQuestion: an answer to a clarifying question.
	AwaitQuestion AwaitKind = "question"
	// AwaitAuthorization: the user must authorize at a link; the call is
	// retried on resume.
	AwaitAuthorization AwaitKind = "authorization"
	// AwaitInput: input from an external system.
	AwaitInput AwaitKind = "input"
)

// AwaitRequested records that the run waits for an answer. The run moves
// to awaiting in a [StatusChanged] that follows it.
type AwaitRequested struct {
	// ID identifies the await; the resume must name it.
	ID string `json:"id"`
	// Await is what is awaited. (The field cannot be called Kind: that is
	// the Payload method.)
	Await AwaitKind `json:"kind"`
	// Message is the question, the plan to approve, or what is asked.
	Message string `json:"message,omitempty"`
	// Call is the tool call to approve or authorize, with its references
	// resolved; nil when the await is not about a call.
	Call *ToolCall `json:"call,omitempty"`
	// Snippet is the snippet to approve; nil when the await is not about one.
	Snippet *Snippet `json:"snippet,omitempty"`
	// Link is where the user authorizes, for [AwaitAuthorization].
	Link string `json:"link,omitempty"`
	// Deadline is when the await times out and the run fails; zero for never.
	Deadline time.Time `json:"deadline,omitzero"`
	// Client reports that the run's client runs Call itself (an AG-UI
	// front end's tool, action.InputRequired.Client): the answer's Input
	// is the call's result, as the client gave it. The inspector shows
	// the call as answered by the client, and replay code uses the
	// recorded answer instead of calling a function.
	Client bool `json:"client,omitempty"`
}

// Check says what is wrong with answer as the answer to r, or returns nil:
// an approval or an authorization needs a Decision (and only the approval
// of a tool call takes edited Arguments, a JSON object), a question needs
// Text, input needs JSON.
func (r AwaitRequested) Check(answer Answer) error {
	switch r.Await {
	case AwaitApproval, AwaitAuthorization:
		if answer.Decision != Approved && answer.Decision != Denied {
			return fmt.Errorf("an %s needs a decision, %q or %q", r.Await, Approved, Denied)
		}
		if answer.Arguments != "" {
			if r.Call == nil {
				return errors.New("only the approval of a tool call takes edited arguments")
			}
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(answer.Arguments), &obj) != nil {
				return errors.New("edited arguments must be a JSON object")
			}
		}
	case AwaitQuestion:
		if answer.Text == "" {
			return errors.New("a question needs the answer's text")
		}
	case AwaitInput:
		if !json.Valid(answer.Input) {
			return errors.New("input must be JSON")
		}
	}
	return nil
}

// Decision is an approver's answer.
type Decision string

// The decisions an approver can give.
const (
	Approved Decision = "approved"
	Denied   Decision = "denied"
)

// Answer is the resolution of an await. Which fields are set depends on the
// await's kind.
type Answer struct {
	// Decision answers an approval or an authorization.
	Decision Decision `json:"decision,omitempty"`
	// Reason is why an approval was denied; the model is told.
	Reason string `json:"reason,omitempty"`
	// Arguments are edited arguments (a JSON object) to call instead of
	// the ones the model sent; empty to keep them.
	Arguments string `json:"arguments,omitempty"`
	// Text answers a question.
	Text string `json:"text,omitempty"`
	// Input is external input, as JSON.
	Input json.RawMessage `json:"input,omitempty"`
	// Message is the protocol message that carried the answer, as its
	// client sent it (an A2A message, as JSON), kept so that a protocol
	// server shows the answer in the history as sent; nil for an answer
	// from Go. The model never reads it.
	Message json.RawMessage `json:"message,omitempty"`
}

// AwaitResolved records the answer to a pending await.
type AwaitResolved struct {
	ID     string `json:"id"`
	Answer Answer `json:"answer"`
}

// ChildRunStarted records a child run started by one of this run's tool
// calls (an agent used as an action).
type ChildRunStarted struct {
	Child  ID     `json:"child"`
	CallID string `json:"call_id"`
	Name   string `json:"name,omitempty"`
}

// ChildRunFinished records how a child run ended.
type ChildRunFinished struct {
	Child  ID              `json:"child"`
	CallID string          `json:"call_id"`
	Status Status          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Progress records what a tool call reported while it ran: a remote
// agent's status, how far a long action has got. People watching the run
// see it (the snapshot, the inspector, the protocols' streams); the model
// does not.
type Progress struct {
	CallID  string `json:"call_id"`
	Message string `json:"message"`
}

// Result records the run's result. A run can have several (one per
// follow-up); the latest wins.
type Result struct {
	// Value is the result as JSON: the literal null when the run could not
	// produce one.
	Value json.RawMessage `json:"value"`
}

// ContextCompacted records that the run compacted what the model reads,
// before the model call of step Step + 1, because the next request would
// have passed the threshold (Tokens of Threshold, estimated). Every message
// after the task was replaced by Summary, which names each earlier step's
// calls and the variables they made, by reference with a one-line
// preview: the values stay in the run's variables. A restored run rebuilds
// its conversation from here, byte for byte.
type ContextCompacted struct {
	// Step is the last step folded into the summary.
	Step int `json:"step"`
	// Messages is how many messages were folded.
	Messages int `json:"messages"`
	// Tokens is the estimated size of the request that would have been
	// sent, and Threshold the size past which the run compacts.
	Tokens    int `json:"tokens"`
	Threshold int `json:"threshold"`
	// Summary is the message that replaced them, as the model reads it.
	Summary string `json:"summary"`
	// Tools names the tools offered from here on, when relevance
	// selection chose them again; empty when the tool list is unchanged.
	Tools []string `json:"tools,omitempty"`
	// Usage is the tokens of the model call that wrote a part of the
	// summary (a run's Limits.ModelSummary), nil when none did; the
	// snapshot counts them with the run's usage.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage records tokens spent by one model call.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens
	// the provider read from its prompt cache and wrote to it.
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens the model spent
	// reasoning, for providers that count it apart.
	ReasoningTokens int64 `json:"reasoning_tokens,omitempty"`
	// Cost is what the provider said the call cost, in dollars
	// (OpenRouter's usage.cost); 0 when it said nothing.
	Cost float64 `json:"cost,omitempty"`
	// System is the system prompt the call was sent, recorded on the run's
	// first model call only (it is written once per run): a restored run
	// sends the same bytes, whatever its variables hold by then.
	System string `json:"system,omitempty"`
}

// Add returns the sum of u and v, each count and the cost: a run's usage
// so far. System, the record of one call's prompt, is left empty.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CacheReadTokens: u.CacheReadTokens + v.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens: u.ReasoningTokens + v.ReasoningTokens, Cost: u.Cost + v.Cost,
	}
}

// Error records a fault worth keeping: a model call retried, a result that
// failed validation, or, with Failure set, why the run is about to fail.
type Error struct {
	Step    int    `json:"step,omitempty"`
	Message string `json:"message"`
	// Failure, when set, is the typed reason of the failure that follows.
	Failure FailureKind `json:"failure,omitempty"`
	// Refusal is what the model said when it declined (Failure
	// [FailureRefusal] or [FailureContentFilter]).
	Refusal string `json:"refusal,omitempty"`
	// Sent is the message the model was given about this fault, when it
	// was told (an invalid result, a rejected plan): a restored run gives
	// the model the same bytes.
	Sent string `json:"sent,omitempty"`
	// Refused are the IDs of the calls of a step that did not run (a
	// rejected plan); the model got Sent as the error of each, instead of
	// Sent as a message of its own. They have no completion.
	Refused []string `json:"refused,omitempty"`
}

// Unknown is an event of a type this version of the package does not know,
// read from a store written by a newer one. It keeps the event's data so
// nothing is lost; [Snapshot.Apply] ignores it.
type Unknown struct {
	Type EventType       `json:"-"`
	Data json.RawMessage `json:"-"`
}

// Kind returns [EventRunCreated].
func (RunCreated) Kind() EventType { return EventRunCreated }

// Kind returns [EventStatusChanged].
func (StatusChanged) Kind() EventType { return EventStatusChanged }

// Kind returns [EventPhaseChanged].
func (PhaseChanged) Kind() EventType { return EventPhaseChanged }

// Kind returns [EventUserMessage].
func (UserMessage) Kind() EventType { return EventUserMessage }

// Kind returns [EventAssistantMessage].
func (AssistantMessage) Kind() EventType { return EventAssistantMessage }

// Kind returns [EventToolCallScheduled].
func (ToolCallScheduled) Kind() EventType { return EventToolCallScheduled }

// Kind returns [EventToolCallCompleted].
func (ToolCallCompleted) Kind() EventType { return EventToolCallCompleted }

// Kind returns [EventSnippetExecuted].
func (SnippetExecuted) Kind() EventType { return EventSnippetExecuted }

// Kind returns [EventVariableCreated].
func (VariableCreated) Kind() EventType { return EventVariableCreated }

// Kind returns [EventVariableModified].
func (VariableModified) Kind() EventType { return EventVariableModified }

// Kind returns [EventAwaitRequested].
func (AwaitRequested) Kind() EventType { return EventAwaitRequested }

// Kind returns [EventAwaitResolved].
func (AwaitResolved) Kind() EventType { return EventAwaitResolved }

// Kind returns [EventProgress].
func (Progress) Kind() EventType { return EventProgress }

// Kind returns [EventContextCompacted].
func (ContextCompacted) Kind() EventType { return EventContextCompacted }

// Kind returns [EventChildRunStarted].
func (ChildRunStarted) Kind() EventType { return EventChildRunStarted }

// Kind returns [EventChildRunFinished].
func (ChildRunFinished) Kind() EventType { return EventChildRunFinished }

// Kind returns [EventResult].
func (Result) Kind() EventType { return EventResult }

// Kind returns [EventUsage].
func (Usage) Kind() EventType { return EventUsage }

// Kind returns [EventError].
func (Error) Kind() EventType { return EventError }

// Kind returns the unknown event's type.
func (u Unknown) Kind() EventType { return u.Type }

func (RunCreated) isPayload()        {}
func (StatusChanged) isPayload()     {}
func (PhaseChanged) isPayload()      {}
func (UserMessage) isPayload()       {}
func (AssistantMessage) isPayload()  {}
func (ToolCallScheduled) isPayload() {}
func (ToolCallCompleted) isPayload() {}
func (SnippetExecuted) isPayload()   {}
func (VariableCreated) isPayload()   {}
func (VariableModified) isPayload()  {}
func (AwaitRequested) isPayload()    {}
func (AwaitResolved) isPayload()     {}
func (ChildRunStarted) isPayload()   {}
func (Progress) isPayload()          {}
func (ChildRunFinished) isPayload()  {}
func (Result) isPayload()            {}
func (Usage) isPayload()             {}
func (ContextCompacted) isPayload()  {}
func (Error) isPayload()             {}
func (Unknown) isPayload()           {}
