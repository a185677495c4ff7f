package server

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/byref/byref/run"
)

// TagAgent is the run tag under which the server records the name of the
// agent a run belongs to.
const TagAgent = "acp.agent"

// acpStatus maps a byref status onto ACP's name for it.
func acpStatus(s run.Status) string {
	switch s {
	case run.StatusRunning:
		return StatusInProgress
	case run.StatusCanceled:
		return StatusCancelled
	case "":
		return StatusCreated
	}
	return string(s) // created, awaiting, cancelling, completed, failed
}

// projector folds a byref run's events into its ACP Run and the ACP events
// a stream shows. It is a pure function of the log: the same events give the
// same JSON, which is why GET /runs/{id}/events equals what was streamed.
type projector struct {
	run      acpRun
	lastText string // text of the latest assistant message
	user     []message
	// agents gives the output types of the run's agent (nil for none).
	agents  map[string]*Agent
	outputs map[string]string // Go type name → content type
	failure run.FailureKind   // of the latest run.Error with one
	refusal string            // what the model said, when it refused
	seq     int64             // the sequence number of the last event applied
	// streaming is the step whose text is being streamed as message.part
	// events (its message.created sent), 0 for none.
	streaming int
	// usage sums the run's usage events.
	usage run.Usage
	// asked is when the model was last asked for a step (the run's
	// latest move to planning, else its creation): the created_at of the
	// assistant message it gives, streamed or read back alike, since the
	// log records no time for the message's first streamed piece.
	asked acpTime
}

// newProjector returns a projector for the server's runs.
func (s *Server) newProjector() *projector { return &projector{agents: s.agents} }

// apply folds one event and returns the ACP events it produces, encoded.
func (p *projector) apply(e run.Event) []json.RawMessage {
	var out []json.RawMessage
	p.seq = e.Seq
	emitRun := func(typ string) {
		r := p.run.clone()
		out = append(out, encode(acpEvent{Type: typ, Run: &r}))
	}
	t := acpTime(e.Time)
	switch d := e.Payload.(type) {
	case run.RunCreated:
		p.run = acpRun{
			RunID: string(e.RunID), AgentName: d.Tags[TagAgent], Status: StatusCreated,
			Output: []message{}, CreatedAt: t,
		}
		p.asked = t
		if d.Session != "" {
			p.run.SessionID = ptr(string(d.Session))
		}
		if a := p.agents[d.Tags[TagAgent]]; a != nil && len(a.Outputs) > 0 {
			p.outputs = map[string]string{}
			for _, o := range a.Outputs {
				if o.Type != nil {
					p.outputs[o.Type.String()] = o.ContentType
				}
			}
		}
		emitRun("run.created")
	case run.PhaseChanged:
		if d.To == run.PhasePlanning {
			p.asked = t
		}
	case run.UserMessage:
		p.user = append(p.user, message{Role: "user", Parts: []part{textPart(d.Text)}, CreatedAt: &t, CompletedAt: &t})
	case run.StatusChanged:
		p.run.Status = acpStatus(d.To)
		if d.To == run.StatusAwaiting || d.To.Terminal() {
			out = append(out, p.usageEvent()...)
		}
		switch d.To {
		case run.StatusRunning:
			p.run.FinishedAt = nil
			emitRun("run.in-progress")
		case run.StatusAwaiting:
			emitRun("run.awaiting")
		case run.StatusCompleted:
			p.run.FinishedAt = &t
			p.run.AwaitRequest = nil
			emitRun("run.completed")
		case run.StatusFailed:
			p.run.FinishedAt = &t
			p.run.AwaitRequest = nil
			reason := d.Reason
			if reason == "" {
				reason = "the run failed"
			}
			p.run.Error = &acpError{Code: failureCode(p.failure), Message: reason}
			if p.failure != "" {
				p.run.Error.Data, _ = json.Marshal(failureData{Kind: p.failure, Refusal: p.refusal})
			}
			emitRun("run.failed")
		case run.StatusCanceled:
			p.run.FinishedAt = &t
			p.run.AwaitRequest = nil
			emitRun("run.cancelled")
		case run.StatusCancelling:
			out = append(out, generic(e))
		}
	case run.AssistantMessage:
		if d.Text == "" {
			break
		}
		p.lastText = d.Text
		if p.streaming != 0 && p.streaming == d.Step {
			// The message was opened and its text streamed as parts:
			// message.completed carries it whole (in place of any part a
			// client that fell behind missed).
			p.streaming = 0
			asked := p.asked
			done := message{Role: p.role(), Parts: []part{textPart(d.Text)}, CreatedAt: &asked, CompletedAt: &t}
			p.run.Output = append(p.run.Output, done)
			out = append(out, encode(acpEvent{Type: "message.completed", Message: &done}))
			break
		}
		out = append(out, p.addMessage(p.asked, t, textPart(d.Text))...)
	case run.Result:
		pt, ok := p.resultPart(d.Value)
		if ok {
			out = append(out, p.addMessage(t, t, pt)...)
		}
	case run.AwaitRequested:
		p.run.AwaitRequest = &awaitRequest{Type: "message", Message: &message{
			Role: p.role(), Parts: awaitParts(d), CreatedAt: &t, CompletedAt: &t,
		}}
	case run.AwaitResolved:
		p.run.AwaitRequest = nil
	case run.VariableCreated:
		if parts, ok := p.outputParts(d.Variable, d.Value, d.MediaType); ok && d.Step > 0 && !d.Secret {
			out = append(out, p.addMessage(t, t, parts...)...)
		}
	case run.VariableModified:
		if parts, ok := p.outputParts(d.Variable, d.Value, d.MediaType); ok && !d.Secret {
			out = append(out, p.addMessage(t, t, parts...)...)
		}
	case run.Error:
		if d.Failure != "" {
			p.failure, p.refusal = d.Failure, d.Refusal
		}
		out = append(out, generic(e))
	case run.Usage:
		p.usage = p.usage.Add(d)
	case run.ToolCallScheduled, run.ToolCallCompleted, run.SnippetExecuted, run.ChildRunStarted, run.ChildRunFinished, run.Progress,
		run.ContextCompacted:
		out = append(out, generic(e))
	}
	return out
}

func (p *projector) role() string { return "agent/" + p.run.AgentName }

// usageEvent returns, when the model reported any tokens, a generic event
// with the run's usage so far: {"type":"usage","data":{"input_tokens":…,
// "output_tokens":…, "cache_read_tokens":…, "cache_write_tokens":…}}, the
// last two the parts of the input the provider's prompt cache read and
// wrote.
func (p *projector) usageEvent() []json.RawMessage {
	if p.usage == (run.Usage{}) {
		return nil
	}
	b, _ := json.Marshal(struct {
		Type string    `json:"type"`
		Data run.Usage `json:"data"`
	}{"usage", p.usage})
	return []json.RawMessage{encode(acpEvent{Type: "generic", Generic: b})}
}

// delta returns the ACP events of a live delta: the model's text as the
// parts of a message being written (message.created first, and
// message.completed when the log has the message), anything else (a
// call's arguments, a snippet's output, reasoning) as a generic event.
func (p *projector) delta(e run.Event, d run.Delta) []json.RawMessage {
	if d.What != run.DeltaText {
		return []json.RawMessage{generic(e)}
	}
	var out []json.RawMessage
	if p.streaming != d.Step {
		asked := p.asked
		p.streaming = d.Step
		out = append(out, encode(acpEvent{Type: "message.created", Message: &message{Role: p.role(), Parts: []part{}, CreatedAt: &asked}}))
	}
	pt := textPart(d.Text)
	return append(out, encode(acpEvent{Type: "message.part", Part: &pt}))
}

// addMessage appends an agent message of the parts, created and completed
// at the times given, to the output and returns message.created, a
// message.part per part and message.completed.
func (p *projector) addMessage(created, completed acpTime, parts ...part) []json.RawMessage {
	opened := message{Role: p.role(), Parts: []part{}, CreatedAt: &created}
	done := message{Role: p.role(), Parts: parts, CreatedAt: &created, CompletedAt: &completed}
	p.run.Output = append(p.run.Output, done)
	out := []json.RawMessage{encode(acpEvent{Type: "message.created", Message: &opened})}
	for i := range parts {
		out = append(out, encode(acpEvent{Type: "message.part", Part: &parts[i]}))
	}
	return append(out, encode(acpEvent{Type: "message.completed", Message: &done}))
}

// resultPart returns the part that shows a run's result, unless the result
// is null or repeats the latest assistant text (a plain answer is both).
func (p *projector) resultPart(value json.RawMessage) (part, bool) {
	v := strings.TrimSpace(string(value))
	if v == "" || v == "null" {
		return part{}, false
	}
	var s string
	if json.Unmarshal(value, &s) == nil {
		if s == p.lastText {
			return part{}, false
		}
		return textPart(s), true
	}
	return part{Name: ptr("result.json"), ContentType: ptr("application/json"), Content: ptr(v), ContentEncoding: ptr("plain")}, true
}

// conversation returns the run's messages for session history: the user's
// messages, then the agent's output.
func (p *projector) conversation() []message {
	return append(append([]message{}, p.user...), p.run.Output...)
}

// generic wraps a byref event that has no ACP counterpart.
func generic(e run.Event) json.RawMessage {
	b, err := json.Marshal(e)
	if err != nil {
		return encode(acpEvent{Type: "generic", Generic: json.RawMessage(`{}`)})
	}
	return encode(acpEvent{Type: "generic", Generic: b})
}

func encode(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		// Every value encoded here is built by this package from JSON-safe
		// types; a failure is a bug.
		panic("server: encoding " + err.Error())
	}
	return b
}

// stops reports whether an event ends a stream and a sync wait: a move to
// awaiting or to a terminal status.
func stops(e run.Event) bool {
	sc, ok := e.Payload.(run.StatusChanged)
	return ok && (sc.To == run.StatusAwaiting || sc.To.Terminal())
}

// marshal is json.Marshal without HTML escaping, so that <<var:name>> reads
// as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// failureData is the Error data of a failed run whose log says why: the
// kind, and what the model said when it refused.
type failureData struct {
	Kind    run.FailureKind `json:"kind"`
	Refusal string          `json:"refusal,omitempty"`
}
