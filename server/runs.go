package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// The ACP run modes.
const (
	ModeSync   = "sync"
	ModeAsync  = "async"
	ModeStream = "stream"
)

func parseMode(m *string) (string, error) {
	if m == nil || *m == "" {
		return ModeSync, nil
	}
	switch *m {
	case ModeSync, ModeAsync, ModeStream:
		return *m, nil
	}
	return "", fmt.Errorf("mode %q is not one of sync, async, stream", *m)
}

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if req.AgentName == nil || *req.AgentName == "" {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "agent_name is required")
		return
	}
	ag, ok := s.agents[*req.AgentName]
	if !ok {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Agent %s not found", *req.AgentName))
		return
	}
	mode, err := parseMode(req.Mode)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	if req.Input == nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "input is required: a list of messages")
		return
	}
	if err := checkInputTypes(ag, req.Input); err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	vars, note, err := inputVariables(ag, req.Input)
	if err == nil && len(vars) > 0 && s.opts.Engine != nil {
		// A workflow engine's run is started from its serializable spec,
		// which holds no variables.
		err = fmt.Errorf("agent %s runs on a workflow engine, which takes text input only; send the input's %s as text", ag.Name, vars[0].Value.(run.Artifact).ContentType)
	}
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	task, earlier, err := inputText(req.Input)
	if errors.Is(err, errNoText) && note != "" {
		err = nil // attachments only: they are the task
	}
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	if note != "" {
		task = strings.TrimSpace(task + "\n\n" + note)
	}
	session := ""
	switch {
	case req.Session != nil && req.SessionID != nil && *req.SessionID != req.Session.ID:
		writeError(w, http.StatusBadRequest, CodeInvalidInput, fmt.Sprintf("session_id %s differs from session.id %s; send one of them, or the same ID", *req.SessionID, req.Session.ID))
		return
	case req.Session != nil:
		session = req.Session.ID
	case req.SessionID != nil:
		session = *req.SessionID
	default:
		session = newUUID()
	}
	if !uuidRE.MatchString(session) {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, fmt.Sprintf("session id %q is not a UUID", session))
		return
	}
	history, err := s.history(r.Context(), run.SessionID(session), req.Session)
	if err != nil {
		var bad badInput
		var tooLarge historyTooLarge
		if errors.As(err, &tooLarge) {
			if tooLarge.retry {
				w.Header().Set("Retry-After", "1")
			}
			writeError(w, http.StatusRequestEntityTooLarge, CodeInvalidInput, err.Error())
			return
		}
		if errors.As(err, &bad) {
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
			return
		}
		if r.Context().Err() == nil {
			s.internal(w, "reading a session's history", err, "session", session)
		}
		return
	}

	id := run.NewID()
	opts := runOptions(ag, id, run.SessionID(session), task, append(history, earlier...))
	opts.Variables = append(slices.Clone(opts.Variables), vars...)
	if err := s.start(r.Context(), ag, opts, nil); err != nil {
		switch {
		case errors.Is(err, agent.ErrInvalidInput):
			s.log.Warn("server: starting a run", "agent", ag.Name, "run", id, "err", err)
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		case errors.Is(err, errClosed) || s.ctx.Err() != nil:
			s.log.Warn("server: starting a run", "agent", ag.Name, "run", id, "err", err)
			writeError(w, http.StatusServiceUnavailable, CodeServerError, errClosed.Error())
		default:
			s.internal(w, "starting a run", err, "agent", ag.Name, "run", id)
		}
		return
	}
	w.Header().Set("Run-ID", string(id))
	s.respond(w, r, id, mode, 1, true)
}

// checkInputTypes refuses an input part of a type the agent does not
// accept.
func checkInputTypes(ag *Agent, msgs []message) error {
	accepted := inputTypes(ag)
	for i, m := range msgs {
		for j, p := range m.Parts {
			ct := "text/plain"
			if p.ContentType != nil && *p.ContentType != "" {
				ct = strings.TrimSpace(strings.SplitN(*p.ContentType, ";", 2)[0])
			}
			if !acceptsType(accepted, ct) {
				return fmt.Errorf("input[%d].parts[%d] is %s; agent %s accepts %s", i, j, ct, ag.Name, strings.Join(accepted, ", "))
			}
		}
	}
	return nil
}

var errClosed = errors.New("server: the server is closing; it starts no more runs")

// runOptions is the agent's template of a run's options with the run's ID,
// session, task and the session's history set, and the tag TagAgent added.
func runOptions(ag *Agent, id run.ID, session run.SessionID, task string, history []llm.Message) agent.RunOptions {
	opts := ag.Run
	opts.ID, opts.Session, opts.Task = id, session, task
	opts.History = append(slices.Clone(ag.Run.History), history...)
	opts.Tags = maps.Clone(ag.Run.Tags)
	if opts.Tags == nil {
		opts.Tags = map[string]string{}
	}
	opts.Tags[TagAgent] = ag.Name
	if opts.Name == "" {
		opts.Name = ag.Name
	}
	return opts
}

// start starts the run, on Options.Engine when it is set (startOnEngine),
// else in this process (startLocal), and watches it. The closed check and
// s.wg.Add are one critical section, so that Close, once it has refused
// new runs, waits for every start in progress and the watcher of the run
// it starts.
func (s *Server) start(ctx context.Context, ag *Agent, opts agent.RunOptions, actions []*action.Action) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.wg.Add(1)
	s.mu.Unlock()
	watched := false
	defer func() {
		if !watched {
			s.wg.Done()
		}
	}()
	var (
		c   agent.Controller
		rc  runCtx
		err error
	)
	if s.opts.Replicas != nil && s.opts.Engine == nil {
		// The lease comes first: a replica that dies once the run is
		// recorded leaves it to another.
		var own bool
		if own, err = s.opts.Replicas.Own(ctx, opts.ID); err == nil && !own {
			err = fmt.Errorf("%w: run %s is another replica's", agent.ErrRunExists, opts.ID)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case s.opts.Engine != nil && len(actions) > 0:
		err = fmt.Errorf("%w: this server runs its runs on an engine, which cannot take a run's own actions (tools of the client)", agent.ErrInvalidInput)
	case s.opts.Engine != nil:
		c, err = s.startOnEngine(ctx, ag, opts)
	default:
		c, rc, err = s.startLocal(ctx, ag, opts, actions)
	}
	if err != nil {
		return err
	}
	s.publishDeltas(c)
	s.mu.Lock()
	s.live[opts.ID] = c
	closing := s.closed && s.opts.Engine == nil // Close began while it started
	s.mu.Unlock()
	if closing {
		_ = c.Cancel(context.Background())
	}
	s.log.Info("run started", "agent", ag.Name, "run", opts.ID, "session", opts.Session)
	watched = true
	go s.watch(ag.Name, opts.ID, c, rc)
	return nil
}

// startLocal starts the run on the agent's runtime, with its own actions
// added before it begins. The run outlives the request (a run's life is
// its own) and keeps its context's values (its trace); Close cancels it.
func (s *Server) startLocal(ctx context.Context, ag *Agent, opts agent.RunOptions, actions []*action.Action) (*agent.Handle, runCtx, error) {
	if len(actions) == 0 {
		h, err := ag.Agent.Start(ctx, opts)
		if err != nil {
			return nil, runCtx{}, err
		}
		return h, runCtx{}, nil
	}
	for _, a := range actions {
		if _, taken := ag.Agent.Actions().Get(a.Name()); taken {
			return nil, runCtx{}, fmt.Errorf("%w: %q is the name of an action of agent %s; rename the client's tool", agent.ErrInvalidInput, a.Name(), ag.Name)
		}
	}
	h, err := ag.Agent.Create(ctx, opts)
	if err != nil {
		return nil, runCtx{}, err
	}
	if err := h.State().AddActions(actions...); err != nil {
		_ = h.Cancel(ctx)
		return nil, runCtx{}, fmt.Errorf("%w: %v", agent.ErrInvalidInput, err)
	}
	if err := h.Begin(ctx); err != nil {
		return nil, runCtx{}, err
	}
	return h, runCtx{}, nil
}

// runCtx lets go of the context a run's first turn started with.
type runCtx struct {
	stop   func() bool        // unties it from Close; nil for none
	cancel context.CancelFunc // nil for none
}

// release stops and cancels the context.
func (rc runCtx) release() {
	if rc.stop != nil {
		rc.stop()
	}
	if rc.cancel != nil {
		rc.cancel()
	}
}

// runContext returns the context a run starts with: the values of ctx (a
// request's: its trace, its logger fields) without its cancellation, so
// that the run outlives the request, and cancelled by Close (through
// context.AfterFunc on the server's context). watch lets go of it when the
// run's turn ends; see there.
func (s *Server) runContext(ctx context.Context) (context.Context, runCtx) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(s.ctx, cancel)
	return rctx, runCtx{stop: stop, cancel: cancel}
}

// takeFollowable takes run id from the followable runs, with s.mu held.
// A run in this process whose turn has just ended is followable before
// its watcher has moved it there (its log says completed first): then it
// waits for the watcher, at most followableWait or until ctx is done, so
// that a client that read "completed" and sends a follow-up at once is
// not told the run cannot take one. It returns nil when the run is not
// followable here, or when the server closed meanwhile. An engine's runs
// are left to the caller (their Status may ask the engine).
func (s *Server) takeFollowable(ctx context.Context, id run.ID) (agent.Controller, context.CancelFunc) {
	var timeout <-chan time.Time
	for {
		if h, cancel := s.followable.take(id); h != nil || s.opts.Engine != nil || s.closed {
			return h, cancel
		}
		c := s.live[id]
		if c == nil || !c.Status().Terminal() {
			return nil, nil
		}
		if timeout == nil {
			t := time.NewTimer(followableWait)
			defer t.Stop()
			timeout = t.C
		}
		moved, expired := s.handedOver, false
		s.mu.Unlock()
		select {
		case <-moved:
		case <-timeout:
			expired = true
		case <-ctx.Done():
		}
		s.mu.Lock()
		if expired || ctx.Err() != nil {
			return s.followable.take(id)
		}
	}
}

// followableWait bounds how long a follow-up waits for the watcher of a
// run whose turn has just ended (takeFollowable): the move takes
// microseconds, unless the host's OnStatus holds the run's goroutine.
const followableWait = 5 * time.Second

// watch waits for the end of the run's current turn and drops it from the
// live runs, keeping a completed run's controller for a follow-up. It
// unties the run's start context from Close, so that nothing is left on
// the server's context per run, and cancels it, except for a completed
// run: the runtime may still be letting go of that context, and
// cancelling it could cancel a follow-up that starts meanwhile; it is
// cancelled when the run leaves the followable runs (or at Close). An
// engine's run has no start context here, and its watcher stops waiting
// at Close (see waitContext), leaving the run to the engine; for such a
// run, live and followable are caches of controllers the engine keeps (a
// miss asks it: see controller). It calls s.wg.Done.
func (s *Server) watch(agentName string, id run.ID, c agent.Controller, rc runCtx) {
	defer s.wg.Done()
	o, err := c.Wait(s.waitContext())
	if rc.stop != nil {
		rc.stop()
	}
	var gone []run.ID // runs this server no longer holds
	s.mu.Lock()
	delete(s.live, id)
	if err == nil && o.Status == run.StatusCompleted {
		gone = s.followable.add(id, c, rc.cancel)
	} else if rc.cancel != nil {
		rc.cancel()
	}
	close(s.handedOver)
	s.handedOver = make(chan struct{})
	s.mu.Unlock()
	if err == nil && o.Status.Final() {
		gone = append(gone, id)
	}
	s.disown(gone)
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("server: waiting for a run's turn to end failed; the engine still has the run", "agent", agentName, "run", id, "err", err)
		}
		return
	}
	if s.stopping.Load() && !o.Status.Terminal() {
		s.log.Info("run left as it is in the store by the stopping server", "agent", agentName, "run", id, "status", o.Status)
		return
	}
	s.log.Info("run ended", "agent", agentName, "run", id, "status", o.Status, "reason", o.Reason)
}

// respond answers a create (created) or a resume in the request's mode,
// from the event with sequence number from on.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, id run.ID, mode string, from int64, created bool) {
	switch mode {
	case ModeStream:
		s.stream(w, r, id, from)
	case ModeAsync:
		// A created run is shown as created; a resumed one once it has left
		// awaiting.
		until := func(e run.Event) bool { return e.Seq >= 1 }
		if !created {
			until = func(e run.Event) bool {
				sc, ok := e.Payload.(run.StatusChanged)
				return ok && sc.From == run.StatusAwaiting
			}
		}
		p, err := s.follow(r.Context(), id, from, until, nil)
		if err != nil {
			s.fail(w, r, id, err)
			return
		}
		writeJSON(w, http.StatusAccepted, p.run)
	default:
		p, err := s.follow(r.Context(), id, from, stops, nil)
		if err != nil {
			s.fail(w, r, id, err)
			return
		}
		if !created && p.run.Status == StatusCancelled {
			// A cancel won the resumed turn (see control.go).
			writeConflict(w, id, run.StatusCanceled, "it was cancelled before it went on to its next await or end with this answer")
			return
		}
		writeJSON(w, http.StatusOK, p.run)
	}
}

// follow folds the run's log from its start, passing the ACP events of the
// events from sequence number from on to emit, until an event from then on
// satisfies until or the run ends.
func (s *Server) follow(ctx context.Context, id run.ID, from int64, until func(run.Event) bool, emit func([]json.RawMessage) error) (*projector, error) {
	p := s.newProjector()
	events := s.store.Events(ctx, id, 1)
	if emit != nil {
		events = s.Follow(ctx, id, 1) // a stream shows live text too
	}
	for e, err := range events {
		if err != nil {
			return p, err
		}
		if d, ok := e.Payload.(run.Delta); ok {
			// Live text, shown as it is written to a stream (not to a
			// sync or async answer, which shows the run as it stands).
			if emit != nil && p.seq >= from-1 {
				if err := emit(p.delta(e, d)); err != nil {
					return p, err
				}
			}
			continue
		}
		evs := p.apply(e)
		if e.Seq < from {
			continue
		}
		if emit != nil && len(evs) > 0 {
			if err := emit(evs); err != nil {
				return p, err
			}
		}
		if until(e) {
			return p, nil
		}
	}
	return p, ctx.Err()
}

// stream writes the run's ACP events from sequence number from as
// server-sent events, and returns after the first that ends a stream. The
// stream reads the store, never the run: a slow client delays only itself,
// and a client that goes away leaves the run going.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id run.ID, from int64) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Run-ID", string(id))
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	emit := func(evs []json.RawMessage) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		for _, ev := range evs {
			if _, err := fmt.Fprintf(w, "data: %s\n\n", ev); err != nil {
				return err
			}
		}
		return rc.Flush()
	}
	_, err := s.follow(r.Context(), id, from, stops, emit)
	if err != nil && r.Context().Err() == nil {
		s.log.Error("server: stream ended early", "run", id, "err", err)
		_ = emit([]json.RawMessage{encode(acpEvent{Type: "error", Error: &acpError{Code: CodeServerError, Message: internalError}})})
	}
}

// fail answers a request whose run could not be read.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, id run.ID, err error) {
	if r.Context().Err() != nil {
		return // the client has gone
	}
	if errors.Is(err, run.ErrRunNotFound) {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Run %s not found", id))
		return
	}
	if errors.Is(err, ErrOwnerUnavailable) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, CodeServerError, err.Error())
		return
	}
	s.internal(w, "reading a run", err, "run", id)
}

// lookup validates the {id} path value (ACP run IDs are UUIDs) and returns
// the run's summary, or writes the error.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (run.Summary, bool) {
	return s.lookupAs(w, r, uuidRE, "a UUID")
}

// lookupAs is lookup for IDs that match valid, described as what.
func (s *Server) lookupAs(w http.ResponseWriter, r *http.Request, valid *regexp.Regexp, what string) (run.Summary, bool) {
	id := r.PathValue("id")
	if !valid.MatchString(id) {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, fmt.Sprintf("run id %q is not %s", id, what))
		return run.Summary{}, false
	}
	sum, err := s.store.Get(r.Context(), run.ID(id))
	if err != nil {
		s.fail(w, r, run.ID(id), err)
		return run.Summary{}, false
	}
	return sum, true
}

// fold reads the run's whole log, stopping after the first event that
// satisfies until (nil for none).
func (s *Server) fold(ctx context.Context, id run.ID, until func(run.Event) bool) (*projector, []json.RawMessage, error) {
	events, err := s.store.Read(ctx, id, 1, 0)
	if err != nil {
		return nil, nil, err
	}
	p := s.newProjector()
	out := []json.RawMessage{}
	for _, e := range events {
		out = append(out, p.apply(e)...)
		if until != nil && until(e) {
			break
		}
	}
	return p, out, nil
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.lookup(w, r)
	if !ok {
		return
	}
	p, _, err := s.fold(r.Context(), sum.ID, nil)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	writeJSON(w, http.StatusOK, p.run)
}

func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.lookup(w, r)
	if !ok {
		return
	}
	_, events, err := s.fold(r.Context(), sum.ID, nil)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Events []json.RawMessage `json:"events"`
	}{events})
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.lookup(w, r)
	if !ok {
		return
	}
	now, unlock, ok := s.lockForCancel(w, r, sum) // see control.go
	if !ok {
		return
	}
	defer unlock()
	sum = now
	if sum.Status.Final() || sum.Status == run.StatusCompleted {
		// Too late: the run has ended (a resume that raced this cancel may
		// have taken it there).
		writeConflict(w, sum.ID, sum.Status, "it has ended, and there is nothing to cancel")
		return
	}
	if sum.Status != run.StatusCancelling {
		h, err := s.controller(r.Context(), sum.ID)
		if err != nil {
			s.fail(w, r, sum.ID, err)
			return
		}
		if h == nil {
			msg := fmt.Sprintf("Run %s is %s but not running in this server process (it was started before a restart); it cannot be cancelled", sum.ID, acpStatus(sum.Status))
			if s.opts.Engine != nil {
				msg = fmt.Sprintf("Run %s is %s but neither this server process nor its engine runs it; it cannot be cancelled", sum.ID, acpStatus(sum.Status))
			}
			writeError(w, http.StatusConflict, CodeServerError, msg)
			return
		}
		if err := h.Cancel(r.Context()); err != nil {
			if errors.Is(err, agent.ErrTerminal) {
				writeConflict(w, sum.ID, h.Status(), "it ended as this cancel arrived, and there is nothing to cancel")
				return
			}
			s.fail(w, r, sum.ID, err)
			return
		}
	}
	// The run as of the cancel request: cancelling, even if it has already
	// gone on to cancelled.
	p, _, err := s.fold(r.Context(), sum.ID, func(e run.Event) bool {
		sc, ok := e.Payload.(run.StatusChanged)
		return ok && sc.To == run.StatusCancelling
	})
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	writeJSON(w, http.StatusAccepted, p.run)
}

func (s *Server) resumeRun(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if sum.Status == run.StatusCancelling || sum.Status == run.StatusCanceled {
		// A cancel won (see control.go).
		writeConflict(w, sum.ID, sum.Status, "it was cancelled, and takes no answer")
		return
	}
	var req resumeRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	mode, err := parseMode(req.Mode)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	if req.AwaitResume == nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, `await_resume is required: {"type":"message","message":{...}}`)
		return
	}
	if req.AwaitResume.Type != "" && req.AwaitResume.Type != "message" {
		writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("await_resume of type %q does not match the await request, of type message", req.AwaitResume.Type))
		return
	}
	if s.opts.Engine == nil && s.isClosed() {
		// A resumed step would be cut short; the run stays awaiting for
		// the next process.
		writeError(w, http.StatusServiceUnavailable, CodeServerError, errClosed.Error()+"; the run stays awaiting: resume it once the server is back")
		return
	}
	unlock := s.lockRun(sum.ID)
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	if now, err := s.store.Get(r.Context(), sum.ID); err != nil {
		s.fail(w, r, sum.ID, err)
		return
	} else if sum.Status == run.StatusAwaiting && now.Status != run.StatusAwaiting {
		// A cancel (or another resume) won the race.
		writeConflict(w, sum.ID, now.Status, "it moved on as this resume arrived, which was not applied")
		return
	}
	h, err := s.controller(r.Context(), sum.ID)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	if h == nil {
		if sum.Status == run.StatusAwaiting {
			msg := fmt.Sprintf("Run %s awaits, but not in this server process (it was started before a restart); it cannot be resumed", sum.ID)
			if s.opts.Engine != nil {
				msg = fmt.Sprintf("Run %s awaits, but neither this server process nor its engine runs it; it cannot be resumed", sum.ID)
			}
			writeError(w, http.StatusConflict, CodeServerError, msg)
			return
		}
		writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("Run %s has no await request (it is %s)", sum.ID, acpStatus(sum.Status)))
		return
	}
	pending, ok := h.Pending()
	if !ok {
		writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("Run %s has no await request (it is %s)", sum.ID, acpStatus(h.Status())))
		return
	}
	answer, err := answerFor(pending, req.AwaitResume.Message)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	now, err := s.store.Get(r.Context(), sum.ID)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	if err := h.Resume(r.Context(), pending.ID, answer); err != nil {
		switch {
		case errors.Is(err, agent.ErrNoAwait):
			// As for a run that awaits nothing, above (the ACP reference
			// server's answer).
			writeError(w, http.StatusForbidden, CodeServerError, err.Error())
		case errors.Is(err, run.ErrIllegalTransition):
			// The run moved on as it was answered: it was cancelled, or
			// failed to move to awaiting.
			writeConflict(w, sum.ID, h.Status(), err.Error())
		case errors.Is(err, agent.ErrAwaitMismatch):
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		default:
			s.fail(w, r, sum.ID, err)
		}
		return
	}
	unlock()
	locked = false
	s.respond(w, r, sum.ID, mode, now.LastSeq+1, false)
}
