package run

import (
	"encoding/json"
	"slices"
	"time"
)

// Snapshot is the state of a run derived from its events: a pure fold of
// the log ([Fold]), kept up to date one event at a time by [Snapshot.Apply].
// Snapshots are never stored as the truth; the log is.
//
// A Snapshot copied by assignment shares its slices with the original; use
// [Snapshot.Clone] before applying events to one copy.
type Snapshot struct {
	RunID          ID                `json:"run"`
	Name           string            `json:"name,omitempty"`
	Session        SessionID         `json:"session,omitempty"`
	Turn           TurnID            `json:"turn,omitempty"`
	ParentRun      ID                `json:"parent_run,omitempty"`
	ParentToolCall string            `json:"parent_tool_call,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`
	Input          json.RawMessage   `json:"input,omitempty"`
	Options        Spec              `json:"options,omitzero"`

	// Status is the current status; "" before the RunCreated event.
	Status Status `json:"status"`
	// Phase is the latest phase. It is kept when the run leaves running,
	// as the phase it was in.
	Phase Phase `json:"phase,omitempty"`
	// FailureReason is the reason of the move to failed.
	FailureReason string `json:"failure_reason,omitempty"`
	// FailureKind is the typed reason of a failure caused by the model's
	// answer (a refusal, a content filter, a cut answer); empty otherwise.
	FailureKind FailureKind `json:"failure_kind,omitempty"`
	// Refusal is what the model said when it declined to answer.
	Refusal string `json:"refusal,omitempty"`
	// Await is the pending await; nil when there is none. An await ends when
	// it is resolved or the run fails, is cancelled or completes.
	Await *AwaitRequested `json:"await,omitempty"`

	// Step is the highest step number seen.
	Step int `json:"step,omitempty"`
	// ToolCalls lists the tool calls in the order they were scheduled.
	ToolCalls []ToolCallState `json:"tool_calls,omitempty"`
	// Snippets lists the snippets in the order they ran.
	Snippets []SnippetState `json:"snippets,omitempty"`
	// ChildRuns lists the child runs in the order they started.
	ChildRuns []ChildRun `json:"child_runs,omitempty"`
	// Variables lists the variables in the order they were created, each
	// with its latest type, preview and value.
	Variables []VariableState `json:"variables,omitempty"`

	// LastUserMessage is the text of the latest user message.
	LastUserMessage string `json:"last_user_message,omitempty"`
	// LastAssistantMessage is the text of the latest assistant message
	// that had text.
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// Result is the latest result; nil when there is none yet, the JSON
	// literal null when the run could not produce one.
	Result json.RawMessage `json:"result,omitempty"`
	// Usage totals the tokens of every [Usage] event, with those a
	// compaction ([ContextCompacted]) and a call ([ToolCallCompleted])
	// spent.
	Usage Usage `json:"usage"`
	// Compactions counts the [ContextCompacted] events: how many times
	// the run compacted what the model reads.
	Compactions int `json:"compactions,omitempty"`
	// LastError is the message of the latest [Error] event.
	LastError string `json:"last_error,omitempty"`

	// CreatedAt is the time of the RunCreated event; UpdatedAt that of the
	// latest event.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// LastSeq is the sequence number of the latest event applied.
	LastSeq int64 `json:"last_seq"`
}

// ToolCallState is a tool call as the snapshot sees it.
type ToolCallState struct {
	Call        ToolCall  `json:"call"`
	Step        int       `json:"step,omitempty"`
	ScheduledAt time.Time `json:"scheduled_at"`
	// Done reports whether the call completed; the fields below are set
	// only then.
	Done        bool          `json:"done"`
	CompletedAt time.Time     `json:"completed_at,omitzero"`
	Duration    time.Duration `json:"duration,omitempty"`
	Success     bool          `json:"success,omitempty"`
	Error       string        `json:"error,omitempty"`
	// Child is the child run the call started, if any.
	Child ID `json:"child,omitempty"`
	// Resolution is how the call's arguments were resolved, and Result the
	// variable its result went to (see ToolCallCompleted).
	Resolution *Resolution `json:"resolution,omitempty"`
	Result     string      `json:"result,omitempty"`
	// Progress is the latest progress the call reported while it ran.
	Progress string `json:"progress,omitempty"`
	// Client reports a call the run's client runs and answers (an AG-UI
	// front end's tool; see AwaitRequested.Client).
	Client bool `json:"client,omitempty"`
}

// SnippetState is a snippet as the snapshot sees it.
type SnippetState struct {
	Step     int           `json:"step,omitempty"`
	Code     string        `json:"code"`
	Success  bool          `json:"success"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	At       time.Time     `json:"at"`
}

// ChildRun is a child run as its parent's snapshot sees it.
type ChildRun struct {
	ID     ID     `json:"id"`
	CallID string `json:"call_id"`
	Name   string `json:"name,omitempty"`
	// Status is "" while the child runs as far as the parent knows, then
	// the status it finished with.
	Status Status          `json:"status,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// VariableState is a variable as the snapshot sees it.
type VariableState struct {
	VariableInfo
	// Step is the step of the latest change; CreatedStep that of creation.
	Step        int  `json:"step,omitempty"`
	CreatedStep int  `json:"created_step,omitempty"`
	Secret      bool `json:"secret,omitempty"`
	// Tainted reports a value derived from a secret, handled like one.
	Tainted bool `json:"tainted,omitempty"`
	// RunOnly reports a variable that stays with its run
	// ([VariableCreated].RunOnly).
	RunOnly bool `json:"run_only,omitempty"`
	// Value is the latest JSON value; nil when the variable is secret or
	// tainted, or its type is not JSON-representable (it cannot be
	// restored).
	Value json.RawMessage `json:"value,omitempty"`
}

// Fold returns the snapshot of a log: the zero Snapshot with every event
// applied in order.
func Fold(events []Event) Snapshot {
	var s Snapshot
	for _, e := range events {
		s.Apply(e)
	}
	return s
}

// Apply updates s with one event, the next of its run's log. It does not
// check the event: stores refuse inconsistent logs at append. Events of an
// unknown type change only LastSeq and UpdatedAt.
func (s *Snapshot) Apply(e Event) {
	s.LastSeq = e.Seq
	s.UpdatedAt = e.Time
	switch p := e.Payload.(type) {
	case RunCreated:
		s.RunID = e.RunID
		s.Name = p.Name
		s.Session = p.Session
		s.Turn = p.Turn
		s.ParentRun = p.ParentRun
		s.ParentToolCall = p.ParentToolCall
		s.Tags = p.Tags
		s.Input = p.Input
		s.Options = p.Options
		s.Status = StatusCreated
		s.CreatedAt = e.Time
	case StatusChanged:
		s.Status = p.To
		switch p.To {
		case StatusFailed:
			s.FailureReason = p.Reason
			s.Await = nil
		case StatusCompleted, StatusCancelling, StatusCanceled:
			s.Await = nil
		}
	case PhaseChanged:
		s.Phase = p.To
	case UserMessage:
		s.LastUserMessage = p.Text
		if p.Turn != "" {
			s.Turn = p.Turn
		}
	case AssistantMessage:
		s.step(p.Step)
		if p.Text != "" {
			s.LastAssistantMessage = p.Text
		}
	case ToolCallScheduled:
		s.step(p.Step)
		s.ToolCalls = append(s.ToolCalls, ToolCallState{Call: p.Call, Step: p.Step, ScheduledAt: e.Time})
	case ToolCallCompleted:
		if u := p.Usage; u != nil {
			s.Usage = s.Usage.Add(*u)
		}
		if tc := s.toolCall(p.CallID); tc != nil {
			tc.Done = true
			tc.CompletedAt = e.Time
			tc.Duration = p.Duration
			tc.Success = p.Success
			tc.Error = p.Error
			tc.Resolution, tc.Result = p.Resolution, p.Result
			if p.Resolution != nil && tc.Call.References == nil {
				for _, a := range p.Resolution.Args {
					if a.Ref == "" {
						continue
					}
					if tc.Call.References == nil {
						tc.Call.References = map[string]VariableRef{}
					}
					tc.Call.References[a.Param] = VariableRef{Variable: a.Ref, Type: a.Type}
				}
			}
		}
	case SnippetExecuted:
		s.step(p.Step)
		s.Snippets = append(s.Snippets, SnippetState{Step: p.Step, Code: p.Snippet.Code,
			Success: p.Success, Error: p.Error, Duration: p.Duration, At: e.Time})
	case VariableCreated:
		s.step(p.Step)
		s.setVariable(p.Variable, p.Step, p.Secret, p.Tainted, p.RunOnly, p.Value)
	case VariableModified:
		s.step(p.Step)
		s.setVariable(p.Variable, p.Step, p.Secret, p.Tainted, p.RunOnly, p.Value)
	case AwaitRequested:
		s.Await = &p
		if p.Client && p.Call != nil {
			if tc := s.toolCall(p.Call.ID); tc != nil {
				tc.Client = true
			}
		}
	case AwaitResolved:
		if s.Await != nil && s.Await.ID == p.ID {
			s.Await = nil
		}
	case Progress:
		if tc := s.toolCall(p.CallID); tc != nil {
			tc.Progress = p.Message
		}
	case ChildRunStarted:
		s.ChildRuns = append(s.ChildRuns, ChildRun{ID: p.Child, CallID: p.CallID, Name: p.Name})
		if tc := s.toolCall(p.CallID); tc != nil {
			tc.Child = p.Child
		}
	case ChildRunFinished:
		for i := len(s.ChildRuns) - 1; i >= 0; i-- {
			if c := &s.ChildRuns[i]; c.ID == p.Child {
				c.Status, c.Result, c.Error = p.Status, p.Result, p.Error
				break
			}
		}
	case Result:
		s.Result = p.Value
	case ContextCompacted:
		s.Compactions++
		if u := p.Usage; u != nil {
			s.Usage = s.Usage.Add(*u)
		}
	case Usage:
		s.Usage = s.Usage.Add(p)
	case Error:
		s.step(p.Step)
		s.LastError = p.Message
		if p.Failure != "" {
			s.FailureKind, s.Refusal = p.Failure, p.Refusal
		}
	}
}

func (s *Snapshot) step(n int) {
	s.Step = max(s.Step, n)
}

// toolCall returns the latest tool call with the ID, searching from the
// end (a call completes soon after it is scheduled); nil if there is none.
func (s *Snapshot) toolCall(id string) *ToolCallState {
	for i := len(s.ToolCalls) - 1; i >= 0; i-- {
		if s.ToolCalls[i].Call.ID == id {
			return &s.ToolCalls[i]
		}
	}
	return nil
}

func (s *Snapshot) setVariable(v VariableInfo, step int, secret, tainted, runOnly bool, value json.RawMessage) {
	for i := range s.Variables {
		if sv := &s.Variables[i]; sv.Name == v.Name {
			sv.VariableInfo, sv.Step, sv.Secret, sv.Tainted, sv.RunOnly, sv.Value = v, step, secret, tainted, runOnly, value
			return
		}
	}
	s.Variables = append(s.Variables, VariableState{VariableInfo: v, Step: step,
		CreatedStep: step, Secret: secret, Tainted: tainted, RunOnly: runOnly, Value: value})
}

// Variable returns the named variable's state, and whether there is one.
func (s *Snapshot) Variable(name string) (VariableState, bool) {
	for _, v := range s.Variables {
		if v.Name == name {
			return v, true
		}
	}
	return VariableState{}, false
}

// Clone returns a copy of s that Apply can update without changing s. The
// payload data inside (tags, arguments, raw JSON) is shared: it is
// immutable.
func (s Snapshot) Clone() Snapshot {
	s.ToolCalls = slices.Clone(s.ToolCalls)
	s.Snippets = slices.Clone(s.Snippets)
	s.ChildRuns = slices.Clone(s.ChildRuns)
	s.Variables = slices.Clone(s.Variables)
	return s
}
