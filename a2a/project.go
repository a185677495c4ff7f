package a2a

import (
	"encoding/json"
	"maps"
	"strconv"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// ResultArtifact is the name of the artifact that holds a run's result.
const ResultArtifact = "result"

// State maps a byref status onto the A2A task state (see the package
// documentation): await is what an awaiting run awaits.
func State(s run.Status, await run.AwaitKind) sdk.TaskState {
	switch s {
	case run.StatusCreated:
		return sdk.TaskStateSubmitted
	case run.StatusRunning, run.StatusCancelling:
		return sdk.TaskStateWorking
	case run.StatusAwaiting:
		if await == run.AwaitAuthorization {
			return sdk.TaskStateAuthRequired
		}
		return sdk.TaskStateInputRequired
	case run.StatusCompleted:
		return sdk.TaskStateCompleted
	case run.StatusFailed:
		return sdk.TaskStateFailed
	case run.StatusCanceled:
		return sdk.TaskStateCanceled
	}
	return sdk.TaskStateUnspecified
}

// projector folds a run's events into its A2A task, and turns each event
// into the A2A stream events it gives. It is a pure function of the log,
// so that a stream, a re-subscription and GetTask agree.
type projector struct {
	task   sdk.Task
	status run.Status
	await  run.AwaitRequested
	schema json.RawMessage
	last   *sdk.Message // the latest assistant message of the current turn
	seq    int64        // the sequence number of the last event applied
	// streaming is the step whose text is being streamed as the appended
	// chunks of the answer artifact, 0 for none.
	streaming int
}

// MetaUsage is the key, in a task's metadata, of the run's token usage so
// far: a run.Usage, whose JSON form holds input_tokens, output_tokens and
// the parts of the input the provider's prompt cache read and wrote
// (cache_read_tokens, cache_write_tokens).
const MetaUsage = "byref.usage"

// delta returns the stream events of a live delta: a piece of the model's
// text as a chunk of the task's answer artifact (see answerArtifact): the
// first chunk of a step replaces the artifact, the next ones append to it.
// Other deltas (reasoning, tool-call arguments, snippet output) are not
// sent.
func (p *projector) delta(e run.Event, d run.Delta) []sdk.Event {
	if d.What != run.DeltaText {
		return nil
	}
	first := p.streaming != d.Step
	p.streaming = d.Step
	a := &sdk.Artifact{ID: answerID(e.RunID), Name: ResultArtifact, Parts: sdk.ContentParts{sdk.NewTextPart(d.Text)}}
	return []sdk.Event{&sdk.TaskArtifactUpdateEvent{TaskID: sdk.TaskID(e.RunID), ContextID: p.task.ContextID, Artifact: a, Append: !first}}
}

// answerID is the ID of a task's one artifact, named ResultArtifact: the
// model's latest text while the run goes on, its result once it has one.
func answerID(id run.ID) sdk.ArtifactID { return sdk.ArtifactID(string(id) + "-" + ResultArtifact) }

// setAnswer makes a the task's answer artifact and returns the stream
// event that says so: a replacement (not an append), so that a client
// that applied the streamed chunks holds exactly the task's artifact.
func (p *projector) setAnswer(id run.ID, a *sdk.Artifact) sdk.Event {
	p.task.Artifacts = []*sdk.Artifact{a}
	return &sdk.TaskArtifactUpdateEvent{TaskID: sdk.TaskID(id), ContextID: p.task.ContextID, Artifact: a, LastChunk: true}
}

// setStatus sets the task's status and returns the stream event that says
// so, with the run's usage so far in its metadata (which a client merges
// into the task's, as it is in the task's).
func (p *projector) setStatus(id run.ID, st sdk.TaskStatus) sdk.Event {
	p.task.Status = st
	ev := &sdk.TaskStatusUpdateEvent{TaskID: sdk.TaskID(id), ContextID: p.task.ContextID, Status: st}
	if u, ok := p.task.Metadata[MetaUsage]; ok {
		ev.Metadata = map[string]any{MetaUsage: u}
	}
	return ev
}

// apply folds e into the task and returns the stream events it gives.
func (p *projector) apply(e run.Event) []sdk.Event {
	p.seq = e.Seq
	switch d := e.Payload.(type) {
	case run.RunCreated:
		p.task = sdk.Task{
			ID:        sdk.TaskID(e.RunID),
			ContextID: string(d.Session),
			Status:    sdk.TaskStatus{State: sdk.TaskStateSubmitted, Timestamp: stamp(e.Time)},
			Metadata:  map[string]any{"byref.run": string(e.RunID), "byref.agent": d.Tags[server.TagAgent]},
		}
		p.status = run.StatusCreated
		p.schema = d.Options.ResultSchema
		return nil
	case run.UserMessage:
		p.last = nil
		p.task.History = append(p.task.History, p.sent(e, d.Message, func() []*sdk.Part { return []*sdk.Part{sdk.NewTextPart(d.Text)} }))
		return nil
	case run.AssistantMessage:
		if d.Text == "" {
			return nil
		}
		m := p.agentMessage(e, sdk.NewTextPart(d.Text))
		p.last = m
		p.task.History = append(p.task.History, m)
		p.streaming = 0
		// The text streamed so far, whole: the answer until a later step
		// or the result replaces it.
		answer := &sdk.Artifact{ID: answerID(e.RunID), Name: ResultArtifact, Parts: sdk.ContentParts{sdk.NewTextPart(d.Text)}}
		return []sdk.Event{p.setAnswer(e.RunID, answer),
			p.setStatus(e.RunID, sdk.TaskStatus{State: State(p.status, p.await.Await), Message: m, Timestamp: stamp(e.Time)})}
	case run.AwaitRequested:
		p.await = d
		return nil
	case run.Usage:
		// The run's usage so far, with the prompt cache's reads and
		// writes, in the task's metadata.
		u, _ := p.task.Metadata[MetaUsage].(run.Usage)
		u = u.Add(d)
		// A new map: tasks already handed out keep theirs.
		m := maps.Clone(p.task.Metadata)
		if m == nil {
			m = map[string]any{}
		}
		m[MetaUsage] = u
		p.task.Metadata = m
		return nil
	case run.Progress:
		// What a long action reports as it runs (agent.Progress): a
		// status message of the working task, naming the call.
		m := p.agentMessage(e, sdk.NewTextPart(d.Message))
		m.Metadata = map[string]any{"byref.call": d.CallID, "byref.kind": "progress"}
		p.task.History = append(p.task.History, m)
		return []sdk.Event{p.setStatus(e.RunID, sdk.TaskStatus{State: State(p.status, p.await.Await), Message: m, Timestamp: stamp(e.Time)})}
	case run.AwaitResolved:
		// The answer to input-required or auth-required is the user's
		// turn: the message as its client sent it, else (an answer from
		// Go, ACP or /ui) the answer itself.
		p.task.History = append(p.task.History, p.sent(e, d.Answer.Message, func() []*sdk.Part { return answerParts(d.Answer) }))
		return nil
	case run.Result:
		if len(d.Value) == 0 || string(d.Value) == "null" {
			return nil
		}
		return []sdk.Event{p.setAnswer(e.RunID, p.artifact(e.RunID, d.Value))}
	case run.StatusChanged:
		before := State(p.status, p.await.Await)
		p.status = d.To
		st := sdk.TaskStatus{State: State(d.To, p.await.Await), Timestamp: stamp(e.Time)}
		switch d.To {
		case run.StatusAwaiting:
			raw, _ := json.Marshal(p.await)
			data := sdk.NewDataPart(json.RawMessage(raw))
			data.MediaType, data.Filename = "application/json", "await.json"
			st.Message = p.agentMessage(e, sdk.NewTextPart(server.DescribeAwait(p.await)), data)
			// The question is the agent's turn, in the history before
			// its answer.
			p.task.History = append(p.task.History, st.Message)
		case run.StatusCompleted:
			// The last assistant message of the turn, as in the history.
			st.Message = p.last
		case run.StatusFailed, run.StatusCanceled:
			if d.Reason != "" {
				st.Message = p.agentMessage(e, sdk.NewTextPart(d.Reason))
				p.task.History = append(p.task.History, st.Message)
			}
		case run.StatusRunning:
			p.await = run.AwaitRequested{}
		}
		if st.State == before && st.Message == nil {
			return nil // cancelling is still working: the status stays
		}
		return []sdk.Event{p.setStatus(e.RunID, st)}
	}
	return nil
}

// agentMessage is a message of the agent, with an ID stable across
// projections of the same event.
func (p *projector) agentMessage(e run.Event, parts ...*sdk.Part) *sdk.Message {
	return p.message(e, sdk.MessageRoleAgent, parts...)
}

// sent is the user's message of event e: msg, the message as its client
// sent it, with the task's IDs filled in; else, when there is none (or it
// does not decode), a message of the parts made, with the event's ID.
func (p *projector) sent(e run.Event, msg json.RawMessage, parts func() []*sdk.Part) *sdk.Message {
	if len(msg) > 0 {
		var m sdk.Message
		if json.Unmarshal(msg, &m) == nil && m.ID != "" {
			m.TaskID, m.ContextID = sdk.TaskID(e.RunID), p.task.ContextID
			return &m
		}
	}
	return p.message(e, sdk.MessageRoleUser, parts()...)
}

// answerParts is an answer given without an A2A message (from Go, ACP or
// /ui), as the parts of the user's message: its text, its input as a
// data part, or its decision (with the reason and edited arguments).
func answerParts(a run.Answer) []*sdk.Part {
	switch {
	case a.Text != "":
		return []*sdk.Part{sdk.NewTextPart(a.Text)}
	case len(a.Input) > 0:
		part := sdk.NewDataPart(json.RawMessage(a.Input))
		part.MediaType = "application/json"
		return []*sdk.Part{part}
	}
	text := string(a.Decision)
	if a.Reason != "" {
		text += ": " + a.Reason
	}
	parts := []*sdk.Part{sdk.NewTextPart(text)}
	if a.Arguments != "" {
		part := sdk.NewDataPart(json.RawMessage(a.Arguments))
		part.MediaType = "application/json"
		parts = append(parts, part)
	}
	return parts
}

// message is a message of the task whose ID is the event's: stable across
// projections, and made without the SDK's random IDs.
func (p *projector) message(e run.Event, role sdk.MessageRole, parts ...*sdk.Part) *sdk.Message {
	return &sdk.Message{ID: string(e.RunID) + "-" + strconv.FormatInt(e.Seq, 10), Role: role,
		TaskID: sdk.TaskID(e.RunID), ContextID: p.task.ContextID, Parts: parts}
}

// artifact is the result artifact: a text part for a string, else a data
// part, with the run's result schema in the artifact's metadata when it
// has one.
func (p *projector) artifact(id run.ID, value json.RawMessage) *sdk.Artifact {
	a := &sdk.Artifact{ID: answerID(id), Name: ResultArtifact, Description: "The run's result"}
	var s string
	if json.Unmarshal(value, &s) == nil {
		a.Parts = sdk.ContentParts{sdk.NewTextPart(s)}
	} else {
		part := sdk.NewDataPart(json.RawMessage(value))
		part.MediaType = "application/json"
		a.Parts = sdk.ContentParts{part}
	}
	if len(p.schema) > 0 {
		a.Metadata = map[string]any{"schema": json.RawMessage(p.schema)}
	}
	return a
}

// stops reports whether a stream or a blocking send ends after e: a move
// to awaiting or to a terminal status.
func stops(e run.Event) bool {
	sc, ok := e.Payload.(run.StatusChanged)
	return ok && (sc.To == run.StatusAwaiting || sc.To.Terminal())
}

// snapshot returns a copy of the task as folded so far, with at most
// historyLength messages of history (nil for all).
func (p *projector) snapshot(historyLength *int) *sdk.Task {
	t := p.task
	t.History = append([]*sdk.Message(nil), p.task.History...)
	t.Artifacts = append([]*sdk.Artifact(nil), p.task.Artifacts...)
	if historyLength != nil {
		n := max(*historyLength, 0)
		if len(t.History) > n {
			t.History = t.History[len(t.History)-n:]
		}
	}
	return &t
}

func stamp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
