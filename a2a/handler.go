package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// TagProtocol is the run tag that marks runs started over A2A, with the
// value "a2a".
const TagProtocol = "protocol"

// handler serves one agent's tasks: an a2asrv.RequestHandler over the
// byref store, so that tasks are runs (durable, shared with ACP and the
// inspector, on any engine) and no state is kept here.
type handler struct {
	agent string
	runs  runs
	push  *pusher // nil when the store keeps no records
	log   *slog.Logger
}

var _ a2asrv.RequestHandler = (*handler)(nil)

// task reads the run with the task's ID, refusing runs of other agents,
// and folds its log up to the first event satisfying until (nil: all).
func (h *handler) task(ctx context.Context, id sdk.TaskID, until func(run.Event) bool) (*projector, int64, error) {
	if id == "" {
		return nil, 0, fmt.Errorf("%w: the task id is missing", sdk.ErrInvalidParams)
	}
	sum, err := h.runs.Store().Get(ctx, run.ID(id))
	if errors.Is(err, run.ErrRunNotFound) || err == nil && sum.Tags[server.TagAgent] != h.agent {
		return nil, 0, fmt.Errorf("%w: no task %q for agent %s", sdk.ErrTaskNotFound, id, h.agent)
	}
	if err != nil {
		return nil, 0, h.internal("reading a task", err)
	}
	events, err := h.runs.Store().Read(ctx, run.ID(id), 1, 0)
	if err != nil {
		return nil, 0, h.internal("reading a task", err)
	}
	p := &projector{}
	last := int64(0)
	for _, e := range events {
		p.apply(e)
		last = e.Seq
		if until != nil && until(e) {
			break
		}
	}
	return p, last, nil
}

// internal logs err and returns the A2A internal error, which names
// nothing of it (a store error may name files or hold SQL).
func (h *handler) internal(what string, err error) error {
	h.log.Error("a2a: "+what, "agent", h.agent, "err", err)
	return fmt.Errorf("%w: %s failed; the server's log has the details", sdk.ErrInternalError, what)
}

// GetTask implements a2asrv.RequestHandler.
func (h *handler) GetTask(ctx context.Context, req *sdk.GetTaskRequest) (*sdk.Task, error) {
	p, _, err := h.task(ctx, req.ID, nil)
	if err != nil {
		return nil, err
	}
	return p.snapshot(req.HistoryLength), nil
}

// CancelTask implements a2asrv.RequestHandler: it cancels the run and
// answers once it is canceled (or ctx is done).
func (h *handler) CancelTask(ctx context.Context, req *sdk.CancelTaskRequest) (*sdk.Task, error) {
	p, last, err := h.task(ctx, req.ID, nil)
	if err != nil {
		return nil, err
	}
	switch p.status {
	case run.StatusCompleted, run.StatusFailed, run.StatusCanceled:
		return nil, fmt.Errorf("%w: task %s is %s", sdk.ErrTaskNotCancelable, req.ID, strings.ToLower(strings.TrimPrefix(string(p.task.Status.State), "TASK_STATE_")))
	}
	if p.status != run.StatusCancelling {
		c, err := h.runs.Control(ctx, run.ID(req.ID))
		if err != nil {
			return nil, h.internal("finding a task's run", err)
		}
		if c == nil {
			return nil, fmt.Errorf("%w: task %s is not running in this server process, its engine or another replica (it started before a restart)", sdk.ErrTaskNotCancelable, req.ID)
		}
		if err := c.Cancel(ctx); err != nil {
			if errors.Is(err, agent.ErrTerminal) {
				return nil, fmt.Errorf("%w: %v", sdk.ErrTaskNotCancelable, err)
			}
			return nil, h.internal("cancelling a task", err)
		}
	}
	for e, err := range h.runs.Store().Events(ctx, run.ID(req.ID), last+1) {
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, h.internal("reading a task", err)
		}
		p.apply(e)
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
			break
		}
	}
	return p.snapshot(nil), nil
}

// SendMessage implements a2asrv.RequestHandler: it starts a task, or
// resumes one, and answers when the run awaits or ends (at once with
// configuration.returnImmediately).
func (h *handler) SendMessage(ctx context.Context, req *sdk.SendMessageRequest) (sdk.SendMessageResult, error) {
	id, from, err := h.send(ctx, req)
	if err != nil {
		return nil, err
	}
	// The task as created, or once a resumed run has left awaiting, with
	// configuration.returnImmediately; else once it awaits again or ends.
	until := stops
	if req.Config != nil && req.Config.ReturnImmediately {
		until = func(e run.Event) bool {
			sc, ok := e.Payload.(run.StatusChanged)
			return from == 1 || ok && sc.From == run.StatusAwaiting
		}
	}
	p := &projector{}
	for e, err := range h.runs.Store().Events(ctx, run.ID(id), 1) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, h.internal("reading a task", err)
		}
		p.apply(e)
		if e.Seq >= from && until(e) {
			break
		}
	}
	return p.snapshot(historyLength(req)), nil
}

func historyLength(req *sdk.SendMessageRequest) *int {
	if req.Config == nil {
		return nil
	}
	return req.Config.HistoryLength
}

// SendStreamingMessage implements a2asrv.RequestHandler: the task first
// (a resume's too, as the JavaScript SDK's client and server expect),
// then its status and artifact updates as the run's events are recorded,
// until it awaits or ends. The stream reads the store: a client that goes
// away leaves the run going.
func (h *handler) SendStreamingMessage(ctx context.Context, req *sdk.SendMessageRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		id, from, err := h.send(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, id, from, true, yield)
	}
}

// SubscribeToTask implements a2asrv.RequestHandler: the task as it is,
// then its updates, until it awaits or ends. A task that has ended
// answers UnsupportedOperation (-32004), as the specification says.
func (h *handler) SubscribeToTask(ctx context.Context, req *sdk.SubscribeToTaskRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		p, last, err := h.task(ctx, req.ID, nil)
		if err != nil {
			yield(nil, err)
			return
		}
		if p.task.Status.State.Terminal() {
			yield(nil, ended(req.ID, p.task.Status.State))
			return
		}
		if !yield(p.snapshot(nil), nil) || p.status == run.StatusAwaiting {
			return
		}
		h.stream(ctx, req.ID, last+1, false, yield)
	}
}

// precheck answers a v1.0 subscription to an unknown or ended task before
// the stream starts, as a plain JSON-RPC error rather than an error event
// on a stream, as the JavaScript SDK's server does (its client reads it as
// the method's error; v0.3 answers on the stream, as there). It returns
// nil for every other request, and for bodies the SDK's handler refuses
// itself.
func (h *handler) precheck(ctx context.Context, body []byte) error {
	var req struct {
		Method string `json:"method"`
		Params struct {
			ID sdk.TaskID `json:"id"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Method != "SubscribeToTask" || req.Params.ID == "" {
		return nil
	}
	p, _, err := h.task(ctx, req.Params.ID, nil)
	if err != nil {
		if errors.Is(err, sdk.ErrTaskNotFound) {
			return err
		}
		return nil // the stream reports it
	}
	if p.task.Status.State.Terminal() {
		return ended(req.Params.ID, p.task.Status.State)
	}
	return nil
}

// ended is the error of a subscription to a task that has ended.
func ended(id sdk.TaskID, state sdk.TaskState) error {
	return fmt.Errorf("%w: task %s has ended (%s); read it with GetTask", sdk.ErrUnsupportedOperation, id, state)
}

// stream yields the task's events from sequence number from until one
// stops it; with withTask, the task as folded up to from first. The task
// goes out with the turn's input (the user's message or answer, recorded
// after the run is working), or with the first event from on that gives
// more than a bare status change (or a delta), so that what it holds and
// what follows add up to the task: events that give no stream event (the
// user's message joining the history) are in it.
func (h *handler) stream(ctx context.Context, id sdk.TaskID, from int64, withTask bool, yield func(sdk.Event, error) bool) {
	p := &projector{}
	for e, err := range h.runs.Follow(ctx, run.ID(id), 1) {
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, h.internal("reading a task", err))
			}
			return
		}
		if d, ok := e.Payload.(run.Delta); ok {
			// The model's text as it is written, once the task is out.
			if p.seq < from-1 {
				continue
			}
			if withTask {
				withTask = false
				if !yield(p.snapshot(nil), nil) {
					return
				}
			}
			for _, ev := range p.delta(e, d) {
				if !yield(ev, nil) {
					return
				}
			}
			continue
		}
		evs := p.apply(e)
		if e.Seq < from {
			continue
		}
		if withTask {
			if bare(evs) && !stops(e) && !turnInput(e) {
				continue // in the task when it goes out
			}
			withTask = false
			// The task holds what evs say.
			evs = []sdk.Event{p.snapshot(nil)}
		}
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
		if stops(e) {
			return
		}
	}
}

// turnInput reports whether e is the input of a turn (the user's message,
// an answer), after which the task goes out at once: it is in the
// history, and a client that cancels needs the task's ID.
func turnInput(e run.Event) bool {
	switch e.Payload.(type) {
	case run.UserMessage, run.AwaitResolved:
		return true
	}
	return false
}

// bare reports whether evs are only status changes without a message,
// which the task sent after them shows as well.
func bare(evs []sdk.Event) bool {
	for _, ev := range evs {
		if u, ok := ev.(*sdk.TaskStatusUpdateEvent); !ok || u.Status.Message != nil {
			return false
		}
	}
	return true
}

// send starts or resumes the task the message is for, and returns its ID
// and the sequence number of the first event of this turn.
func (h *handler) send(ctx context.Context, req *sdk.SendMessageRequest) (sdk.TaskID, int64, error) {
	m := req.Message
	if m == nil {
		return "", 0, fmt.Errorf("%w: message is required", sdk.ErrInvalidParams)
	}
	var push *sdk.PushConfig
	if req.Config != nil && req.Config.PushConfig != nil {
		if h.push == nil {
			return "", 0, errNoPush
		}
		c := *req.Config.PushConfig
		push = &c
		if err := h.push.checkConfig(ctx, push); err != nil {
			return "", 0, err
		}
	}
	if m.Role != sdk.MessageRoleUser {
		return "", 0, fmt.Errorf("%w: the message's role is %s; send it as %s", sdk.ErrInvalidParams, m.Role, sdk.MessageRoleUser)
	}
	text, data, err := content(m)
	if err != nil {
		return "", 0, err
	}
	if m.TaskID != "" {
		id, from, err := h.resume(ctx, m, text, data)
		if err == nil && push != nil {
			push.TaskID = id
			_, err = h.push.create(ctx, *push, requestVersion(ctx), from)
		}
		return id, from, err
	}
	if text == "" && data != "" {
		text = data
	}
	if strings.TrimSpace(text) == "" {
		return "", 0, fmt.Errorf("%w: the message has no text; send at least one text or data part", sdk.ErrInvalidParams)
	}
	session := run.SessionID(m.ContextID)
	if session != "" && !contextRE.MatchString(m.ContextID) {
		return "", 0, fmt.Errorf("%w: contextId %q must be 1 to 128 letters, digits, '-', '_', '.' or ':'", sdk.ErrInvalidParams, m.ContextID)
	}
	sent, err := json.Marshal(m)
	if err != nil {
		return "", 0, fmt.Errorf("%w: the message: %v", sdk.ErrInvalidParams, err)
	}
	id, err := h.runs.StartRun(ctx, h.agent, server.StartRequest{Session: session, Task: text, Message: sent, Tags: map[string]string{TagProtocol: "a2a"}})
	if err != nil {
		if errors.Is(err, agent.ErrInvalidInput) {
			return "", 0, fmt.Errorf("%w: %v", sdk.ErrInvalidParams, err)
		}
		return "", 0, h.internal("starting a task", err)
	}
	if push != nil {
		// From the task's first event: every update is notified.
		push.TaskID = sdk.TaskID(id)
		if _, err := h.push.create(ctx, *push, requestVersion(ctx), 1); err != nil {
			return "", 0, err
		}
	}
	return sdk.TaskID(id), 1, nil
}

// resume answers what the task's run awaits with the message.
func (h *handler) resume(ctx context.Context, m *sdk.Message, text, data string) (sdk.TaskID, int64, error) {
	p, last, err := h.task(ctx, m.TaskID, nil)
	if err != nil {
		return "", 0, err
	}
	if m.ContextID != "" && m.ContextID != p.task.ContextID {
		return "", 0, fmt.Errorf("%w: task %s is in context %s, not %s", sdk.ErrInvalidParams, m.TaskID, p.task.ContextID, m.ContextID)
	}
	if p.status != run.StatusAwaiting {
		if p.task.Status.State.Terminal() {
			return "", 0, fmt.Errorf("%w: task %s has ended (%s); to go on, send a new message without taskId in its context (contextId %s)", sdk.ErrUnsupportedOperation, m.TaskID, p.task.Status.State, p.task.ContextID)
		}
		return "", 0, fmt.Errorf("%w: task %s is %s and awaits no input; send a message on it when it is input-required or auth-required", sdk.ErrUnsupportedOperation, m.TaskID, p.task.Status.State)
	}
	c, err := h.runs.Control(ctx, run.ID(m.TaskID))
	if err != nil {
		return "", 0, h.internal("finding a task's run", err)
	}
	if c == nil {
		return "", 0, fmt.Errorf("%w: task %s awaits, but neither this server process nor its engine runs it (it started before a restart)", sdk.ErrUnsupportedOperation, m.TaskID)
	}
	pending, ok := c.Pending()
	if !ok {
		return "", 0, fmt.Errorf("%w: task %s awaits no input any more", sdk.ErrUnsupportedOperation, m.TaskID)
	}
	reply := text
	if data != "" && (pending.Await == run.AwaitInput || reply == "") {
		reply = data
	}
	answer, err := server.ParseAnswer(pending, reply)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", sdk.ErrInvalidParams, err)
	}
	if answer.Message, err = json.Marshal(m); err != nil {
		return "", 0, fmt.Errorf("%w: the message: %v", sdk.ErrInvalidParams, err)
	}
	if err := c.Resume(ctx, pending.ID, answer); err != nil {
		switch {
		case errors.Is(err, agent.ErrNoAwait), errors.Is(err, run.ErrIllegalTransition), errors.Is(err, run.ErrFinished):
			return "", 0, fmt.Errorf("%w: task %s moved on as it was answered: %v", sdk.ErrUnsupportedOperation, m.TaskID, err)
		case errors.Is(err, agent.ErrAwaitMismatch):
			return "", 0, fmt.Errorf("%w: %v", sdk.ErrInvalidParams, err)
		}
		return "", 0, h.internal("resuming a task", err)
	}
	return m.TaskID, last + 1, nil
}

// content returns the text of a message's text parts, joined by newlines,
// and its first data part as JSON. Files and raw bytes are refused.
func content(m *sdk.Message) (text, data string, err error) {
	var texts []string
	for i, p := range m.Parts {
		if p == nil {
			return "", "", fmt.Errorf("%w: part %d is null", sdk.ErrInvalidParams, i)
		}
		switch c := p.Content.(type) {
		case sdk.Text:
			texts = append(texts, string(c))
		case sdk.Data:
			if data == "" {
				b, err := json.Marshal(c.Value)
				if err != nil {
					return "", "", fmt.Errorf("%w: part %d: %v", sdk.ErrInvalidParams, i, err)
				}
				data = string(b)
			}
		default:
			return "", "", fmt.Errorf("%w: part %d is a file or raw bytes; this agent takes text and data parts", sdk.ErrUnsupportedContentType, i)
		}
	}
	return strings.Join(texts, "\n"), data, nil
}

// GetExtendedAgentCard implements a2asrv.RequestHandler: there is none.
func (h *handler) GetExtendedAgentCard(ctx context.Context, req *sdk.GetExtendedAgentCardRequest) (*sdk.AgentCard, error) {
	return nil, fmt.Errorf("%w: the public card is the whole card", sdk.ErrExtendedCardNotConfigured)
}
