package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/lru"
	"github.com/byref/byref/run"
)

// Defaults of Options.
const (
	DefaultAddr         = "127.0.0.1:8000"
	DefaultMaxBody      = 1 << 20
	DefaultWriteTimeout = 30 * time.Second
	DefaultReadTimeout  = 30 * time.Second
	DefaultIdleTimeout  = 2 * time.Minute
)

// ErrNeedsToken is returned by ListenAndServe and Serve for an address that
// is not loopback when Options.Token is empty.
var ErrNeedsToken = errors.New("server: refusing to serve on a non-loopback address without a bearer token; set Options.Token (byref serve --token) or bind 127.0.0.1")

// Agent is an agent the server offers, by name.
type Agent struct {
	// Name is the agent's ACP name: letters, digits, '_' and '-' (ACP
	// writes it into message roles, "agent/<name>").
	Name string
	// Description says what the agent does, for GET /agents.
	Description string
	// Agent runs the agent's runs: its actions, starting variables and
	// model. It is shared by all of them (each run has its own state), and
	// must record into the server's store (agent.Options.Store; see
	// Options.Store). It may be nil when Options.Engine is set: the engine
	// runs the agent. Close closes it (agent.Agent.Close).
	Agent *agent.Agent
	// InputContentTypes are the media types of input parts the agent
	// accepts, as patterns (type/subtype, type/* or */*); a part of
	// another type is refused (422). Empty means text/plain and
	// application/json. Unnamed text parts (text/*, application/json) make
	// the task; other parts (an image/png part, a named part) reach the
	// run as starting variables of type run.Artifact, named after the
	// part, which the task names (see the package documentation).
	InputContentTypes []string
	// OutputContentTypes are the media types the agent's output may have,
	// for its manifest. Empty means text/plain and application/json, the
	// types of Outputs, and the media types of the results of Agent's
	// actions that return run.Media (image/png for an agent with the
	// browser's screenshot actions).
	OutputContentTypes []string
	// Metadata is the agent's manifest metadata. Framework and
	// ProgrammingLanguage default to byref and Go.
	Metadata AgentMetadata
	// Outputs are the Go types whose values, created or changed by a
	// step, are output (see OutputType); run.Artifact values always are,
	// and run.Media values (browser.Screenshot) are unless Outputs says
	// otherwise.
	Outputs []OutputType
	// Run is the template of every run's options: instructions, approval
	// strategy, await timeout, limits, tags. The server sets ID, Session
	// and Task (the input's text), appends the session's earlier messages
	// to History, and adds the tag TagAgent.
	Run agent.RunOptions
}

// Options configures a Server. Only Agents is required.
type Options struct {
	// Agents are the agents offered; names must be unique.
	Agents []Agent
	// Store keeps the runs. Every agent's Agent must record into it. Nil
	// means the store of the agents' runtimes (agent.Agent.Store), or
	// a new run.NewMemoryStore with Options.Engine; use run/sqlite for
	// runs that outlive the process, and run/postgres for a store that
	// processes on several machines share (an engine's workers, servers
	// in replicas: see Replicas).
	Store run.Store
	// Token, when set, is the bearer token every request but GET /ping
	// must send (Authorization: Bearer <token>). It is required to serve
	// on an address that is not loopback.
	Token string
	// MaxBody bounds request bodies, in bytes. Zero means DefaultMaxBody.
	MaxBody int64
	// WriteTimeout bounds each write of a response, and of every event of a
	// server-sent event stream, so that a client that stopped reading is
	// dropped. A sync run or a stream can last longer: the bound is per
	// write. Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// ReadTimeout bounds reading a request, headers and body, in Serve and
	// ListenAndServe: a client that sends slowly or stops sending is
	// dropped after it, with or without a token. Zero means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// IdleTimeout bounds how long Serve keeps an idle keep-alive
	// connection. Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// BaseURL is the server's public URL (e.g. "https://agents.example"),
	// used in session history URLs. Empty means the request's host over
	// http.
	BaseURL string
	// MaxHistoryBytes bounds the session history one request expands, in
	// bytes of message content: a forwarded session descriptor whose
	// messages hold more is refused (413), and a session's own history
	// keeps its latest messages within it. Zero means
	// DefaultMaxHistoryBytes (2 MiB).
	MaxHistoryBytes int64
	// MaxHistoryInFlight bounds the session history all requests expand
	// at once, in bytes: a request that would go over it is refused (413
	// with Retry-After). Zero means DefaultMaxHistoryInFlight (32 MiB).
	MaxHistoryInFlight int64
	// HistoryClient fetches session history URLs that are not this
	// server's resources (a session descriptor forwarded from another
	// server). Nil refuses such descriptors with an error.
	HistoryClient *http.Client
	// Logger logs run starts and ends and request failures. Nil means no
	// logging.
	Logger *slog.Logger
	// ShutdownGrace is how long Close lets the steps of runs in this
	// process go on to their next pause or end; a run still in a step then
	// is marked failed with InterruptedReason. Zero means
	// DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// Engine runs the runs. Nil means in-process: every run on its
	// Agent.Agent, as by default. With an engine, Store must be
	// the store the engine's runs record into (see Engine).
	Engine Engine
	// Replicas makes this server one of several serving the same agents
	// from one shared store: any of them answers any run (see Replicas).
	// Nil means this server is the only one serving the store's runs in
	// this process (see Recover). Build it on the server's store
	// (postgres.Store.NewReplica); Recover joins, Close leaves. With an
	// Engine, whose runs any server controls already, replicas only claim
	// the protocols' background work (A2A push deliveries), so that one
	// server does it.
	Replicas Replicas
}

// Server is an http.Handler serving Options.Agents over ACP. Create one
// with New; it is safe for concurrent use.
type Server struct {
	opts  Options
	store run.Store
	// stopping is set once Close has let the steps go on and stops the
	// runs (shutdown.go).
	stopping atomic.Bool
	agents   map[string]*Agent
	order    []string
	log      *slog.Logger
	mux      *http.ServeMux
	public   *http.ServeMux // HandlePublic's patterns (mount.go)
	// leaseLost is set, and abandoned closed, once the server's replica
	// lost its lease and the server abandoned its runs (replicas.go).
	leaseLost atomic.Bool
	abandoned chan struct{}
	joined    atomic.Bool // Recover joined Options.Replicas

	ctx    context.Context // the runs' context; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	live       map[run.ID]agent.Controller   // runs whose turn is going on
	followable followable                    // completed runs that can take a follow-up (ui.go)
	handedOver chan struct{}                 // closed and made anew when a watcher moves a run out of live (takeFollowable)
	convs      *lru.Cache[run.ID, convEntry] // runs' conversations for session history (sessions.go)
	closed     bool
	closeBegun bool                     // Close was called (closed is also set when the lease is lost)
	onClose    []func()                 // OnClose
	onTakeOver []func(string, int)      // OnTakeOver
	inFlight   budget                   // of session history being expanded
	control    [controlLocks]sync.Mutex // runs' control locks (lockRun)
}

// New returns a Server for the agents, or an error naming the first bad
// agent.
func New(opts Options) (*Server, error) {
	if len(opts.Agents) == 0 {
		return nil, errors.New("server: no agents; set Options.Agents")
	}
	s := &Server{opts: opts, store: opts.Store, agents: map[string]*Agent{}, log: opts.Logger, live: map[run.ID]agent.Controller{},
		convs: lru.New[run.ID, convEntry](HistoryCacheRuns), abandoned: make(chan struct{})}
	s.handedOver = make(chan struct{})
	for _, a := range opts.Agents {
		if s.store == nil && a.Agent != nil {
			s.store = a.Agent.Store()
		}
	}
	if s.store == nil {
		s.store = run.NewMemoryStore()
	}
	if s.opts.ShutdownGrace <= 0 {
		s.opts.ShutdownGrace = DefaultShutdownGrace
	}
	if s.opts.MaxHistoryBytes <= 0 {
		s.opts.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	if s.opts.MaxHistoryInFlight <= 0 {
		s.opts.MaxHistoryInFlight = DefaultMaxHistoryInFlight
	}
	s.inFlight.limit = s.opts.MaxHistoryInFlight
	if s.opts.MaxBody <= 0 {
		s.opts.MaxBody = DefaultMaxBody
	}
	if s.opts.WriteTimeout <= 0 {
		s.opts.WriteTimeout = DefaultWriteTimeout
	}
	if s.opts.ReadTimeout <= 0 {
		s.opts.ReadTimeout = DefaultReadTimeout
	}
	if s.opts.IdleTimeout <= 0 {
		s.opts.IdleTimeout = DefaultIdleTimeout
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for i := range opts.Agents {
		a := opts.Agents[i]
		if !agentNameRE.MatchString(a.Name) {
			return nil, fmt.Errorf("server: agent %d: name %q must be 1 to 64 letters, digits, '_' or '-'", i, a.Name)
		}
		if _, dup := s.agents[a.Name]; dup {
			return nil, fmt.Errorf("server: two agents are named %q; rename one", a.Name)
		}
		if a.Agent == nil && opts.Engine == nil {
			return nil, fmt.Errorf("server: agent %q has no Agent; set Agent.Agent (or Options.Engine to run the agent elsewhere)", a.Name)
		}
		if a.Agent != nil && a.Agent.Store() != s.store {
			return nil, fmt.Errorf("server: agent %q records its runs in another store than the server's; build it with agent.Options{Store: store} and give the server the same store (Options.Store)", a.Name)
		}
		s.agents[a.Name] = &a
		s.order = append(s.order, a.Name)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.routes()
	return s, nil
}

// Store returns the store the server's runs are recorded in.
func (s *Server) Store() run.Store { return s.store }

// Close stops the server without losing a run: it refuses new runs,
// resumes and follow-ups (503), lets the steps of runs in this process go
// on to their next pause or end for up to Options.ShutdownGrace, then
// closes the agents' runtimes (agent.Agent.Close), which stops the
// runs without cancelling them: a run that awaits stays awaiting in the
// store, and Recover, in the next process on the same store, restores it
// so that it can be resumed. A run whose step was still going is marked
// failed as interrupted (kind run.FailureInterrupted). Close returns once the runs' goroutines
// have ended and nothing more will be written to the store: close the
// store after it. Reading stored runs still works. Close is idempotent.
//
// With Options.Engine, Close cancels no run: the engine's runs live
// elsewhere and go on. It stops the server's own work (a run starting,
// the goroutines that wait for the end of runs' turns) and waits for it.
func (s *Server) Close() error {
	s.mu.Lock()
	already := s.closeBegun
	s.closed, s.closeBegun = true, true
	s.mu.Unlock()
	if already {
		s.wg.Wait()
		return nil
	}
	s.stopRuns()
	s.mu.Lock()
	held := s.followable.release()
	onClose := s.onClose
	s.mu.Unlock()
	s.disown(held)
	for _, f := range onClose {
		f()
	}
	if s.opts.Replicas != nil {
		// The runs left awaiting go to another replica.
		if err := s.opts.Replicas.Leave(context.Background()); err != nil {
			s.log.Error("server: leaving the replicas", "err", err)
		}
	}
	return nil
}

// isClosed reports whether Close has been called.
func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &deadlineWriter{ResponseWriter: w, timeout: s.opts.WriteTimeout}
	if s.servePublic(w, r) {
		return
	}
	if s.opts.Token != "" && r.URL.Path != "/ping" && !uiAsset(r.URL.Path) && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="byref"`)
		refuse(w, http.StatusUnauthorized, CodeServerError, "missing or wrong bearer token; send the header Authorization: Bearer <token>")
		return
	}
	if r.URL.Path != "/ping" && !uiAsset(r.URL.Path) && !s.guard(w, r) {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("server: panic", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeError(w, http.StatusInternalServerError, CodeServerError, internalError)
		}
	}()
	if p := cleanPath(r.URL.Path); p != r.URL.Path {
		// The mux would redirect (307, text/html) to the cleaned path.
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Not Found: %q is not a clean path; request %q", r.URL.Path, p))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the bearer token. The scheme is
// case-insensitive (RFC 9110, section 11.1).
func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.opts.Token)) == 1
}

// refuse writes an error for a request whose body is not read, and closes
// the connection after it: net/http would otherwise wait for the body
// before sending the response, holding a connection for a client that
// never sends it.
func refuse(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Connection", "close")
	writeError(w, status, code, msg)
}

// cleanPath is path.Clean as http.ServeMux applies it: the path the mux
// would redirect to.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// deadlineWriter sets the connection's write deadline to timeout from the
// start of a response, so that every response is bounded; a stream moves
// the deadline before each event.
type deadlineWriter struct {
	http.ResponseWriter
	timeout time.Duration
	started bool
}

func (d *deadlineWriter) start() {
	if !d.started {
		d.started = true
		_ = http.NewResponseController(d.ResponseWriter).SetWriteDeadline(time.Now().Add(d.timeout))
	}
}

// WriteHeader implements http.ResponseWriter.
func (d *deadlineWriter) WriteHeader(code int) {
	d.start()
	d.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (d *deadlineWriter) Write(b []byte) (int, error) {
	d.start()
	return d.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// routes registers every endpoint. Patterns carry no method so that a wrong
// method gets an ACP error (405) rather than the mux's plain text.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.public = http.NewServeMux()
	handle := func(pattern string, methods map[string]http.HandlerFunc) {
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			h, ok := methods[r.Method]
			if !ok && r.Method == http.MethodHead {
				h, ok = methods[http.MethodGet]
			}
			if !ok {
				allow := make([]string, 0, len(methods))
				for m := range methods {
					allow = append(allow, m)
				}
				slices.Sort(allow)
				w.Header().Set("Allow", strings.Join(allow, ", "))
				writeError(w, http.StatusMethodNotAllowed, CodeInvalidInput, fmt.Sprintf("Method Not Allowed: %s %s; this path takes %s", r.Method, r.URL.Path, strings.Join(allow, ", ")))
				return
			}
			h(w, r)
		})
	}
	handle("/ping", map[string]http.HandlerFunc{"GET": s.ping})
	handle("/agents", map[string]http.HandlerFunc{"GET": s.listAgents})
	handle("/agents/{name}", map[string]http.HandlerFunc{"GET": s.getAgent})
	handle("/runs", map[string]http.HandlerFunc{"POST": s.createRun})
	handle("/runs/{id}", map[string]http.HandlerFunc{"GET": s.getRun, "POST": s.resumeRun})
	handle("/runs/{id}/events", map[string]http.HandlerFunc{"GET": s.runEvents})
	handle("/runs/{id}/cancel", map[string]http.HandlerFunc{"POST": s.cancelRun})
	handle("/sessions/{id}", map[string]http.HandlerFunc{"GET": s.getSession})
	handle("/session/{id}", map[string]http.HandlerFunc{"GET": s.getSession})
	handle("/sessions/{id}/state", map[string]http.HandlerFunc{"GET": s.getSessionState})
	handle("/resources/{id}", map[string]http.HandlerFunc{"GET": s.getResource})
	s.uiRoutes(handle)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, CodeNotFound, "Not Found")
	})
}

// ListenAndServe serves on addr (DefaultAddr when empty) until ctx is
// done, then stops as Serve does. It refuses an address that is not
// loopback unless Options.Token is set.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultAddr
	}
	if err := s.checkAddr(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on a listener, which it closes. The connections
// have the timeouts of Options (ReadTimeout for a request's headers and
// body, WriteTimeout for each response write, IdleTimeout between
// requests), so that a client that sends slowly, or not at all, holds a
// goroutine no longer than that.
//
// When ctx is done, Serve stops accepting connections, closes the server
// (Close: runs in a step finish it or are marked interrupted, awaiting runs
// stay awaiting), lets the requests in flight end (a stream ends as its run
// pauses or ends) for up to Options.ShutdownGrace more, and returns nil.
// Requests in flight are not cancelled by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.checkAddr(ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	hs := s.httpServer(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	lost := false
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	case <-s.abandoned:
		lost = true
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*s.opts.ShutdownGrace)
	defer cancel()
	done := make(chan struct{})
	go func() {
		_ = hs.Shutdown(shut) // stops accepting at once, then waits for requests in flight
		close(done)
	}()
	_ = s.Close()
	<-done
	<-errc
	if lost {
		return ErrLeaseLost
	}
	return nil
}

// httpServer returns the http.Server Serve runs: the handler s, with the
// timeouts of Options, and request contexts that carry ctx's values but
// not its cancellation (a stopping server lets requests in flight end).
func (s *Server) httpServer(ctx context.Context) *http.Server {
	base := context.WithoutCancel(ctx)
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
}

// checkAddr refuses a non-loopback address without a token.
func (s *Server) checkAddr(addr string) error {
	if s.opts.Token != "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("server: address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w (address %s)", ErrNeedsToken, addr)
}

// writeJSON writes v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeServerError, "encoding the response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes an ACP Error object.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	b, _ := json.Marshal(acpError{Code: code, Message: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// guard refuses what another web site could make a browser send, for
// every endpoint but GET /ping and the inspector's static files (which
// hold no data):
//
//   - a request the browser marks as coming from another site
//     (Sec-Fetch-Site: cross-site or same-site; another port of localhost
//     is the same site): this server's only browser client is its own
//     page, which is same-origin;
//   - a request body that is not application/json (and, under /ui/api/,
//     any POST that is not): a web page can send text/plain or a form to
//     any address without a CORS preflight, but JSON needs one, which this
//     server never grants. A POST without a body or a Content-Type (an ACP
//     client's cancel) is accepted;
//   - without a token, a Host other than this machine's (localhost,
//     127.0.0.1, ::1) or that of Options.BaseURL: a page that rebinds its
//     own DNS name to 127.0.0.1 sends its name as the Host.
//
// It writes the error response and returns false to refuse.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "cross-site", "same-site":
		refuse(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("this server refuses requests a browser sends from other web sites (Sec-Fetch-Site: %s); call it from a program, or use the inspector page it serves at /ui", site))
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		ct := r.Header.Get("Content-Type")
		hasBody := r.ContentLength != 0 // -1: chunked, of unknown length
		if ct != "" || hasBody || strings.HasPrefix(r.URL.Path, "/ui/api/") {
			if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
				refuse(w, http.StatusUnsupportedMediaType, CodeInvalidInput, fmt.Sprintf("send the request body as Content-Type: application/json (not %q)", ct))
				return false
			}
		}
	}
	if s.opts.Token == "" && !s.localHost(r.Host) {
		refuse(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("without a token, this server answers only requests for localhost, 127.0.0.1 or ::1 (against DNS rebinding), not for %q; set Options.Token (byref serve --token), or Options.BaseURL to this host", r.Host))
		return false
	}
	return true
}

// localHost reports whether a request's Host names this machine, or the
// host of Options.BaseURL. An empty Host (HTTP/1.0) is accepted: browsers
// always send one.
func (s *Server) localHost(hostport string) bool {
	if hostport == "" {
		return true
	}
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

// internalError is the message of every 500 response: the error itself,
// which may name files or hold SQL, goes to the log only.
const internalError = "An unexpected error occurred; the server's log has the details"

// internal logs err with what failed and the attributes, and answers 500
// with internalError.
func (s *Server) internal(w http.ResponseWriter, what string, err error, attrs ...any) {
	s.log.Error("server: "+what, append(attrs, "err", err)...)
	writeError(w, http.StatusInternalServerError, CodeServerError, internalError)
}

// decodeBody decodes a JSON request body, bounded by MaxBody. (guard has
// refused a body that is not application/json.) It writes the error
// response and returns false on failure.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, CodeInvalidInput, fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit))
			return false
		}
		// The error names addresses; the client knows what it sent.
		refuse(w, http.StatusBadRequest, CodeInvalidInput, fmt.Sprintf("the request body was cut short, or did not arrive within %v (server.Options.ReadTimeout)", s.opts.ReadTimeout))
		return false
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "the request body is empty; send a JSON object")
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "the request body is not valid JSON for this endpoint: "+jsonProblem(err))
		return false
	}
	return true
}

// jsonProblem describes a JSON decoding error in the terms of the JSON the
// client sent: encoding/json's own messages name Go types and fields.
func jsonProblem(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("expected %s, got %s", jsonKind(typ.Type), typ.Value)
		}
		return fmt.Sprintf("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type), typ.Value)
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	}
	return "it does not decode"
}

// jsonKind names the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another JSON value"
}

func (s *Server) ping(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct{}{})
}

func (s *Server) manifest(a *Agent) manifest {
	m := manifest{
		Name:               a.Name,
		InputContentTypes:  inputTypes(a),
		OutputContentTypes: a.OutputContentTypes,
		Metadata:           manifestMetadata(a.Metadata),
	}
	if len(m.OutputContentTypes) == 0 {
		m.OutputContentTypes = []string{"text/plain", "application/json"}
		for _, o := range a.Outputs {
			if o.ContentType != "" && !slices.Contains(m.OutputContentTypes, o.ContentType) {
				m.OutputContentTypes = append(m.OutputContentTypes, o.ContentType)
			}
		}
		for _, ct := range mediaResults(a) {
			if !slices.Contains(m.OutputContentTypes, ct) {
				m.OutputContentTypes = append(m.OutputContentTypes, ct)
			}
		}
	}
	if a.Description != "" {
		m.Description = ptr(a.Description)
	}
	return m
}

// inputTypes are the media types of input the agent accepts.
func inputTypes(a *Agent) []string {
	if len(a.InputContentTypes) == 0 {
		return []string{"text/plain", "application/json"}
	}
	return a.InputContentTypes
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Agents []manifest `json:"agents"`
	}{Agents: []manifest{}}
	for _, name := range s.order {
		out.Agents = append(out.Agents, s.manifest(s.agents[name]))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) {
	a, ok := s.agents[r.PathValue("name")]
	if !ok {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Agent %s not found", r.PathValue("name")))
		return
	}
	writeJSON(w, http.StatusOK, s.manifest(a))
}
