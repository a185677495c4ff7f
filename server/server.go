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
	"strings"
	"sync"
	"time"

	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
)

// Defaults of Options.
const (
	DefaultAddr         = "127.0.0.1:8000"
	DefaultMaxBody      = 1 << 20
	DefaultWriteTimeout = 30 * time.Second
)

// ErrNeedsToken is returned by ListenAndServe and Serve for an address that
// is not loopback when Options.Token is empty.
var ErrNeedsToken = errors.New("server: refusing to serve on a non-loopback address without a bearer token; set Options.Token (byref serve --token) or bind 127.0.0.1")

// Agent is an agent the server offers: a configured runtime.
type Agent struct {
	// Name is the agent's ACP name: letters, digits, '_' and '-' (ACP
	// writes it into message roles, "agent/<name>").
	Name string
	// Description says what the agent does, for GET /agents.
	Description string
	// Runtime runs the agent's runs: its actions, starting variables and
	// model. It is shared by all of them (each run has its own state), and
	// must record into the server's store (runtime.Options.Store; see
	// Options.Store). It may be nil when Options.Engine is set: the engine
	// runs the agent.
	Runtime *runtime.Runtime
	// Run is the template of every run's options: instructions, approval
	// strategy, await timeout, limits, tags. The server sets ID, Session
	// and Task (the input's text), appends the session's earlier messages
	// to History, and adds the tag TagAgent.
	Run runtime.RunOptions
}

// Options configures a Server. Only Agents is required.
type Options struct {
	// Agents are the agents offered; names must be unique.
	Agents []Agent
	// Store keeps the runs. Every agent's Runtime must record into it. Nil
	// means the store of the agents' runtimes (runtime.Runtime.Store), or
	// a new run.NewMemoryStore with Options.Engine; use run/sqlite for
	// runs that outlive the process.
	Store run.Store
	// Token, when set, is the bearer token every request but GET /ping
	// must send (Authorization: Bearer <token>). It is required to serve
	// on an address that is not loopback.
	Token string
	// MaxBody bounds request bodies, in bytes. Zero means DefaultMaxBody.
	MaxBody int64
	// WriteTimeout bounds each write of a server-sent event stream, so
	// that a client that stopped reading is dropped. Zero means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// BaseURL is the server's public URL (e.g. "https://agents.example"),
	// used in session history URLs. Empty means the request's host over
	// http.
	BaseURL string
	// HistoryClient fetches session history URLs that are not this
	// server's resources (a session descriptor forwarded from another
	// server). Nil refuses such descriptors with an error.
	HistoryClient *http.Client
	// Logger logs run starts and ends and request failures. Nil means no
	// logging.
	Logger *slog.Logger
	// Engine runs the runs. Nil means in-process: every run on its
	// Agent.Runtime, as by default. With an engine, Store must be
	// the store the engine's runs record into (see Engine).
	Engine Engine
}

// Server is an http.Handler serving Options.Agents over ACP. Create one
// with New; it is safe for concurrent use.
type Server struct {
	opts   Options
	store  run.Store
	agents map[string]*Agent
	order  []string
	log    *slog.Logger
	mux    *http.ServeMux

	ctx    context.Context // the runs' context; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	live       map[run.ID]runtime.Controller // runs whose turn is going on
	followable followable                    // completed runs that can take a follow-up (ui.go)
	closed     bool
}

// New returns a Server for the agents, or an error naming the first bad
// agent.
func New(opts Options) (*Server, error) {
	if len(opts.Agents) == 0 {
		return nil, errors.New("server: no agents; set Options.Agents")
	}
	s := &Server{opts: opts, store: opts.Store, agents: map[string]*Agent{}, log: opts.Logger, live: map[run.ID]runtime.Controller{}}
	for _, a := range opts.Agents {
		if s.store == nil && a.Runtime != nil {
			s.store = a.Runtime.Store()
		}
	}
	if s.store == nil {
		s.store = run.NewMemoryStore()
	}
	if s.opts.MaxBody <= 0 {
		s.opts.MaxBody = DefaultMaxBody
	}
	if s.opts.WriteTimeout <= 0 {
		s.opts.WriteTimeout = DefaultWriteTimeout
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
		if a.Runtime == nil && opts.Engine == nil {
			return nil, fmt.Errorf("server: agent %q has no Runtime; set Agent.Runtime (or Options.Engine to run the agent elsewhere)", a.Name)
		}
		if a.Runtime != nil && a.Runtime.Store() != s.store {
			return nil, fmt.Errorf("server: agent %q records its runs in another store than the server's; build its runtime with runtime.Options{Store: store} and give the server the same store (Options.Store)", a.Name)
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

// Close cancels the runs in progress and waits for them to end. The
// Server refuses new runs afterwards; reading stored runs still works.
//
// With Options.Engine, Close cancels no run: the engine's runs live
// elsewhere and go on. It stops the server's own work (a run starting,
// the goroutines that wait for the end of runs' turns) and waits for it.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	var local []runtime.Controller
	if s.opts.Engine == nil {
		for _, c := range s.live {
			local = append(local, c)
		}
	}
	s.mu.Unlock()
	s.cancel()
	for _, c := range local {
		_ = c.Cancel(context.Background())
	}
	s.wg.Wait()
	s.mu.Lock()
	s.followable.release()
	s.mu.Unlock()
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token != "" && r.URL.Path != "/ping" && !uiAsset(r.URL.Path) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.opts.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="byref"`)
			writeError(w, http.StatusUnauthorized, CodeServerError, "missing or wrong bearer token; send the header Authorization: Bearer <token>")
			return
		}
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
	s.mux.ServeHTTP(w, r)
}

// routes registers every endpoint. Patterns carry no method so that a wrong
// method gets an ACP error (405) rather than the mux's plain text.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
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
				w.Header().Set("Allow", strings.Join(allow, ", "))
				writeError(w, http.StatusMethodNotAllowed, CodeServerError, "Method Not Allowed")
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
	handle("/resources/{id}", map[string]http.HandlerFunc{"GET": s.getResource})
	s.uiRoutes(handle)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, CodeNotFound, "Not Found")
	})
}

// ListenAndServe serves on addr (DefaultAddr when empty) until ctx is done,
// then shuts the listener down, giving requests in flight 5 seconds. It
// refuses an address that is not loopback unless Options.Token is set. It
// does not end the runs: call Close for that.
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

// Serve is ListenAndServe on a listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.checkAddr(ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shut)
		<-errc
		return nil
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
		writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("this server refuses requests a browser sends from other web sites (Sec-Fetch-Site: %s); call it from a program, or use the inspector page it serves at /ui", site))
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		ct := r.Header.Get("Content-Type")
		hasBody := r.ContentLength != 0 // -1: chunked, of unknown length
		if ct != "" || hasBody || strings.HasPrefix(r.URL.Path, "/ui/api/") {
			if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
				writeError(w, http.StatusUnsupportedMediaType, CodeInvalidInput, fmt.Sprintf("send the request body as Content-Type: application/json (not %q)", ct))
				return false
			}
		}
	}
	if s.opts.Token == "" && !s.localHost(r.Host) {
		writeError(w, http.StatusForbidden, CodeServerError, fmt.Sprintf("without a token, this server answers only requests for localhost, 127.0.0.1 or ::1 (against DNS rebinding), not for %q; set Options.Token (byref serve --token), or Options.BaseURL to this host", r.Host))
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
		writeError(w, http.StatusBadRequest, CodeInvalidInput, "reading the request body: "+err.Error())
		return false
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "the request body is empty; send a JSON object")
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusUnprocessableEntity, CodeInvalidInput, "the request body is not valid JSON for this endpoint: "+err.Error())
		return false
	}
	return true
}

func (s *Server) ping(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct{}{})
}

func (s *Server) manifest(a *Agent) manifest {
	m := manifest{
		Name:               a.Name,
		InputContentTypes:  []string{"text/plain", "application/json"},
		OutputContentTypes: []string{"text/plain", "application/json"},
		Metadata:           map[string]any{"framework": "byref", "programming_language": "Go"},
	}
	if a.Description != "" {
		m.Description = ptr(a.Description)
	}
	return m
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
