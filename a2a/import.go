package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
)

// ImportOptions configures Import. The zero value works.
type ImportOptions struct {
	ClientOptions
	// Name is the action's name; empty means the card's name, made a Go
	// identifier (letters, digits and '_').
	Name string
	// CancelTimeout bounds the CancelTask sent to the remote agent when
	// the call is cancelled. Zero means 10 seconds.
	CancelTimeout time.Duration
}

// Import reads the card of the A2A agent at url and returns one action
// that calls it: NAME(task string) json.RawMessage. Calling it sends the
// task as a message and streams the remote task to its end, recording its
// progress (states and status messages) in the run's log as it happens
// (agent.Progress: the inspector and the protocols' streams show it) and
// writing it to the call's output. Its result
// is the task's artifacts, so that the run keeps them in a variable a
// later action takes by reference: the value of a single artifact (a
// text part as a JSON string, a data part as its JSON, several parts as
// an array), or an object of them by artifact name when there are
// several; with no artifact, the final status message's text.
//
// A remote input-required or auth-required becomes this run's await
// (action.InputRequired, action.AuthorizationRequired); the answer is
// sent on the same remote task when the call is retried (an input that
// is a JSON string as a text part, other JSON as a data part; an
// authorization as the text "done"). A remote task that fails, is
// rejected or canceled is the call's error. Cancelling the call (its
// run is cancelled) cancels the remote task.
//
// A call waiting for its retry is remembered by its run and tool call
// (agent.ParentOf). The client (its HTTP connections) lives as long as
// the action.
func Import(ctx context.Context, url string, opts ImportOptions) (*action.Action, error) {
	c, card, err := NewClient(ctx, url, opts.ClientOptions)
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = identifier(card.Name)
	}
	if opts.CancelTimeout <= 0 {
		opts.CancelTimeout = 10 * time.Second
	}
	r := &remote{client: c, card: card, cancelTimeout: opts.CancelTimeout, pending: map[string]pendingTask{}}
	a, err := action.New(action.Spec{
		Name:        name,
		Description: describeCard(card),
		Params:      []action.Param{{Name: "task", Description: "What the agent should do, in full: it does not see this conversation."}},
		Result:      "the remote task's artifacts, as JSON",
		Func:        r.call,
	})
	if err != nil {
		_ = c.Destroy()
		return nil, err
	}
	return a, nil
}

// describeCard is the action's description: the card's, and its skills.
func describeCard(card *sdk.AgentCard) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ask the remote agent %s: %s", card.Name, card.Description)
	for i, s := range card.Skills {
		if i == 0 {
			b.WriteString(" Skills:")
		}
		fmt.Fprintf(&b, " %s (%s);", s.Name, s.Description)
	}
	return strings.TrimSuffix(b.String(), ";")
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// identifier makes a card's name an action name.
func identifier(name string) string {
	s := strings.Trim(nonIdent.ReplaceAllString(name, "_"), "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "agent_" + s
	}
	return s
}

// remote is an imported agent.
type remote struct {
	client        *a2aclient.Client
	card          *sdk.AgentCard
	cancelTimeout time.Duration

	mu      sync.Mutex
	pending map[string]pendingTask // by run and call: remote tasks awaiting an answer
}

// pendingTask is a remote task that asked for input or authorization.
type pendingTask struct {
	info  sdk.TaskInfo
	state sdk.TaskState
}

func (r *remote) call(ctx context.Context, task string) (json.RawMessage, error) {
	// The retry of a call that awaited is the same tool call of the same
	// run; outside a run, the task's text tells it.
	key := task
	if p, ok := agent.ParentOf(ctx); ok {
		key = string(p.RunID) + "/" + p.CallID
	}
	r.mu.Lock()
	p, resuming := r.pending[key]
	delete(r.pending, key)
	r.mu.Unlock()
	var msg *sdk.Message
	if resuming {
		reply := sdk.NewTextPart("done")
		if in, ok := action.Input(ctx); ok {
			var s string
			if json.Unmarshal(in, &s) == nil {
				reply = sdk.NewTextPart(s)
			} else {
				reply = sdk.NewDataPart(in)
			}
		}
		msg = sdk.NewMessageForTask(sdk.MessageRoleUser, p.info, reply)
	} else {
		msg = sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart(task))
	}
	out := action.Stdout(ctx)
	var (
		info      sdk.TaskInfo
		status    sdk.TaskStatus
		artifacts []*sdk.Artifact
	)
	if resuming {
		info = p.info
	}
	// The stream runs on a context of its own, so that a call cancelled
	// before the remote task's ID has arrived still learns it and cancels
	// the task (within CancelTimeout).
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	cancel := &canceller{r: r, stop: stop, ctx: ctx, id: info.TaskID}
	defer context.AfterFunc(ctx, cancel.requested)()
	for ev, err := range r.client.SendStreamingMessage(sctx, &sdk.SendMessageRequest{Message: msg}) {
		if err != nil {
			if ctx.Err() != nil {
				cancel.wait()
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("a2a: calling %s: %w", r.card.Name, err)
		}
		switch e := ev.(type) {
		case *sdk.Message: // an answer without a task
			return finalResult(nil, e), nil
		case *sdk.Task:
			info, status, artifacts = e.TaskInfo(), e.Status, e.Artifacts
			progress(ctx, out, status)
		case *sdk.TaskStatusUpdateEvent:
			info, status = e.TaskInfo(), e.Status
			progress(ctx, out, status)
		case *sdk.TaskArtifactUpdateEvent:
			info = e.TaskInfo()
			artifacts = mergeArtifact(artifacts, e)
			if e.LastChunk {
				fmt.Fprintf(out, "artifact %s\n", artifactName(e.Artifact))
			}
		}
		if cancel.known(info.TaskID) {
			cancel.wait()
			return nil, context.Cause(ctx)
		}
	}
	if ctx.Err() != nil {
		cancel.wait()
		return nil, context.Cause(ctx)
	}
	question := messageText(status.Message)
	switch status.State {
	case sdk.TaskStateCompleted:
		return finalResult(artifacts, status.Message), nil
	case sdk.TaskStateInputRequired, sdk.TaskStateAuthRequired:
		r.mu.Lock()
		r.pending[key] = pendingTask{info: info, state: status.State}
		r.mu.Unlock()
		if question == "" {
			question = "The remote agent " + r.card.Name + " needs input"
		}
		if status.State == sdk.TaskStateAuthRequired {
			return nil, &action.AuthorizationRequired{Message: question, Link: link(question)}
		}
		return nil, &action.InputRequired{Message: question}
	case sdk.TaskStateFailed, sdk.TaskStateRejected, sdk.TaskStateCanceled:
		return nil, fmt.Errorf("a2a: the remote agent %s's task %s ended %s: %s", r.card.Name, info.TaskID, stateName(status.State), question)
	}
	return nil, fmt.Errorf("a2a: the remote agent %s's stream ended with task %s %s", r.card.Name, info.TaskID, stateName(status.State))
}

// canceller cancels the remote task of a call whose context is done, as
// soon as the task's ID is known, and then stops the call's stream; when
// the ID does not come within the remote's CancelTimeout, it stops the
// stream anyway.
type canceller struct {
	r    *remote
	stop context.CancelFunc
	ctx  context.Context // the call's

	mu        sync.Mutex
	id        sdk.TaskID
	cancelled bool // the call's context is done
	done      chan struct{}
}

// requested is called when the call's context is done.
func (c *canceller) requested() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelled = true
	c.done = make(chan struct{})
	if c.id != "" {
		go c.send(c.id)
		return
	}
	time.AfterFunc(c.r.cancelTimeout, c.stop)
}

// known records the task's ID and reports whether the call was cancelled
// (the remote task is then being cancelled).
func (c *canceller) known(id sdk.TaskID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" || c.id != "" {
		return c.cancelled && c.id != ""
	}
	c.id = id
	if c.cancelled {
		go c.send(id)
	}
	return c.cancelled
}

// send cancels the remote task and stops the stream.
func (c *canceller) send(id sdk.TaskID) {
	defer close(c.done)
	defer c.stop()
	cctx, stop := context.WithTimeout(context.WithoutCancel(c.ctx), c.r.cancelTimeout)
	defer stop()
	_, _ = c.r.client.CancelTask(cctx, &sdk.CancelTaskRequest{ID: id})
}

// wait waits for the cancellation of the remote task, if one was sent.
func (c *canceller) wait() {
	c.mu.Lock()
	done, id := c.done, c.id
	c.mu.Unlock()
	if done != nil && id != "" {
		<-done
	}
}

// progress writes a status to the call's output, and records it in the
// run's log as the call's progress (agent.Progress) as it happens.
func progress(ctx context.Context, w io.Writer, s sdk.TaskStatus) {
	line := stateName(s.State)
	if t := messageText(s.Message); t != "" {
		line += ": " + firstLine(t, 200)
	}
	fmt.Fprintln(w, line)
	_ = agent.Progress(ctx, line)
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// stateName is "input-required" for TASK_STATE_INPUT_REQUIRED.
func stateName(s sdk.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

var linkRE = regexp.MustCompile(`https?://\S+`)

// link is the first URL in a text.
func link(text string) string {
	return strings.TrimRight(linkRE.FindString(text), ".,;)")
}

// messageText joins the text parts of a message.
func messageText(m *sdk.Message) string {
	if m == nil {
		return ""
	}
	var texts []string
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

// mergeArtifact adds an artifact update: appended to the artifact it
// names, or replacing it.
func mergeArtifact(as []*sdk.Artifact, e *sdk.TaskArtifactUpdateEvent) []*sdk.Artifact {
	for i, a := range as {
		if a.ID == e.Artifact.ID {
			if e.Append {
				cp := *a
				cp.Parts = append(append(sdk.ContentParts(nil), a.Parts...), e.Artifact.Parts...)
				as[i] = &cp
			} else {
				as[i] = e.Artifact
			}
			return as
		}
	}
	return append(as, e.Artifact)
}

func artifactName(a *sdk.Artifact) string {
	if a.Name != "" {
		return a.Name
	}
	return string(a.ID)
}

// finalResult is the call's result: see Import.
func finalResult(artifacts []*sdk.Artifact, final *sdk.Message) json.RawMessage {
	switch len(artifacts) {
	case 0:
		b, _ := json.Marshal(messageText(final))
		return b
	case 1:
		return partsValue(artifacts[0].Parts)
	}
	obj := map[string]json.RawMessage{}
	for _, a := range artifacts {
		obj[artifactName(a)] = partsValue(a.Parts)
	}
	b, _ := json.Marshal(obj)
	return b
}

// partsValue is the JSON of an artifact's parts: one part's value, or an
// array of them.
func partsValue(parts sdk.ContentParts) json.RawMessage {
	values := make([]json.RawMessage, 0, len(parts))
	for _, p := range parts {
		var v any
		switch c := p.Content.(type) {
		case sdk.Text:
			v = string(c)
		case sdk.Data:
			v = c.Value
		case sdk.URL:
			v = map[string]string{"url": string(c), "mediaType": p.MediaType}
		case sdk.Raw:
			v = []byte(c)
		}
		b, err := json.Marshal(v)
		if err != nil {
			b, _ = json.Marshal(errors.New("a2a: unencodable part").Error())
		}
		values = append(values, b)
	}
	if len(values) == 1 {
		return values[0]
	}
	b, _ := json.Marshal(values)
	return b
}
