package server

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/run"
)

// The run inspector: a page at /ui (HTML, CSS and JavaScript embedded
// below, no build step) and the JSON endpoints under /ui/api it calls. The
// page itself holds no data and is served without a token; every
// /ui/api endpoint needs the token, and passes Server.guard, like the ACP
// endpoints. See the package
// documentation (# Run inspector) and
// docs/decisions/2026-11-21-inspector-ui.md.

//go:embed ui
var uiFiles embed.FS

// uiPages maps the page's URL paths to its embedded files and their types.
var uiPages = map[string]struct{ file, contentType string }{
	"/ui":         {"ui/index.html", "text/html; charset=utf-8"},
	"/ui/":        {"ui/index.html", "text/html; charset=utf-8"},
	"/ui/app.js":  {"ui/app.js", "text/javascript; charset=utf-8"},
	"/ui/app.css": {"ui/app.css", "text/css; charset=utf-8"},
}

// uiAsset reports whether path is one of the page's static files, which
// are served without a token: they hold no run data.
func uiAsset(path string) bool {
	_, ok := uiPages[path]
	return ok
}

// uiCSP is the page's Content-Security-Policy: scripts and styles from
// this server only, no inline script, no framing (the page has buttons
// that approve tool calls), requests to this server only.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// MaxFollowable is how many completed runs a Server keeps able to take a
// follow-up from the inspector: the latest ones to complete in this
// process. An older completed run, or one completed before a restart,
// cannot be followed up (its variables live in the process that ran it).
// With Options.Engine, it is how many controllers of completed runs the
// server keeps at hand; it asks the engine for the others.
const MaxFollowable = 64

// followable holds the controllers of the latest completed runs, oldest
// first, each with the cancel function of the context its first turn
// started with (see Server.runContext), called when the run leaves for
// good. It is guarded by Server.mu.
type followable struct {
	byID  map[run.ID]heldRun
	order []run.ID
}

// heldRun is a completed run's controller and the cancel function of its
// start context (nil for none).
type heldRun struct {
	h      agent.Controller
	cancel context.CancelFunc
}

// add holds a completed run, and returns the runs it let go of to keep
// MaxFollowable.
func (f *followable) add(id run.ID, h agent.Controller, cancel context.CancelFunc) (gone []run.ID) {
	if f.byID == nil {
		f.byID = map[run.ID]heldRun{}
	}
	if old, ok := f.byID[id]; ok {
		f.order = slices.DeleteFunc(f.order, func(x run.ID) bool { return x == id })
		if old.cancel != nil && cancel == nil {
			cancel = old.cancel
		}
	}
	f.byID[id] = heldRun{h, cancel}
	f.order = append(f.order, id)
	for len(f.order) > MaxFollowable {
		if c := f.byID[f.order[0]].cancel; c != nil {
			c()
		}
		gone = append(gone, f.order[0])
		delete(f.byID, f.order[0])
		f.order = slices.Delete(f.order, 0, 1)
	}
	return gone
}

func (f *followable) has(id run.ID) bool {
	_, ok := f.byID[id]
	return ok
}

// get returns the run's controller, leaving it held; nil if it is not
// held.
func (f *followable) get(id run.ID) agent.Controller {
	return f.byID[id].h
}

// take removes and returns the run's controller and cancel function; a
// nil controller if it is not held.
func (f *followable) take(id run.ID) (agent.Controller, context.CancelFunc) {
	held, ok := f.byID[id]
	if !ok {
		return nil, nil
	}
	delete(f.byID, id)
	f.order = slices.DeleteFunc(f.order, func(x run.ID) bool { return x == id })
	return held.h, held.cancel
}

// release calls the cancel function of every held run (Close), and
// returns their IDs.
func (f *followable) release() []run.ID {
	for _, held := range f.byID {
		if held.cancel != nil {
			held.cancel()
		}
	}
	return slices.Clone(f.order)
}

// uiRoutes registers the page and its API with the routes' handle
// function.
func (s *Server) uiRoutes(handle func(string, map[string]http.HandlerFunc)) {
	page := map[string]http.HandlerFunc{"GET": s.uiPage}
	handle("/ui", page)
	handle("/ui/{$}", page)
	handle("/ui/app.js", page)
	handle("/ui/app.css", page)
	handle("/ui/api/runs", map[string]http.HandlerFunc{"GET": s.uiListRuns})
	handle("/ui/api/runs/{id}", map[string]http.HandlerFunc{"GET": s.uiGetRun})
	handle("/ui/api/runs/{id}/events", map[string]http.HandlerFunc{"GET": s.uiEvents})
	handle("/ui/api/runs/{id}/replay", map[string]http.HandlerFunc{"GET": s.uiReplay})
	handle("/ui/api/runs/{id}/resume", map[string]http.HandlerFunc{"POST": s.uiResume})
	handle("/ui/api/runs/{id}/cancel", map[string]http.HandlerFunc{"POST": s.uiCancel})
	handle("/ui/api/runs/{id}/follow-up", map[string]http.HandlerFunc{"POST": s.uiFollowUp})
	handle("/ui/api/sessions/{id}", map[string]http.HandlerFunc{"GET": s.uiGetSession})
}

func (s *Server) uiPage(w http.ResponseWriter, r *http.Request) {
	p := uiPages[r.URL.Path]
	b, err := uiFiles.ReadFile(p.file)
	if err != nil {
		writeError(w, http.StatusNotFound, CodeNotFound, "Not Found")
		return
	}
	h := w.Header()
	h.Set("Content-Type", p.contentType)
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// uiRunIDRE accepts the IDs of the runs a store may hold: the server's
// UUIDs, run.NewID's "run_…" and client-chosen ones.
var uiRunIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$`)

// uiLookup is lookup for the inspector, which accepts any run ID a store
// may hold.
func (s *Server) uiLookup(w http.ResponseWriter, r *http.Request) (run.Summary, bool) {
	return s.lookupAs(w, r, uiRunIDRE, "a run ID")
}

// uiRunList is the answer of GET /ui/api/runs.
type uiRunList struct {
	Runs []run.Summary `json:"runs"`
	// Next is the cursor of the next page; "" when there is none.
	Next string `json:"next"`
}

// uiQuery reads the filters of GET /ui/api/runs: status (repeated or
// comma-separated byref statuses), tag (repeated, key=value), session,
// limit and cursor.
func uiQuery(v url.Values) (run.Query, error) {
	var q run.Query
	for _, list := range v["status"] {
		for st := range strings.SplitSeq(list, ",") {
			st = strings.TrimSpace(st)
			if st == "" {
				continue
			}
			if !run.Status(st).Valid() {
				return q, fmt.Errorf("status %q is not one of %v", st, run.Statuses())
			}
			q.Statuses = append(q.Statuses, run.Status(st))
		}
	}
	if n := len(v["tag"]); n > run.MaxQueryTags {
		return q, fmt.Errorf("%d tag filters; at most %d are allowed", n, run.MaxQueryTags)
	}
	for _, t := range v["tag"] {
		k, val, ok := strings.Cut(t, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		if !ok || k == "" {
			return q, fmt.Errorf("tag %q is not key=value (e.g. %s=echo)", t, TagAgent)
		}
		if q.Tags == nil {
			q.Tags = map[string]string{}
		}
		q.Tags[k] = val
	}
	q.Session = run.SessionID(v.Get("session"))
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return q, fmt.Errorf("limit %q is not a positive number", l)
		}
		q.Limit = n
	}
	q.Cursor = v.Get("cursor")
	return q, nil
}

func (s *Server) uiListRuns(w http.ResponseWriter, r *http.Request) {
	q, err := uiQuery(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	runs, next, err := s.store.List(r.Context(), q)
	if err != nil {
		if errors.Is(err, run.ErrBadCursor) {
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error()+"; start again without a cursor")
			return
		}
		s.internal(w, "listing runs", err)
		return
	}
	if runs == nil {
		runs = []run.Summary{}
	}
	writeJSON(w, http.StatusOK, uiRunList{Runs: runs, Next: next})
}

// uiRun is the answer of GET /ui/api/runs/{id} and of the actions: the
// run's snapshot (without variable values: the previews are what the page
// shows) and what this server process can do with it.
type uiRun struct {
	Snapshot run.Snapshot `json:"snapshot"`
	Can      uiCan        `json:"can"`
}

// uiCan says which actions the run accepts here, and Why not when it
// awaits or runs but cannot be acted on.
type uiCan struct {
	Resume   bool   `json:"resume"`
	Cancel   bool   `json:"cancel"`
	FollowUp bool   `json:"follow_up"`
	Why      string `json:"why,omitempty"`
}

// uiView loads the run's snapshot and what can be done with it.
func (s *Server) uiView(ctx context.Context, id run.ID) (uiRun, error) {
	snap, err := run.LoadSnapshot(ctx, s.store, id)
	if err != nil {
		return uiRun{}, err
	}
	for i := range snap.Variables {
		snap.Variables[i].Value = nil
	}
	s.mu.Lock()
	h := s.live[id]
	held := s.followable.has(id)
	s.mu.Unlock()
	engine, asked := s.opts.Engine != nil, true
	if s.opts.Replicas != nil && !engine && h == nil && !held && !snap.Status.Final() && snap.Status != run.StatusCancelling {
		// Another replica may run it, or hold it for a follow-up.
		c, err := s.remote(ctx, id)
		if err != nil {
			s.log.Warn("server: asking which replica owns a run", "run", id, "err", err)
		}
		h, held = c, c != nil && snap.Status == run.StatusCompleted
	}
	if engine && !snap.Status.Final() && snap.Status != run.StatusCancelling {
		// The server's controller of the run, held or live (a completed
		// run's turn may have ended before its watcher was told), else the
		// engine's: another server started the run, or this one before a
		// restart.
		c, err := s.controller(ctx, id)
		if err != nil {
			s.log.Warn("server: asking the engine what a run can do", "run", id, "err", err)
		}
		asked = err == nil
		h, held = c, c != nil && snap.Status == run.StatusCompleted
	}
	var can uiCan
	if h != nil {
		_, can.Resume = h.Pending()
		can.Cancel = !snap.Status.Terminal() && snap.Status != run.StatusCancelling
	}
	can.FollowUp = held && snap.Status == run.StatusCompleted && !snap.Options.NonInteractive
	switch {
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling && snap.ParentRun != "":
		can.Why = "This is a child run: answer or cancel it through its parent run."
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling && engine && !asked:
		can.Why = fmt.Sprintf("This run is %s, but this server could not ask its engine about it; try again.", snap.Status)
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling && engine:
		can.Why = fmt.Sprintf("This run is %s but neither this server process nor its engine runs it, so it cannot be answered or cancelled here.", snap.Status)
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling:
		can.Why = fmt.Sprintf("This run is %s but not running in this server process (it was started before a restart, or by another program), so it cannot be answered or cancelled here.", snap.Status)
	case snap.Status == run.StatusCompleted && snap.Options.NonInteractive:
		can.Why = "This run is non-interactive: it takes no follow-up."
	case snap.Status == run.StatusCompleted && !held && engine && !asked:
		can.Why = "This run cannot take a follow-up here: this server could not ask its engine about it; try again."
	case snap.Status == run.StatusCompleted && !held && engine:
		can.Why = "This run cannot take a follow-up here: neither this server process nor its engine holds it."
	case snap.Status == run.StatusCompleted && !held:
		can.Why = fmt.Sprintf("This run cannot take a follow-up here: this server keeps the latest %d runs completed in this process able to, and this is not one of them.", MaxFollowable)
	}
	return uiRun{Snapshot: snap, Can: can}, nil
}

func (s *Server) uiGetRun(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	s.uiRespond(w, r, sum.ID, http.StatusOK)
}

// uiRespond writes the run's view with the status.
func (s *Server) uiRespond(w http.ResponseWriter, r *http.Request, id run.ID, status int) {
	v, err := s.uiView(r.Context(), id)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	writeJSON(w, status, v)
}

// uiEvents streams the run's byref events as server-sent events: each
// "data:" line is one run.Event as JSON, with the event's sequence number
// as its "id:"; the stream starts at ?from= (default 1), or after the
// Last-Event-ID a reconnecting EventSource sends. It ends when the run's
// status is terminal with "event: end", or, after a failure to read the
// store, with "event: error" and {"message":…}. A follow-up reopens a
// completed run: read it with a new stream. Variable values are left out,
// as in the snapshot (see withoutValue).
func (s *Server) uiEvents(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	from := int64(1)
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, fmt.Sprintf("from %q is not a sequence number (1 or more)", v))
			return
		}
		from = n
	} else if v := r.Header.Get("Last-Event-ID"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			from = n + 1
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	write := func(format string, args ...any) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for e, err := range s.Follow(r.Context(), sum.ID, from) {
		if err != nil {
			if r.Context().Err() == nil {
				s.log.Error("server: inspector stream ended early", "run", sum.ID, "err", err)
				msg, _ := marshal(struct {
					Message string `json:"message"`
				}{internalError})
				write("event: error\ndata: %s\n\n", msg)
			}
			return
		}
		b, err := marshal(withoutValue(e))
		if err != nil {
			s.log.Error("server: encoding an event", "run", sum.ID, "seq", e.Seq, "err", err)
			continue
		}
		if e.Seq == 0 { // a live delta: no ID to resume from
			if !write("data: %s\n\n", b) {
				return
			}
			continue
		}
		if !write("id: %d\ndata: %s\n\n", e.Seq, b) {
			return
		}
	}
	if r.Context().Err() == nil {
		write("event: end\ndata: {}\n\n")
	}
}

// withoutValue returns the event without a variable's value: the
// inspector shows previews (which are redacted for secrets) and never
// values, in the stream as in the snapshot. The stored event, shared with
// the store, is left as it is.
func withoutValue(e run.Event) run.Event {
	switch d := e.Payload.(type) {
	case run.VariableCreated:
		d.Value = nil
		e.Payload = d
	case run.VariableModified:
		d.Value = nil
		e.Payload = d
	}
	return e
}

// uiResumeRequest is the body of POST /ui/api/runs/{id}/resume.
type uiResumeRequest struct {
	// AwaitID names the await answered (run.AwaitRequested.ID); "" for
	// whichever is pending.
	AwaitID string     `json:"await_id"`
	Answer  run.Answer `json:"answer"`
}

func (s *Server) uiResume(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	var req uiResumeRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if s.opts.Engine == nil && s.isClosed() {
		writeError(w, http.StatusServiceUnavailable, CodeServerError, errClosed.Error()+"; the run stays awaiting: resume it once the server is back")
		return
	}
	unlock := s.lockRun(sum.ID) // see control.go
	defer unlock()
	if now, err := s.store.Get(r.Context(), sum.ID); err != nil {
		s.fail(w, r, sum.ID, err)
		return
	} else if sum.Status == run.StatusAwaiting && now.Status != run.StatusAwaiting {
		writeConflict(w, sum.ID, now.Status, "it moved on as this answer arrived, which was not applied")
		return
	}
	h, ok := s.uiController(w, r, sum,
		"Run %s is %s and awaits nothing this server process can answer",
		"Run %s is %s and awaits nothing this server process or its engine can answer")
	if !ok {
		return
	}
	if err := h.Resume(r.Context(), req.AwaitID, req.Answer); err != nil {
		switch {
		case errors.Is(err, agent.ErrNoAwait), errors.Is(err, run.ErrIllegalTransition):
			// Nothing awaits, or no more: the run moved on (it was
			// cancelled, or failed to move to awaiting) as it was answered.
			writeError(w, http.StatusConflict, CodeServerError, err.Error())
		case errors.Is(err, agent.ErrAwaitMismatch):
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		default:
			s.fail(w, r, sum.ID, err)
		}
		return
	}
	s.uiRespond(w, r, sum.ID, http.StatusAccepted)
}

// uiController returns the controller of the run, or answers 409 with
// local (or, with an engine, viaEngine), formatted with the run's ID and
// status, when none holds it.
func (s *Server) uiController(w http.ResponseWriter, r *http.Request, sum run.Summary, local, viaEngine string) (agent.Controller, bool) {
	h, err := s.controller(r.Context(), sum.ID)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return nil, false
	}
	if h == nil {
		msg := local
		if s.opts.Engine != nil {
			msg = viaEngine
		}
		writeError(w, http.StatusConflict, CodeServerError, fmt.Sprintf(msg, sum.ID, sum.Status))
		return nil, false
	}
	return h, true
}

func (s *Server) uiCancel(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	now, unlock, ok := s.lockForCancel(w, r, sum) // see control.go
	if !ok {
		return
	}
	defer unlock()
	sum = now
	switch {
	case sum.Status == run.StatusCancelling || sum.Status == run.StatusCanceled:
		// Already on its way, or there.
	case sum.Status.Terminal():
		writeError(w, http.StatusConflict, CodeServerError, fmt.Sprintf("Run %s has ended (%s); there is nothing to cancel", sum.ID, sum.Status))
		return
	default:
		h, ok := s.uiController(w, r, sum,
			"Run %s is %s but not running in this server process; it cannot be cancelled here",
			"Run %s is %s but neither this server process nor its engine runs it; it cannot be cancelled here")
		if !ok {
			return
		}
		if err := h.Cancel(r.Context()); err != nil {
			if errors.Is(err, agent.ErrTerminal) {
				writeError(w, http.StatusConflict, CodeServerError, err.Error())
				return
			}
			s.fail(w, r, sum.ID, err)
			return
		}
	}
	s.uiRespond(w, r, sum.ID, http.StatusAccepted)
}

// uiFollowUpRequest is the body of POST /ui/api/runs/{id}/follow-up.
type uiFollowUpRequest struct {
	Text string `json:"text"`
}

// lockOpen locks s.mu and reports true while the server is open; when it
// is closing, it unlocks, answers 503 and reports false.
func (s *Server) lockOpen(w http.ResponseWriter) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, CodeServerError, errClosed.Error())
		return false
	}
	return true
}

func (s *Server) uiFollowUp(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	var req uiFollowUpRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.Text) == "" {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, `text is required: {"text":"your message"}`)
		return
	}
	if !s.lockOpen(w) {
		return
	}
	h, cancel := s.takeFollowable(r.Context(), sum.ID)
	if h == nil && s.opts.Engine != nil && sum.Status == run.StatusCompleted {
		// A completed run of the engine that is not among the followable
		// ones: its turn has ended but its watcher has not been told yet,
		// or the server does not hold it (another server started it, or
		// this one before a restart). Its controller, which the engine
		// keeps, says whether it takes the follow-up (ErrNotFollowable).
		h = s.live[sum.ID]
		if h == nil {
			s.mu.Unlock()
			c, err := s.engineControl(r.Context(), sum.ID)
			if err != nil {
				s.fail(w, r, sum.ID, err)
				return
			}
			if !s.lockOpen(w) {
				return
			}
			h = c
			if held, heldCancel := s.followable.take(sum.ID); held != nil {
				h, cancel = held, heldCancel // its turn ended here meanwhile
			}
		}
	}
	if h == nil && s.opts.Replicas != nil && s.opts.Engine == nil && sum.Status == run.StatusCompleted {
		// Another replica may hold it: it is asked.
		s.mu.Unlock()
		c, err := s.remote(r.Context(), sum.ID)
		if err != nil {
			s.fail(w, r, sum.ID, err)
			return
		}
		if c != nil {
			s.uiFollowedUp(w, r, sum.ID, c.FollowUp(r.Context(), req.Text))
			return
		}
		if !s.lockOpen(w) {
			return
		}
		h, cancel = s.followable.take(sum.ID) // its turn ended here meanwhile
	}
	if h == nil {
		s.mu.Unlock()
		msg := fmt.Sprintf("Run %s is %s; only a completed run takes a follow-up", sum.ID, sum.Status)
		switch {
		case sum.Status == run.StatusCompleted && s.opts.Engine != nil:
			msg = fmt.Sprintf("Run %s completed, but neither this server process nor its engine holds it; it cannot take a follow-up here", sum.ID)
		case sum.Status == run.StatusCompleted:
			msg = fmt.Sprintf("Run %s completed, but not among the latest %d runs completed in this server process; it cannot take a follow-up here", sum.ID, MaxFollowable)
		}
		writeError(w, http.StatusConflict, CodeServerError, msg)
		return
	}
	// The turn runs on the server's context, as runs do: it outlives the
	// request, and Close cancels it. An engine's turn runs on a context
	// nothing cancels: it outlives the request and the server (see
	// Engine).
	fctx := s.ctx
	if s.opts.Engine != nil {
		fctx = context.WithoutCancel(r.Context())
	}
	s.uiFollowedUp(w, r, sum.ID, s.followUp(sum.Tags[TagAgent], sum.ID, h, runCtx{cancel: cancel}, fctx, req.Text))
}

// uiFollowedUp answers a follow-up that err says how it went.
func (s *Server) uiFollowedUp(w http.ResponseWriter, r *http.Request, id run.ID, err error) {
	if err != nil {
		if errors.Is(err, agent.ErrNotFollowable) {
			writeError(w, http.StatusConflict, CodeServerError, err.Error())
			return
		}
		s.fail(w, r, id, err)
		return
	}
	s.log.Info("run followed up", "run", id)
	s.uiRespond(w, r, id, http.StatusAccepted)
}

// uiReplay answers the Go program that replays the run (byref replay's
// output), as text; with ?download=1, as an attachment named
// replay_<id>.go; with ?actions=example.com/app.Actions, main fills the
// actions it cannot call by import path from that function's set.
func (s *Server) uiReplay(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	events, err := s.store.Read(r.Context(), sum.ID, 1, 0)
	if err != nil {
		s.fail(w, r, sum.ID, err)
		return
	}
	src, err := replaySource(events, r.URL.Query().Get("actions"))
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("download") != "" {
		name := "replay_" + strings.NewReplacer("-", "_", ".", "_", ":", "_").Replace(string(sum.ID)) + ".go"
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	}
	_, _ = w.Write(src)
}

// replaySource is what byref replay prints for a run's events: the
// program, with a main function, that replays it. The log is all it
// needs: it records the Go identity of every action the run called.
// actions, as byref replay --actions, names the function whose action set
// main fills closures and methods from ("" for none).
func replaySource(events []run.Event, actions string) ([]byte, error) {
	rec, err := codegen.FromEvents(events)
	if err != nil {
		return nil, err
	}
	return codegen.Generate(rec, codegen.Options{Main: true, ActionSetFunc: actions})
}
