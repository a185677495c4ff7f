package server

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/codegen"
	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
)

// The run inspector: a page at /ui (HTML, CSS and JavaScript embedded
// below, no build step) and the JSON endpoints under /ui/api it calls. The
// page itself holds no data and is served without a token; every
// /ui/api endpoint needs the token like the ACP endpoints. See the package
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
const MaxFollowable = 64

// followable holds the handles of the latest completed runs, oldest
// first. It is guarded by Server.mu.
type followable struct {
	byID  map[run.ID]*runtime.Handle
	order []run.ID
}

func (f *followable) add(id run.ID, h *runtime.Handle) {
	if f.byID == nil {
		f.byID = map[run.ID]*runtime.Handle{}
	}
	if _, ok := f.byID[id]; ok {
		f.order = slices.DeleteFunc(f.order, func(x run.ID) bool { return x == id })
	}
	f.byID[id] = h
	f.order = append(f.order, id)
	for len(f.order) > MaxFollowable {
		delete(f.byID, f.order[0])
		f.order = slices.Delete(f.order, 0, 1)
	}
}

func (f *followable) has(id run.ID) bool {
	_, ok := f.byID[id]
	return ok
}

// take removes and returns the run's handle; nil if it is not held.
func (f *followable) take(id run.ID) *runtime.Handle {
	h, ok := f.byID[id]
	if !ok {
		return nil
	}
	delete(f.byID, id)
	f.order = slices.DeleteFunc(f.order, func(x run.ID) bool { return x == id })
	return h
}

// uiRoutes registers the page and its API with the routes' handle
// function.
func (s *Server) uiRoutes(handle func(string, map[string]http.HandlerFunc)) {
	page := map[string]http.HandlerFunc{"GET": s.uiPage}
	handle("/ui", page)
	handle("/ui/{$}", page)
	handle("/ui/app.js", page)
	handle("/ui/app.css", page)
	handle("/ui/api/runs", map[string]http.HandlerFunc{"GET": s.uiAPI(s.uiListRuns)})
	handle("/ui/api/runs/{id}", map[string]http.HandlerFunc{"GET": s.uiAPI(s.uiGetRun)})
	handle("/ui/api/runs/{id}/events", map[string]http.HandlerFunc{"GET": s.uiAPI(s.uiEvents)})
	handle("/ui/api/runs/{id}/replay", map[string]http.HandlerFunc{"GET": s.uiAPI(s.uiReplay)})
	handle("/ui/api/runs/{id}/resume", map[string]http.HandlerFunc{"POST": s.uiAPI(s.uiResume)})
	handle("/ui/api/runs/{id}/cancel", map[string]http.HandlerFunc{"POST": s.uiAPI(s.uiCancel)})
	handle("/ui/api/runs/{id}/follow-up", map[string]http.HandlerFunc{"POST": s.uiAPI(s.uiFollowUp)})
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

// uiAPI guards an inspector endpoint against other web sites: a POST must
// be JSON (so that a cross-site form or fetch needs a CORS preflight, which
// this server never grants), a request the browser marks cross-site is
// refused, and without a token the Host must be this machine (against DNS
// rebinding) or the host of Options.BaseURL.
func (s *Server) uiAPI(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			writeError(w, http.StatusForbidden, CodeServerError, "the inspector API refuses requests from other web sites; open the page this server serves at /ui")
			return
		}
		if r.Method == http.MethodPost {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				writeError(w, http.StatusUnsupportedMediaType, CodeInvalidInput, "send the request body as Content-Type: application/json")
				return
			}
		}
		if s.opts.Token == "" && !s.localHost(r.Host) {
			writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("the inspector API without a token answers only requests for localhost, 127.0.0.1 or ::1, not %q; set Options.Token (byref serve --token), or Options.BaseURL to this host", r.Host))
			return
		}
		h(w, r)
	}
}

// localHost reports whether a request's Host names this machine, or the
// host of Options.BaseURL.
func (s *Server) localHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	if s.opts.BaseURL != "" {
		if u, err := url.Parse(s.opts.BaseURL); err == nil && strings.EqualFold(u.Hostname(), host) {
			return true
		}
	}
	return false
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
		s.log.Error("server: listing runs", "err", err)
		writeError(w, http.StatusInternalServerError, CodeServerError, err.Error())
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
	var can uiCan
	if h != nil {
		_, can.Resume = h.Pending()
		can.Cancel = !snap.Status.Terminal() && snap.Status != run.StatusCancelling
	}
	can.FollowUp = held && snap.Status == run.StatusCompleted && snap.Options.Interactive
	switch {
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling && snap.ParentRun != "":
		can.Why = "This is a child run: answer or cancel it through its parent run."
	case h == nil && !snap.Status.Terminal() && snap.Status != run.StatusCancelling:
		can.Why = fmt.Sprintf("This run is %s but not running in this server process (it was started before a restart, or by another program), so it cannot be answered or cancelled here.", snap.Status)
	case snap.Status == run.StatusCompleted && !snap.Options.Interactive:
		can.Why = "This run is non-interactive: it takes no follow-up."
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
// completed run: read it with a new stream.
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
	for e, err := range s.store.Events(r.Context(), sum.ID, from) {
		if err != nil {
			if r.Context().Err() == nil {
				s.log.Warn("server: inspector stream ended early", "run", sum.ID, "err", err)
				msg, _ := marshal(struct {
					Message string `json:"message"`
				}{err.Error()})
				write("event: error\ndata: %s\n\n", msg)
			}
			return
		}
		b, err := marshal(e)
		if err != nil {
			s.log.Error("server: encoding an event", "run", sum.ID, "seq", e.Seq, "err", err)
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
	h := s.handle(sum.ID)
	if h == nil {
		writeError(w, http.StatusConflict, CodeServerError, fmt.Sprintf("Run %s is %s and awaits nothing this server process can answer", sum.ID, sum.Status))
		return
	}
	if err := h.Resume(r.Context(), req.AwaitID, req.Answer); err != nil {
		switch {
		case errors.Is(err, runtime.ErrNoAwait):
			writeError(w, http.StatusConflict, CodeServerError, err.Error())
		case errors.Is(err, runtime.ErrAwaitMismatch):
			writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, err.Error())
		default:
			s.fail(w, r, sum.ID, err)
		}
		return
	}
	s.uiRespond(w, r, sum.ID, http.StatusAccepted)
}

func (s *Server) uiCancel(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.uiLookup(w, r)
	if !ok {
		return
	}
	h := s.handle(sum.ID)
	switch {
	case sum.Status == run.StatusCancelling || sum.Status == run.StatusCanceled:
		// Already on its way, or there.
	case sum.Status.Terminal():
		writeError(w, http.StatusConflict, CodeServerError, fmt.Sprintf("Run %s has ended (%s); there is nothing to cancel", sum.ID, sum.Status))
		return
	case h == nil:
		writeError(w, http.StatusConflict, CodeServerError, fmt.Sprintf("Run %s is %s but not running in this server process; it cannot be cancelled here", sum.ID, sum.Status))
		return
	default:
		if err := h.Cancel(r.Context()); err != nil {
			if errors.Is(err, runtime.ErrTerminal) {
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
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, CodeServerError, errClosed.Error())
		return
	}
	h := s.followable.take(sum.ID)
	if h == nil {
		s.mu.Unlock()
		msg := fmt.Sprintf("Run %s is %s; only a completed run takes a follow-up", sum.ID, sum.Status)
		if sum.Status == run.StatusCompleted {
			msg = fmt.Sprintf("Run %s completed, but not among the latest %d runs completed in this server process; it cannot take a follow-up here", sum.ID, MaxFollowable)
		}
		writeError(w, http.StatusConflict, CodeServerError, msg)
		return
	}
	s.live[sum.ID] = h
	s.wg.Add(1)
	s.mu.Unlock()
	// The turn runs on the server's context, as runs do: it outlives the
	// request, and Close cancels it. Whether FollowUp succeeds or not, the
	// turn's end (or the old one, when it refused) is waited for, which
	// puts a run that is still completed back among the followable ones.
	err := h.FollowUp(s.ctx, req.Text)
	go s.watch(sum.Tags[TagAgent], sum.ID, h)
	if err != nil {
		if errors.Is(err, runtime.ErrNotFollowable) {
			writeError(w, http.StatusConflict, CodeServerError, err.Error())
			return
		}
		s.fail(w, r, sum.ID, err)
		return
	}
	s.log.Info("run followed up", "run", sum.ID)
	s.uiRespond(w, r, sum.ID, http.StatusAccepted)
}

// uiReplay answers the Go program that replays the run (byref replay's
// output), as text; with ?download=1, as an attachment named
// replay_<id>.go.
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
	src, err := replaySource(events)
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
// program, with a main function, that replays it.
func replaySource(events []run.Event) ([]byte, error) {
	rec, err := codegen.FromEvents(events, nil)
	if err != nil {
		return nil, err
	}
	return codegen.Generate(rec, codegen.Options{Main: true})
}
