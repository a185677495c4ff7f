package agui

import "encoding/json"

// The AG-UI events this package sends, as the protocol's 1.0 schemas
// (@ag-ui/core 1.0.0) define them: JSON objects with a "type" and
// camelCase fields, one per server-sent event.

// EventType is the "type" of an AG-UI event.
type EventType string

// The event types sent.
const (
	RunStarted              EventType = "RUN_STARTED"
	RunFinished             EventType = "RUN_FINISHED"
	RunError                EventType = "RUN_ERROR"
	StepStarted             EventType = "STEP_STARTED"
	StepFinished            EventType = "STEP_FINISHED"
	TextMessageStart        EventType = "TEXT_MESSAGE_START"
	TextMessageContent      EventType = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd          EventType = "TEXT_MESSAGE_END"
	ToolCallStart           EventType = "TOOL_CALL_START"
	ToolCallArgs            EventType = "TOOL_CALL_ARGS"
	ToolCallEnd             EventType = "TOOL_CALL_END"
	ToolCallResult          EventType = "TOOL_CALL_RESULT"
	ReasoningStart          EventType = "REASONING_START"
	ReasoningMessageStart   EventType = "REASONING_MESSAGE_START"
	ReasoningMessageContent EventType = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     EventType = "REASONING_MESSAGE_END"
	ReasoningEnd            EventType = "REASONING_END"
	ReasoningEncryptedValue EventType = "REASONING_ENCRYPTED_VALUE"
	SubagentStarted         EventType = "SUBAGENT_STARTED"
	SubagentFinished        EventType = "SUBAGENT_FINISHED"
	SubagentError           EventType = "SUBAGENT_ERROR"
	StateSnapshot           EventType = "STATE_SNAPSHOT"
	StateDelta              EventType = "STATE_DELTA"
	MessagesSnapshot        EventType = "MESSAGES_SNAPSHOT"
	ActivitySnapshot        EventType = "ACTIVITY_SNAPSHOT"
	Custom                  EventType = "CUSTOM"
)

// Event is one AG-UI event. Its fields are those of every event type;
// each type uses the ones its schema names, and the others are left
// empty (and out of the JSON).
type Event struct {
	Type EventType `json:"type"`
	// ThreadID and RunID name the run (RUN_STARTED, RUN_FINISHED).
	ThreadID string `json:"threadId,omitempty"`
	RunID    string `json:"runId,omitempty"`
	// MessageID names a text, reasoning, tool-result or activity message.
	MessageID string `json:"messageId,omitempty"`
	// Role is a message's role: "assistant" or "reasoning".
	Role string `json:"role,omitempty"`
	// Delta is the next piece of a message's text or a call's arguments.
	Delta *string `json:"delta,omitempty"`
	// ToolCallID, ToolCallName and ParentMessageID describe a tool call.
	ToolCallID      string `json:"toolCallId,omitempty"`
	ToolCallName    string `json:"toolCallName,omitempty"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
	// Content is a tool result's text (TOOL_CALL_RESULT) or an activity's
	// content (ACTIVITY_SNAPSHOT).
	Content any `json:"content,omitempty"`
	// ActivityType and Replace describe an activity (ACTIVITY_SNAPSHOT).
	ActivityType string `json:"activityType,omitempty"`
	Replace      *bool  `json:"replace,omitempty"`
	// StepName names a step.
	StepName string `json:"stepName,omitempty"`
	// Snapshot is the whole state (STATE_SNAPSHOT).
	Snapshot any `json:"snapshot,omitempty"`
	// Patch is a state change as JSON Patch operations (STATE_DELTA's
	// "delta"; see MarshalJSON).
	Patch []PatchOp `json:"-"`
	// Messages is the conversation (MESSAGES_SNAPSHOT).
	Messages []Message `json:"messages,omitempty"`
	// Result is a finished run's result; Outcome says how it finished.
	Result  json.RawMessage `json:"result,omitempty"`
	Outcome *Outcome        `json:"outcome,omitempty"`
	// Message and Code describe a failed run (RUN_ERROR).
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`
	// Name and Value are a custom event's.
	Name  string `json:"name,omitempty"`
	Value any    `json:"value,omitempty"`
	// Usage is the run's token usage (RUN_FINISHED, RUN_ERROR), one entry
	// per provider and model.
	Usage []TokenUsage `json:"usage,omitempty"`
	// SubagentRunID names a child run (SUBAGENT_*): the byref run's ID;
	// ParentToolCallID the call that started it.
	SubagentRunID    string `json:"subagentRunId,omitempty"`
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Subtype, EntityID and EncryptedValue are a provider's encrypted
	// reasoning (REASONING_ENCRYPTED_VALUE): subtype "message", the ID of
	// the assistant message it belongs to, and the opaque value.
	Subtype        string `json:"subtype,omitempty"`
	EntityID       string `json:"entityId,omitempty"`
	EncryptedValue string `json:"encryptedValue,omitempty"`
	// Metadata holds byref's own fields (the run's ID on RUN_STARTED).
	Metadata map[string]any `json:"metadata,omitempty"`
}

// TokenUsage is the tokens of a run's model calls for one provider and
// model, as AG-UI 1.0 counts them: InputTokens counts every prompt token,
// the cache's reads (CachedInputTokens) and writes
// (CacheWriteInputTokens) included; TotalTokens is input plus output.
type TokenUsage struct {
	Provider              string `json:"provider,omitempty"`
	Model                 string `json:"model,omitempty"`
	InputTokens           int64  `json:"inputTokens"`
	OutputTokens          int64  `json:"outputTokens"`
	TotalTokens           int64  `json:"totalTokens"`
	CachedInputTokens     int64  `json:"cachedInputTokens,omitempty"`
	CacheWriteInputTokens int64  `json:"cacheWriteInputTokens,omitempty"`
}

// MarshalJSON writes the event, with Patch as STATE_DELTA's "delta".
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if e.Type != StateDelta {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Delta []PatchOp `json:"delta"`
	}{plain(e), e.Patch})
}

// PatchOp is one JSON Patch (RFC 6902) operation of a STATE_DELTA.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Outcome is how a run finished: "success", "interrupt" (it awaits the
// answers to Interrupts) or "cancelled". A success may leave calls of the
// front end's tools to it (PendingToolCallIDs), whose results the next
// input's tool messages carry.
type Outcome struct {
	Type               string      `json:"type"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
}

// Interrupt is what a paused run needs before it can go on: an approval,
// the answer to a question, an authorization or input. A client resumes
// with a new run whose "resume" entries answer it by ID.
type Interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	ExpiresAt      string          `json:"expiresAt,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
}

// Message is a message of the conversation (MESSAGES_SNAPSHOT, and the
// input's messages).
type Message struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []ToolCall      `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Name       string          `json:"name,omitempty"`
	// ActivityType is an activity message's type.
	ActivityType string `json:"activityType,omitempty"`
	// EncryptedValue is the reasoning its provider encrypted, of an
	// assistant message (REASONING_ENCRYPTED_VALUE).
	EncryptedValue string `json:"encryptedValue,omitempty"`
}

// ToolCall is a call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's name and arguments (JSON text).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ResumeEntry answers one interrupt.
type ResumeEntry struct {
	InterruptID string `json:"interruptId"`
	// Status is "resolved", or "cancelled", which cancels the run.
	Status  string          `json:"status"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// RunAgentInput is the body of a request to run an agent.
type RunAgentInput struct {
	ThreadID string          `json:"threadId"`
	RunID    string          `json:"runId"`
	State    json.RawMessage `json:"state,omitempty"`
	Messages []Message       `json:"messages"`
	Resume   []ResumeEntry   `json:"resume,omitempty"`
	// Tools are the front end's tools, which the run may call and the
	// front end runs.
	Tools []Tool `json:"tools,omitempty"`
	// Context is what the front end tells the agent beside the task.
	Context []ContextItem `json:"context,omitempty"`
}

// text returns a message's content as text: a string, or the text parts
// of an array of parts joined by newlines.
func (m Message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	out := ""
	for _, p := range parts {
		if p.Type == "text" {
			if out != "" {
				out += "\n"
			}
			out += p.Text
		}
	}
	return out
}

func str(s string) *string { return &s }
