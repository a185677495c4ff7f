package agui

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// projector folds a run's log into AG-UI events. It is a pure function of
// the log (and of the live deltas it is given): the same events give the
// same AG-UI events, whichever request streams them.
type projector struct {
	threadID, runID string // the AG-UI request's
	id              run.ID // the byref run's
	emitting        bool   // events are emitted (false while catching up)

	step      int                             // the open step, 0 for none
	textOpen  string                          // the open text message's ID
	streamed  map[string]string               // text streamed so far, by message ID
	reasoning string                          // the open reasoning message's ID
	calls     map[string]string               // arguments streamed so far, by open call ID
	vars      map[string]server.StateVariable // the thread's state
	messages  []Message                       // produced while emitting
	await     run.AwaitRequested
	result    json.RawMessage
	failure   string
	callNames map[string]string
	callSteps map[string]int // the step of each call
	// clientTools are the front end's tools, by name: their calls are
	// shown when they await the front end, with their arguments
	// resolved, and their results are the front end's own tool messages.
	clientTools map[string]bool
	hidden      map[string]bool // calls of client tools streamed so far
	clientCalls map[string]bool // calls the front end ran, by ID
	pending     string          // the client call the run awaits, if any
	usage       run.Usage
	model       string // the run's "provider:model"
}

func newProjector(threadID, runID string, id run.ID) *projector {
	return &projector{threadID: threadID, runID: runID, id: id, streamed: map[string]string{}, vars: map[string]server.StateVariable{},
		callNames: map[string]string{}, calls: map[string]string{}, callSteps: map[string]int{}, clientTools: map[string]bool{}, hidden: map[string]bool{}, clientCalls: map[string]bool{}}
}

// begin starts emitting: steps and messages open in the events before
// were this stream's client's business, not this stream's.
func (p *projector) begin() {
	p.emitting, p.step, p.textOpen, p.reasoning = true, 0, "", ""
	clear(p.calls)
	clear(p.streamed)
}

// delta returns the AG-UI events of a live delta: the model's text,
// reasoning and call arguments as they are written, a snippet's output
// lines as CUSTOM "byref.output" events.
func (p *projector) delta(d run.Delta) []Event {
	out := p.openStep(nil, d.Step)
	id := p.messageID(d.Step)
	switch d.What {
	case run.DeltaText:
		if p.textOpen != id {
			out = p.closeText(out)
			out = append(out, Event{Type: TextMessageStart, MessageID: id, Role: "assistant"})
			p.textOpen = id
		}
		p.streamed[id] += d.Text
		out = append(out, Event{Type: TextMessageContent, MessageID: id, Delta: str(d.Text)})
	case run.DeltaReasoning:
		rid := id + "-reasoning"
		if p.reasoning != rid {
			out = p.closeReasoning(out, "")
			out = append(out, Event{Type: ReasoningStart, MessageID: rid}, Event{Type: ReasoningMessageStart, MessageID: rid, Role: "reasoning"})
			p.reasoning = rid
		}
		out = append(out, Event{Type: ReasoningMessageContent, MessageID: rid, Delta: str(d.Text)})
	case run.DeltaToolCall:
		call := d.CallID
		if call == "" {
			return out // the provider names its calls only at the end
		}
		if p.hidden[call] || p.clientTools[d.Name] {
			p.hidden[call] = true
			return out // shown when it awaits the front end
		}
		if _, open := p.calls[call]; !open && d.Name != "" {
			p.calls[call] = ""
			out = append(out, Event{Type: ToolCallStart, ToolCallID: call, ToolCallName: d.Name, ParentMessageID: id})
		}
		if _, open := p.calls[call]; open && d.Text != "" {
			p.calls[call] += d.Text
			out = append(out, Event{Type: ToolCallArgs, ToolCallID: call, Delta: str(d.Text)})
		}
	case run.DeltaOutput:
		out = append(out, Event{Type: Custom, Name: "byref.output", Value: map[string]any{"toolCallId": d.CallID, "line": d.Text}})
	}
	return out
}

// closeReasoning ends the open reasoning message, with the rest of full
// when it is longer than what was streamed.
func (p *projector) closeReasoning(out []Event, rest string) []Event {
	if p.reasoning == "" {
		return out
	}
	if rest != "" {
		out = append(out, Event{Type: ReasoningMessageContent, MessageID: p.reasoning, Delta: str(rest)})
	}
	out = append(out, Event{Type: ReasoningMessageEnd, MessageID: p.reasoning}, Event{Type: ReasoningEnd, MessageID: p.reasoning})
	p.reasoning = ""
	return out
}

// closeCalls ends the calls whose arguments were being streamed.
func (p *projector) closeCalls(out []Event) []Event {
	for id := range p.calls {
		out = append(out, Event{Type: ToolCallEnd, ToolCallID: id})
		delete(p.calls, id)
	}
	return out
}

// state is the AG-UI state: the run's variables by name.
func (p *projector) state() map[string]any {
	return map[string]any{"variables": p.vars}
}

// messageID is the ID of the assistant message of a step: the same for
// its live deltas and its completed message.
func (p *projector) messageID(step int) string {
	return string(p.id) + "-m" + strconv.Itoa(step)
}

// openStep emits STEP_STARTED for step, after finishing the open one.
func (p *projector) openStep(out []Event, step int) []Event {
	if step == 0 || step == p.step {
		return out
	}
	out = p.closeStep(out)
	p.step = step
	return append(out, Event{Type: StepStarted, StepName: stepName(step)})
}

// closeStep emits STEP_FINISHED for the open step, if any, after closing
// its text message.
func (p *projector) closeStep(out []Event) []Event {
	out = p.closeText(out)
	out = p.closeReasoning(out, "")
	out = p.closeCalls(out)
	if p.step == 0 {
		return out
	}
	out = append(out, Event{Type: StepFinished, StepName: stepName(p.step)})
	p.step = 0
	return out
}

func stepName(step int) string { return "step " + strconv.Itoa(step) }

// closeText ends the open text message, if any.
func (p *projector) closeText(out []Event) []Event {
	if p.textOpen == "" {
		return out
	}
	out = append(out, Event{Type: TextMessageEnd, MessageID: p.textOpen})
	p.textOpen = ""
	return out
}

// text emits the rest of a step's text: the part of full not yet streamed
// as deltas (all of it without deltas). A message whose deltas were missed
// (a client that fell behind) gets its whole text again in a new message
// rather than a wrong one.
func (p *projector) text(out []Event, id, full string) []Event {
	sent, open := p.streamed[id], p.textOpen == id
	delete(p.streamed, id)
	rest := full
	switch {
	case open && strings.HasPrefix(full, sent):
		rest = full[len(sent):]
	case open:
		out = p.closeText(out)
		id += "-full"
		open = false
	}
	if !open {
		out = append(out, Event{Type: TextMessageStart, MessageID: id, Role: "assistant"})
	}
	if rest != "" {
		out = append(out, Event{Type: TextMessageContent, MessageID: id, Delta: str(rest)})
	}
	p.textOpen = id
	return p.closeText(out)
}

// apply folds one logged event and returns the AG-UI events it gives
// while emitting.
func (p *projector) apply(e run.Event) []Event {
	var out []Event
	switch d := e.Payload.(type) {
	case run.AssistantMessage:
		out = p.openStep(out, d.Step)
		id := p.messageID(d.Step)
		if rid := id + "-reasoning"; p.reasoning == rid {
			out = p.closeReasoning(out, "") // streamed (a follower behind gets it whole below)
		} else if d.Reasoning != "" {
			out = append(out,
				Event{Type: ReasoningStart, MessageID: rid},
				Event{Type: ReasoningMessageStart, MessageID: rid, Role: "reasoning"},
				Event{Type: ReasoningMessageContent, MessageID: rid, Delta: str(d.Reasoning)},
				Event{Type: ReasoningMessageEnd, MessageID: rid},
				Event{Type: ReasoningEnd, MessageID: rid})
		}
		m := Message{ID: id, Role: "assistant"}
		if d.Text != "" {
			out = p.text(out, id, d.Text)
			m.Content = jsonString(d.Text)
		}
		for _, t := range d.Thinking {
			if t.Redacted != "" {
				// Reasoning the provider encrypted, for the front end to
				// keep: it belongs to the step's assistant message.
				if m.Content == nil {
					out = append(out, Event{Type: TextMessageStart, MessageID: id, Role: "assistant"}, Event{Type: TextMessageEnd, MessageID: id})
					m.Content = jsonString("")
				}
				out = append(out, Event{Type: ReasoningEncryptedValue, Subtype: "message", EntityID: id, EncryptedValue: t.Redacted})
				m.EncryptedValue = t.Redacted
			}
		}
		if m.Content != nil {
			p.addMessage(m)
		}
	case run.RunCreated:
		p.model = d.Options.ModelName
	case run.ToolCallScheduled:
		out = p.openStep(out, d.Step)
		out = p.closeText(out)
		c := d.Call
		p.callNames[c.ID] = c.Name
		p.callSteps[c.ID] = d.Step
		if p.clientTools[c.Name] {
			delete(p.hidden, c.ID)
			break // shown when it awaits the front end
		}
		parent := p.messageID(d.Step)
		if sent, open := p.calls[c.ID]; open && strings.HasPrefix(c.Arguments, sent) {
			// Streamed: the rest of the arguments, if any were missed.
			if rest := c.Arguments[len(sent):]; rest != "" {
				out = append(out, Event{Type: ToolCallArgs, ToolCallID: c.ID, Delta: str(rest)})
			}
			delete(p.calls, c.ID)
			out = append(out, Event{Type: ToolCallEnd, ToolCallID: c.ID})
		} else {
			if open {
				// What was streamed is not the call (a follower that fell
				// behind): end it, and send the call whole under its ID.
				delete(p.calls, c.ID)
				out = append(out, Event{Type: ToolCallEnd, ToolCallID: c.ID})
			}
			out = append(out, wholeCall(parent, c)...)
		}
		p.addCall(parent, ToolCall{ID: c.ID, Type: "function", Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	case run.ToolCallCompleted:
		if p.clientCalls[d.CallID] || p.clientTools[p.callNames[d.CallID]] {
			break // its result is the front end's tool message
		}
		content := toolContent(d)
		id := string(p.id) + "-r-" + d.CallID
		out = append(out, Event{Type: ToolCallResult, MessageID: id, ToolCallID: d.CallID, Content: content, Role: "tool"})
		p.addResult(Message{ID: id, Role: "tool", ToolCallID: d.CallID, Content: jsonString(content)})
	case run.SnippetExecuted:
		out = p.openStep(out, d.Step)
		out = append(out, Event{Type: Custom, Name: "byref.snippet", Value: map[string]any{
			"code": d.Snippet.Code, "success": d.Success, "error": d.Error, "stdout": d.Stdout}})
	case run.VariableCreated:
		out = append(out, p.setVariable(d.Variable, d.Secret || d.Tainted))
	case run.VariableModified:
		out = append(out, p.setVariable(d.Variable, d.Secret || d.Tainted))
	case run.Progress:
		id, content := string(p.id)+"-p-"+d.CallID, map[string]any{"toolCallId": d.CallID, "message": d.Message}
		out = append(out, Event{Type: ActivitySnapshot, MessageID: id, ActivityType: "byref.progress", Content: content, Replace: ptr(true)})
		p.setActivity(Message{ID: id, Role: "activity", ActivityType: "byref.progress", Content: jsonValue(content)})
	case run.AwaitRequested:
		p.await = d
		if c, ok := clientCall(d); ok {
			p.pending, p.clientCalls[c.ID] = c.ID, true
			parent := p.messageID(p.callSteps[c.ID])
			out = append(p.closeText(out), wholeCall(parent, c)...)
			p.addCall(parent, ToolCall{ID: c.ID, Type: "function", Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
	case run.AwaitResolved:
		p.pending = ""
	case run.Usage:
		p.usage = p.usage.Add(d)
	case run.ChildRunStarted:
		out = append(out, Event{Type: SubagentStarted, SubagentRunID: string(d.Child), Name: d.Name, ParentToolCallID: d.CallID,
			ParentMessageID: p.messageID(p.callSteps[d.CallID])})
	case run.ChildRunFinished:
		if d.Status == run.StatusCompleted {
			fin := Event{Type: SubagentFinished, SubagentRunID: string(d.Child)}
			if len(d.Result) > 0 && string(d.Result) != "null" {
				fin.Result = d.Result
			}
			out = append(out, fin)
			break
		}
		msg := d.Error
		if msg == "" {
			msg = "the subagent's run " + string(d.Status)
		}
		out = append(out, Event{Type: SubagentError, SubagentRunID: string(d.Child), Message: msg, Code: string(d.Status)})
	case run.Result:
		p.result = d.Value
	case run.Error:
		if d.Failure != "" {
			p.failure = string(d.Failure)
		}
	}
	if !p.emitting {
		return nil
	}
	return out
}

// wholeCall is a call sent whole: its start, its arguments in one piece,
// its end.
func wholeCall(parent string, c run.ToolCall) []Event {
	return []Event{
		{Type: ToolCallStart, ToolCallID: c.ID, ToolCallName: c.Name, ParentMessageID: parent},
		{Type: ToolCallArgs, ToolCallID: c.ID, Delta: str(c.Arguments)},
		{Type: ToolCallEnd, ToolCallID: c.ID},
	}
}

// toolContent is a call's result as the model read it: success, error,
// output, and the variables it created or changed (names, types and
// previews, redacted for secrets).
func toolContent(d run.ToolCallCompleted) string {
	b, _ := json.Marshal(struct {
		Success   bool               `json:"success"`
		Error     string             `json:"error,omitempty"`
		Stdout    string             `json:"stdout,omitempty"`
		Variables []run.VariableInfo `json:"variables,omitempty"`
	}{d.Success, d.Error, d.Stdout, append(append([]run.VariableInfo(nil), d.Created...), d.Modified...)})
	return string(b)
}

// setVariable records a variable's type and preview (never a secret's)
// and returns the STATE_DELTA that says so.
func (p *projector) setVariable(v run.VariableInfo, secret bool) Event {
	sv := server.VariableState(v, secret)
	p.vars[v.Name] = sv
	return Event{Type: StateDelta, Patch: []PatchOp{{Op: "add", Path: "/variables/" + pointerToken(v.Name), Value: sv}}}
}

// pointerToken escapes a JSON Pointer reference token (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// end returns the events that end a stream at e (a move to awaiting or to
// an end), and whether it ends there.
func (p *projector) end(e run.Event) ([]Event, bool) {
	sc, ok := e.Payload.(run.StatusChanged)
	if !ok || !(sc.To == run.StatusAwaiting || sc.To.Terminal()) {
		return nil, false
	}
	out := p.closeStep(nil)
	out = append(out, Event{Type: MessagesSnapshot, Messages: p.messages})
	usage := p.tokenUsage()
	switch {
	case sc.To == run.StatusAwaiting && p.pending != "":
		// The front end runs the call: the AG-UI run is done, and the
		// next input's tool message answers it.
		out = append(out, Event{Type: RunFinished, ThreadID: p.threadID, RunID: p.runID, Usage: usage,
			Outcome: &Outcome{Type: "success", PendingToolCallIDs: []string{p.pending}}})
	case sc.To == run.StatusAwaiting:
		out = append(out, Event{Type: RunFinished, ThreadID: p.threadID, RunID: p.runID, Usage: usage,
			Outcome: &Outcome{Type: "interrupt", Interrupts: []Interrupt{p.interrupt()}}})
	case sc.To == run.StatusCompleted:
		fin := Event{Type: RunFinished, ThreadID: p.threadID, RunID: p.runID, Usage: usage, Outcome: &Outcome{Type: "success"}}
		if len(p.result) > 0 && string(p.result) != "null" {
			fin.Result = p.result
		}
		out = append(out, fin)
	case sc.To == run.StatusCanceled:
		out = append(out, Event{Type: RunFinished, ThreadID: p.threadID, RunID: p.runID, Usage: usage, Outcome: &Outcome{Type: "cancelled"}})
	default:
		msg := sc.Reason
		if msg == "" {
			msg = "the run failed"
		}
		out = append(out, Event{Type: RunError, Message: msg, Code: p.failure, Usage: usage})
	}
	return out, true
}

// tokenUsage is the run's usage as AG-UI counts it: one entry, for the
// run's model ("provider:model" split), none before any model call.
func (p *projector) tokenUsage() []TokenUsage {
	u := p.usage
	if u == (run.Usage{}) {
		return nil
	}
	provider, model, ok := strings.Cut(p.model, ":")
	if !ok {
		provider, model = "", p.model
	}
	return []TokenUsage{{Provider: provider, Model: model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		TotalTokens: u.InputTokens + u.OutputTokens, CachedInputTokens: u.CacheReadTokens, CacheWriteInputTokens: u.CacheWriteTokens}}
}

// interrupt describes what the run awaits.
func (p *projector) interrupt() Interrupt {
	a := p.await
	in := Interrupt{ID: interruptID(p.id, a.ID), Reason: "byref." + string(a.Await), Message: server.DescribeAwait(a),
		ResponseSchema: responseSchemas[a.Await], Metadata: map[string]any{"byref.run": string(p.id), "byref.await": a}}
	if a.Call != nil {
		in.ToolCallID = a.Call.ID
	}
	if !a.Deadline.IsZero() {
		in.ExpiresAt = a.Deadline.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return in
}

// interruptID names an await of a run, so that a resume finds both.
func interruptID(id run.ID, await string) string { return string(id) + "/" + await }

// responseSchemas are the answers each kind of await takes: run.Answer's
// fields.
var responseSchemas = map[run.AwaitKind]json.RawMessage{
	run.AwaitApproval:      json.RawMessage(`{"type":"object","properties":{"decision":{"enum":["approved","denied"]},"reason":{"type":"string"},"arguments":{"type":"string"}},"required":["decision"]}`),
	run.AwaitAuthorization: json.RawMessage(`{"type":"object","properties":{"decision":{"enum":["approved","denied"]},"reason":{"type":"string"}},"required":["decision"]}`),
	run.AwaitQuestion:      json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	run.AwaitInput:         json.RawMessage(`{"type":"object","properties":{"input":{}},"required":["input"]}`),
}

// addMessage adds a message of the conversation produced while emitting.
func (p *projector) addMessage(m Message) {
	if p.emitting {
		p.messages = append(p.messages, m)
	}
}

// addResult adds a tool message where TOOL_CALL_RESULT puts it: after the
// assistant message of its call and the tool messages that follow it.
func (p *projector) addResult(m Message) {
	if !p.emitting {
		return
	}
	at := len(p.messages)
	for i, prev := range p.messages {
		if prev.Role == "assistant" && slices.ContainsFunc(prev.ToolCalls, func(c ToolCall) bool { return c.ID == m.ToolCallID }) {
			at = i + 1
			for at < len(p.messages) && p.messages[at].Role == "tool" {
				at++
			}
			break
		}
	}
	p.messages = slices.Insert(p.messages, at, m)
}

// setActivity adds an activity message, or replaces the one of its ID, as
// ACTIVITY_SNAPSHOT does.
func (p *projector) setActivity(m Message) {
	if !p.emitting {
		return
	}
	for i := range p.messages {
		if p.messages[i].ID == m.ID {
			p.messages[i] = m
			return
		}
	}
	p.messages = append(p.messages, m)
}

// addCall adds a call to the assistant message parent, creating it when
// the step said nothing.
func (p *projector) addCall(parent string, c ToolCall) {
	if !p.emitting {
		return
	}
	for i := len(p.messages) - 1; i >= 0; i-- {
		if p.messages[i].ID == parent {
			p.messages[i].ToolCalls = append(p.messages[i].ToolCalls, c)
			return
		}
	}
	p.messages = append(p.messages, Message{ID: parent, Role: "assistant", ToolCalls: []ToolCall{c}})
}

func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func ptr[T any](v T) *T { return &v }
