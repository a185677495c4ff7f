package mcp

//lint:file-ignore SA1019 sampling is deprecated by MCP 2026-07-28 (SEP-2577) but served for its deprecation window, off by default, as the host allows

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/internal/toolschema"
	"github.com/byref/byref/llm"
)

// DefaultElicitTimeout is the default of ConnectOptions.ElicitTimeout.
const DefaultElicitTimeout = time.Hour

// ConnectOptions configures ConnectWith. The zero value is Connect's:
// elicitation and progress served, sampling refused.
type ConnectOptions struct {
	// Sampling serves the server's sampling requests
	// (sampling/createMessage) with a model: Sample(model) serves them
	// with the model the host's runs use. Nil refuses them, and the client
	// does not declare sampling: it is off unless the host turns it on.
	Sampling func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error)
	// SampleWithRunModel serves the sampling requests the server makes
	// during a tool call with the model of the run that made the call (as
	// Sample does), and counts the tokens they spend in the run's usage,
	// on the call's record (run.ToolCallCompleted.Usage).
	// Sampling, when set, is used instead. False, with Sampling nil,
	// refuses sampling.
	SampleWithRunModel bool
	// ElicitTimeout is how long a tool call whose server asked a question
	// (elicitation) waits for its run's answer before the question is
	// answered "cancel". A run cancelled or failed first has it answered
	// "cancel" at once (action.RunDone). Zero means DefaultElicitTimeout.
	ElicitTimeout time.Duration
	// Logger logs what the server sends that cannot be used. Nil means
	// no logs.
	Logger *slog.Logger
}

// session is what the client keeps of a session connected by Connect:
// the tool calls in flight, by progress token, and those whose server
// asked a question their run awaits the answer to, by run and call.
type session struct {
	opts     ConnectOptions
	log      *slog.Logger
	mu       sync.Mutex
	calls    map[string]*inflight
	finished []string // tokens of the latest calls that have ended, oldest first
	parked   map[string]*inflight
}

// keepFinished is how many ended calls the progress handler still knows.
const keepFinished = 64

// sessions maps the sessions made by Connect to what the client keeps of
// them, for the SDK's handlers, which are given the session.
var sessions sync.Map // *sdk.ClientSession → *session

// inflight is a tool call in flight: its request runs in a goroutine of
// its own, so that it outlives an attempt of the action that returns
// InputRequired to let its run ask the question.
type inflight struct {
	token   string
	attempt context.Context // the action's current attempt, for progress
	cancel  context.CancelFunc
	asked   chan *question   // questions of the server, while an attempt waits
	done    chan toolOutcome // the result
	ended   chan struct{}    // closed once the result is in done
	pending *question        // the question the run is asked, while parked
	// runDone is closed once the call's run stops for good
	// (action.RunDone): a question parked then is answered "cancel".
	runDone <-chan struct{}
}

// question is an elicitation request waiting for its answer.
type question struct {
	params *sdk.ElicitParams
	answer chan *sdk.ElicitResult
}

type toolOutcome struct {
	res *sdk.CallToolResult
	err error
}

type inflightKey struct{}

// Connect starts an MCP client session over t, as the client "byref":
// &sdk.CommandTransport{Command: exec.Command(...)} for a server run as a
// command over stdio, &sdk.StreamableClientTransport{Endpoint: url} for
// streamable HTTP. Close the session when its actions are no longer used.
// It is ConnectWith with the zero ConnectOptions.
func Connect(ctx context.Context, t sdk.Transport) (*sdk.ClientSession, error) {
	return ConnectWith(ctx, t, ConnectOptions{})
}

// ConnectWith is Connect with options. The session's tools, imported by
// Import or Tools, then take part in their runs:
//
//   - a question the server asks during a call (elicitation, form mode)
//     becomes the run's await for input (action.InputRequired) with the
//     requested schema; the answer (a JSON object, or the JSON string
//     "decline" or "cancel") goes back to the server, and the call goes
//     on; a URL the server asks the user to visit (URL mode) becomes the
//     run's await for an authorization with that link;
//   - the server's progress notifications are recorded as the call's
//     progress (action.Progress, agent.Progress);
//   - sampling requests are served by ConnectOptions.Sampling, and refused
//     when it is nil.
func ConnectWith(ctx context.Context, t sdk.Transport, opts ConnectOptions) (*sdk.ClientSession, error) {
	if opts.ElicitTimeout <= 0 {
		opts.ElicitTimeout = DefaultElicitTimeout
	}
	st := &session{opts: opts, log: opts.Logger, calls: map[string]*inflight{}, parked: map[string]*inflight{}}
	if st.log == nil {
		st.log = slog.New(slog.DiscardHandler)
	}
	copts := &sdk.ClientOptions{
		ElicitationHandler:          st.elicit,
		ProgressNotificationHandler: st.progress,
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
			Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
	}
	switch {
	case opts.Sampling != nil:
		copts.CreateMessageHandler = opts.Sampling
	case opts.SampleWithRunModel:
		copts.CreateMessageHandler = st.sampleWithRunModel
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "byref", Version: Version}, copts)
	s, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: connecting: %w", err)
	}
	sessions.Store(s, st)
	go func() {
		_ = s.Wait()
		sessions.Delete(s)
	}()
	return s, nil
}

// stateOf returns what the client keeps of a session made by Connect.
func stateOf(s *sdk.ClientSession) *session {
	st, _ := sessions.Load(s)
	v, _ := st.(*session)
	return v
}

// callTool calls a tool, as the attempt ctx of an action: a new call, or
// the call this run's tool call left waiting for the answer to its
// server's question, which the run has now given (action.Input).
func (st *session) callTool(ctx context.Context, cs *sdk.ClientSession, params *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	key := ""
	if c, ok := action.CallOf(ctx); ok {
		run, call := c.IDs()
		key = run + "/" + call
	}
	st.mu.Lock()
	p := st.parked[key]
	delete(st.parked, key)
	st.mu.Unlock()
	if p != nil && key != "" {
		p.attempt = ctx
		p.pending.answer <- answerOf(ctx, p.pending.params)
		p.pending = nil
		return st.wait(ctx, key, p)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p = &inflight{token: hex.EncodeToString(b[:]), attempt: ctx, cancel: cancel, asked: make(chan *question), done: make(chan toolOutcome, 1), ended: make(chan struct{}), runDone: action.RunDone(ctx)}
	cctx = context.WithValue(cctx, inflightKey{}, p)
	params.SetProgressToken(p.token)
	st.mu.Lock()
	st.calls[p.token] = p
	st.mu.Unlock()
	go func() {
		res, err := cs.CallTool(cctx, params)
		p.done <- toolOutcome{res, err}
		close(p.ended)
		// The call's progress notifications may be handled after its
		// result (over streamable HTTP, handlers run concurrently): the
		// latest finished calls stay known to the progress handler.
		st.mu.Lock()
		st.finished = append(st.finished, p.token)
		if len(st.finished) > keepFinished {
			delete(st.calls, st.finished[0])
			st.finished = st.finished[1:]
		}
		st.mu.Unlock()
		cancel()
	}()
	return st.wait(ctx, key, p)
}

// wait waits for the call's result, or for a question of its server,
// which it parks the call on and returns as the error that makes the run
// await (outside a run, the question is declined).
func (st *session) wait(ctx context.Context, key string, p *inflight) (*sdk.CallToolResult, error) {
	for {
		select {
		case out := <-p.done:
			return out.res, out.err
		case <-ctx.Done():
			p.cancel() // the SDK tells the server the request is cancelled
			return nil, context.Cause(ctx)
		case q := <-p.asked:
			if key == "" {
				q.answer <- &sdk.ElicitResult{Action: "decline"}
				continue
			}
			st.mu.Lock()
			p.pending = q
			st.parked[key] = p
			st.mu.Unlock()
			if q.params.Mode == "url" {
				return nil, &action.AuthorizationRequired{Link: q.params.URL, Message: q.params.Message}
			}
			return nil, &action.InputRequired{Message: describeQuestion(q.params)}
		}
	}
}

// describeQuestion is what the run's await says of a form question: the
// message, and the schema of the answer.
func describeQuestion(p *sdk.ElicitParams) string {
	msg := p.Message
	if p.RequestedSchema != nil {
		if b, err := json.Marshal(p.RequestedSchema); err == nil {
			msg += "\nAnswer with a JSON object matching this schema: " + string(b) + `; or "decline" or "cancel".`
		}
	}
	return msg
}

// answerOf maps the run's answer onto the elicitation's result: an
// authorization approved is "accept"; input that is a JSON object accepts
// with it as the content, the JSON string "decline" or "cancel" is that
// action, and any other string is the content's one property when the
// schema has exactly one.
func answerOf(ctx context.Context, p *sdk.ElicitParams) *sdk.ElicitResult {
	in, ok := action.Input(ctx)
	if !ok {
		return &sdk.ElicitResult{Action: "accept"}
	}
	var content map[string]any
	if json.Unmarshal(in, &content) == nil && content != nil {
		return &sdk.ElicitResult{Action: "accept", Content: content}
	}
	var s string
	if json.Unmarshal(in, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "decline", "cancel":
			return &sdk.ElicitResult{Action: strings.ToLower(strings.TrimSpace(s))}
		}
		if name, ok := onlyProperty(p.RequestedSchema); ok {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{name: s}}
		}
	}
	return &sdk.ElicitResult{Action: "decline"}
}

// onlyProperty returns the name of a schema's only property.
func onlyProperty(schema any) (string, bool) {
	m, err := toolschema.Object(schema)
	if err != nil {
		return "", false
	}
	props, _ := m["properties"].(map[string]any)
	if len(props) != 1 {
		return "", false
	}
	for n := range props {
		return n, true
	}
	return "", false
}

// callOf returns the tool call in flight a server's request belongs to:
// the one whose request the handler's context comes from (multi
// round-trip), else the session's only call in flight.
func (st *session) callOf(ctx context.Context) (*inflight, error) {
	if p, ok := ctx.Value(inflightKey{}).(*inflight); ok {
		return p, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var p *inflight
	for _, c := range st.calls {
		select {
		case <-c.ended:
			continue
		default:
		}
		if p != nil {
			return nil, errors.New("byref cannot tell which of several tool calls in flight this request belongs to; it serves requests made during one call at a time")
		}
		p = c
	}
	if p == nil {
		return nil, errors.New("byref serves requests made during a tool call only")
	}
	return p, nil
}

// sampleWithRunModel serves a sampling request with the model of the run
// whose tool call it belongs to.
func (st *session) sampleWithRunModel(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	p, err := st.callOf(ctx)
	if err != nil {
		return nil, err
	}
	c, _ := action.CallOf(p.attempt)
	withModel, ok := c.(interface{ Model() llm.Model })
	if !ok || withModel.Model() == nil {
		return nil, errors.New("byref samples with the model of the run that made the tool call, and this call is not part of a run")
	}
	return Sample(withModel.Model())(ctx, req)
}

// elicit is the session's elicitation handler: it hands the question to
// the tool call it belongs to (the one whose request the handler's
// context comes from, else the session's only call in flight) and waits
// for the run's answer.
func (st *session) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p, err := st.callOf(ctx)
	if err != nil {
		return nil, err
	}
	q := &question{params: req.Params, answer: make(chan *sdk.ElicitResult, 1)}
	timer := time.NewTimer(st.opts.ElicitTimeout)
	defer timer.Stop()
	select {
	case p.asked <- q:
	case <-p.ended:
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-p.runDone:
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-q.answer:
		return a, nil
	case <-p.runDone:
		// The run was cancelled or failed while it awaited the answer:
		// it will not come back for this call.
		st.unpark(p)
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-timer.C:
		st.log.Warn("mcp: a question of the server was not answered in time", "message", req.Params.Message)
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// unpark forgets the parked call p, whose run will not come back to it.
func (st *session) unpark(p *inflight) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k, v := range st.parked {
		if v == p {
			delete(st.parked, k)
		}
	}
}

// progress is the session's progress handler: a notification about a
// tool call in flight is recorded as the call's progress.
func (st *session) progress(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
	token := fmt.Sprint(req.Params.ProgressToken)
	st.mu.Lock()
	p := st.calls[token]
	st.mu.Unlock()
	if p == nil {
		return
	}
	msg := req.Params.Message
	switch {
	case req.Params.Total > 0:
		msg = strings.TrimSpace(fmt.Sprintf("%g/%g %s", req.Params.Progress, req.Params.Total, msg))
	case msg == "":
		msg = fmt.Sprintf("%g", req.Params.Progress)
	}
	if err := action.Progress(context.WithoutCancel(p.attempt), msg); err != nil {
		st.log.Warn("mcp: recording a tool call's progress", "err", err)
	}
}

// Sample returns a ConnectOptions.Sampling that serves the server's
// sampling requests with model: the request's system prompt and messages
// (their text) go to the model, and its text comes back as the
// assistant's message. Only hosts that trust the server with their model
// (and its cost) should set it.
func Sample(model llm.Model) func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	return func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		p := req.Params
		var msgs []llm.Message
		if p.SystemPrompt != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Text: p.SystemPrompt})
		}
		for _, m := range p.Messages {
			text, ok := m.Content.(*sdk.TextContent)
			if !ok {
				return nil, fmt.Errorf("byref samples text messages only, not %T", m.Content)
			}
			role := llm.RoleUser
			if m.Role == "assistant" {
				role = llm.RoleAssistant
			}
			msgs = append(msgs, llm.Message{Role: role, Text: text.Text})
		}
		resp, err := model.Generate(ctx, llm.Request{Messages: msgs, MaxTokens: int(p.MaxTokens), Temperature: ptrIf(p.Temperature)})
		if err != nil {
			return nil, err
		}
		return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: resp.Text}, Model: "byref", StopReason: "endTurn"}, nil
	}
}

func ptrIf(f float64) *float64 {
	if f == 0 {
		return nil
	}
	return &f
}
