package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// TagProtocol is the run tag that marks runs started over AG-UI, with the
// value "ag-ui".
const TagProtocol = "protocol"

// DefaultWriteTimeout is the default of Options.WriteTimeout.
const DefaultWriteTimeout = 30 * time.Second

// Options configures Mount. The zero value works.
type Options struct {
	// WriteTimeout bounds each write of a stream, so that a client that
	// stopped reading is dropped. Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Logger logs failures. Nil means no logging.
	Logger *slog.Logger
	// State declares, by agent name, the state a client may send in
	// RunAgentInput.state: a struct type whose JSON fields are the keys
	// it may set (reflect.TypeFor[ChatState]()). Each key sent becomes a
	// variable of the run, named after the key, of the field's Go type,
	// once its JSON schema accepts the value; any other key, or a value
	// the schema refuses, is refused (400) with the keys the agent
	// declares. The key "variables" is the state the server sends, which
	// clients send back: it is ignored. An agent not named takes no keys.
	State map[string]reflect.Type
}

// Server serves a server.Server's agents over AG-UI. Create one with
// Mount.
type Server struct {
	opts  Options
	srv   *server.Server
	log   *slog.Logger
	state map[string]map[string]stateKey // declared state keys, by agent
}

// Mount serves srv's agents over AG-UI beside ACP, on srv itself: each
// agent's endpoint is POST /agui/{name}, behind the server's guards
// (token, cross-site refusal, body limit). Call it once, before serving.
func Mount(srv *server.Server, opts Options) (*Server, error) {
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	s := &Server{opts: opts, srv: srv, log: opts.Logger, state: map[string]map[string]stateKey{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for agentName, t := range opts.State {
		if !slices.ContainsFunc(srv.Agents(), func(a server.Agent) bool { return a.Name == agentName }) {
			return nil, fmt.Errorf("agui: Options.State names agent %q, which the server does not offer", agentName)
		}
		keys, err := stateKeys(agentName, t)
		if err != nil {
			return nil, err
		}
		s.state[agentName] = keys
	}
	for _, a := range srv.Agents() {
		srv.Handle("/agui/"+a.Name, s.endpoint(a.Name))
	}
	return s, nil
}

// threadRE is what a client-chosen threadId may be: it becomes the byref
// session.
var threadRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// endpoint is an agent's AG-UI endpoint.
func (s *Server) endpoint(agentName string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "send a RunAgentInput with POST", http.StatusMethodNotAllowed)
			return
		}
		var in RunAgentInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "the body is not a RunAgentInput: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !threadRE.MatchString(in.ThreadID) || in.RunID == "" {
			http.Error(w, "threadId must be 1 to 128 letters, digits, '-', '_', '.' or ':', and runId must be set", http.StatusBadRequest)
			return
		}
		id, from, status, err := s.begin(r.Context(), agentName, in)
		if err != nil {
			http.Error(w, err.Error(), status)
			return
		}
		s.stream(w, r, agentName, in, id, from)
	})
}

// begin starts the run the input asks for, or resumes the one its resume
// entries answer, and returns its ID and the sequence number its stream
// starts from; on failure, the HTTP status to answer.
func (s *Server) begin(ctx context.Context, agentName string, in RunAgentInput) (run.ID, int64, int, error) {
	if len(in.Resume) > 0 {
		return s.resume(ctx, agentName, in.Resume)
	}
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "tool" {
		// The result of a call the front end ran: the run that awaits it
		// goes on.
		return s.answerTool(ctx, agentName, in.ThreadID, in.Messages[n-1])
	}
	actions, err := clientActions(in.Tools)
	if err != nil {
		return "", 0, http.StatusBadRequest, err
	}
	task := ""
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == "user" {
			task = in.Messages[i].text()
			break
		}
	}
	if strings.TrimSpace(task) == "" {
		return "", 0, http.StatusBadRequest, errors.New("the input has no user message with text; send the task as the last user message")
	}
	vars, err := stateVariables(agentName, s.state[agentName], in.State)
	if err != nil {
		return "", 0, http.StatusBadRequest, err
	}
	id, err := s.srv.StartRun(ctx, agentName, server.StartRequest{Session: run.SessionID(in.ThreadID), Task: task + contextText(in.Context), Variables: vars,
		Tags: map[string]string{TagProtocol: "ag-ui"}, Actions: actions})
	if err != nil {
		if errors.Is(err, agent.ErrInvalidInput) {
			return "", 0, http.StatusBadRequest, err
		}
		s.log.Error("agui: starting a run", "agent", agentName, "err", err)
		return "", 0, http.StatusInternalServerError, errors.New("starting the run failed; the server's log has the details")
	}
	return id, 1, 0, nil
}

// resume answers the interrupt of the resume entry (one: a byref run
// awaits one thing at a time), or cancels the run when it is "cancelled".
func (s *Server) resume(ctx context.Context, agentName string, entries []ResumeEntry) (run.ID, int64, int, error) {
	if len(entries) != 1 {
		return "", 0, http.StatusBadRequest, fmt.Errorf("%d resume entries; a byref run awaits one answer at a time, so send one", len(entries))
	}
	e := entries[0]
	runID, awaitID, ok := strings.Cut(e.InterruptID, "/")
	if !ok {
		return "", 0, http.StatusBadRequest, fmt.Errorf("interruptId %q is not one this server sent (run/await)", e.InterruptID)
	}
	id := run.ID(runID)
	sum, err := s.srv.Store().Get(ctx, id)
	if errors.Is(err, run.ErrRunNotFound) || err == nil && sum.Tags[server.TagAgent] != agentName {
		return "", 0, http.StatusNotFound, fmt.Errorf("no run %s of agent %s", runID, agentName)
	}
	if err != nil {
		s.log.Error("agui: reading a run", "run", id, "err", err)
		return "", 0, http.StatusInternalServerError, errors.New("reading the run failed; the server's log has the details")
	}
	c, err := s.srv.Control(ctx, id)
	if errors.Is(err, server.ErrOwnerUnavailable) {
		return "", 0, http.StatusServiceUnavailable, err
	}
	if err != nil || c == nil {
		return "", 0, http.StatusConflict, fmt.Errorf("run %s is not running in this server process, its engine or another replica", runID)
	}
	if e.Status == "cancelled" {
		if err := c.Cancel(ctx); err != nil {
			return "", 0, http.StatusConflict, err
		}
		return id, sum.LastSeq + 1, 0, nil
	}
	pending, ok := c.Pending()
	if !ok || pending.ID != awaitID {
		return "", 0, http.StatusConflict, fmt.Errorf("run %s awaits nothing by the ID %s (any more)", runID, awaitID)
	}
	answer, err := decodeAnswer(pending, e.Payload)
	if err == nil {
		err = pending.Check(answer)
	}
	if err != nil {
		return "", 0, http.StatusBadRequest, fmt.Errorf("the resume payload does not answer the %s: %w", pending.Await, err)
	}
	if err := c.Resume(ctx, pending.ID, answer); err != nil {
		return "", 0, http.StatusConflict, err
	}
	return id, sum.LastSeq + 1, 0, nil
}

// decodeAnswer reads a resume payload: a run.Answer object
// ({"decision":"approved"}, {"text":"…"}, {"input":…}), or a string read
// as a reply is over ACP ("approve", "deny: why", an answer's text).
func decodeAnswer(a run.AwaitRequested, payload json.RawMessage) (run.Answer, error) {
	var text string
	if len(payload) == 0 || json.Unmarshal(payload, &text) == nil {
		return server.ParseAnswer(a, text)
	}
	var ans run.Answer
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		return run.Answer{}, fmt.Errorf("a payload is a string or an object of decision, reason, arguments, text, input: %w", err)
	}
	return ans, nil
}

// stream writes the AG-UI events of the run from sequence number from,
// until it awaits or ends. A client that goes away before then cancels
// the run: AG-UI's abortRun closes the request.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, agentName string, in RunAgentInput, id run.ID, from int64) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(evs []Event) error {
		if len(evs) == 0 {
			return nil
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		for _, ev := range evs {
			b, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return err
			}
		}
		return rc.Flush()
	}
	p := newProjector(in.ThreadID, in.RunID, id)
	p.messages = append(p.messages, in.Messages...)
	for _, t := range in.Tools {
		p.clientTools[t.Name] = true
	}
	ctx := r.Context()
	started := false
	ended := false
	for e, err := range s.srv.Follow(ctx, id, 1) {
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("agui: stream ended early", "run", id, "err", err)
				_ = write([]Event{{Type: RunError, Message: "reading the run failed; the server's log has the details"}})
				return
			}
			break
		}
		if e.Seq >= from && !started && !starting(e) {
			p.begin()
			started = true
			if err := write([]Event{
				{Type: RunStarted, ThreadID: in.ThreadID, RunID: in.RunID, Metadata: map[string]any{"byref.run": string(id)}},
				{Type: StateSnapshot, Snapshot: p.state()},
			}); err != nil {
				break
			}
		}
		if d, ok := e.Payload.(run.Delta); ok {
			if started {
				if err := write(p.delta(d)); err != nil {
					break
				}
			}
			continue
		}
		evs := p.apply(e)
		if !started {
			continue
		}
		end, stop := p.end(e)
		if err := write(append(evs, end...)); err != nil {
			break
		}
		if stop {
			ended = true
			break
		}
	}
	if !ended {
		// The client went away (or could not be written to) before the
		// run stopped: AG-UI's abort. Cancel the run.
		if c, err := s.srv.Control(context.WithoutCancel(ctx), id); err == nil && c != nil {
			if err := c.Cancel(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, agent.ErrTerminal) {
				s.log.Warn("agui: cancelling an aborted run", "agent", agentName, "run", id, "err", err)
			}
		}
	}
}
