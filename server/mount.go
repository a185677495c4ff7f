package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// This file is the seam through which other protocols are served beside
// ACP on the same server (package a2a): they start and control runs as the
// ACP endpoints do, on the same store and engine, behind the same guards.

// ErrUnknownAgent is returned by StartRun for an agent the server does not
// offer.
var ErrUnknownAgent = errors.New("server: unknown agent")

// StartRequest is a run to start with StartRun.
type StartRequest struct {
	// ID is the run's ID; empty means a new run.NewID.
	ID run.ID
	// Session is the conversation the run continues: the run gets the
	// session's earlier messages as history, as an ACP run does. Empty
	// means a new session, whose ID is the run's.
	Session run.SessionID
	// Task is the input's text.
	Task string
	// Message is the protocol message that carried Task, as its client
	// sent it (an A2A message, as JSON), recorded with the run's first user
	// message (run.UserMessage.Message); nil for none.
	Message json.RawMessage
	// Tags are added to the agent's template tags (TagAgent is set too).
	Tags map[string]string
	// Actions are actions of this run alone, added to the agent's before
	// the run begins (an AG-UI front end's tools). A name the agent's
	// actions or built-ins already take is refused (agent.ErrInvalidInput).
	// They live in this process: a server with an Engine refuses them.
	Actions []*action.Action
	// Variables are the run's own starting variables (AG-UI's state),
	// after the template's and over the session's of the same name. A run
	// on Options.Engine takes none.
	Variables []variable.Spec
}

// StartRun starts a run of the named agent as POST /runs does (in this
// process, or on Options.Engine), and returns its ID once the store holds
// it. The run outlives ctx; Close cancels it. Errors wrap ErrUnknownAgent,
// agent.ErrInvalidInput (the agent refused the input), or are the
// server's (it is closing, the store failed).
func (s *Server) StartRun(ctx context.Context, agentName string, req StartRequest) (run.ID, error) {
	a, ok := s.agents[agentName]
	if !ok {
		return "", fmt.Errorf("%w %q; the server offers %v", ErrUnknownAgent, agentName, s.order)
	}
	id := req.ID
	if id == "" {
		id = run.NewID()
	}
	session := req.Session
	if session == "" {
		session = run.SessionID(id)
	}
	if len(req.Variables) > 0 && s.opts.Engine != nil {
		return "", fmt.Errorf("%w: agent %s runs on a workflow engine, which takes no variables; send %s as text", agent.ErrInvalidInput, agentName, req.Variables[0].Name)
	}
	history, err := s.history(ctx, session, nil)
	if err != nil {
		return "", err
	}
	opts := runOptions(a, id, session, req.Task, history)
	opts.Variables = append(slices.Clone(opts.Variables), req.Variables...)
	opts.Message = req.Message
	maps.Copy(opts.Tags, req.Tags)
	opts.Tags[TagAgent] = a.Name
	if err := s.start(ctx, a, opts, req.Actions); err != nil {
		return "", err
	}
	return id, nil
}

// Control returns the controller of a run to resume or cancel: the
// server's own, else its engine's. It returns nil and no error when
// neither this process nor the engine runs it (a run started before a
// restart, or one that has ended and can take no follow-up).
func (s *Server) Control(ctx context.Context, id run.ID) (agent.Controller, error) {
	return s.controller(ctx, id)
}

// Agents returns the agents the server offers, in the order of
// Options.Agents.
func (s *Server) Agents() []Agent {
	out := make([]Agent, 0, len(s.order))
	for _, name := range s.order {
		out = append(out, *s.agents[name])
	}
	return out
}

// Handle serves h at pattern (an http.ServeMux pattern) behind the
// server's guards, as every ACP endpoint: the bearer token, the refusal of
// cross-site requests, of bodies that are not JSON and of foreign hosts
// (see the package documentation), and request bodies limited to
// Options.MaxBody (reading past it fails with an *http.MaxBytesError).
// Register before serving.
func (s *Server) Handle(pattern string, h http.Handler) {
	limit := s.opts.MaxBody
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h.ServeHTTP(w, r)
	}))
}

// HandlePublic serves h at pattern to GET and HEAD requests without the
// token or the guards, as GET /ping: for documents meant to be public,
// such as A2A agent cards, which clients read before they authenticate.
// Other methods are answered 405. Register before serving.
func (s *Server) HandlePublic(pattern string, h http.Handler) {
	s.public.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, CodeServerError, "Method Not Allowed")
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// servePublic serves a request for a HandlePublic pattern and reports
// whether it did.
func (s *Server) servePublic(w http.ResponseWriter, r *http.Request) bool {
	h, pattern := s.public.Handler(r)
	if pattern == "" {
		return false
	}
	h.ServeHTTP(w, r)
	return true
}

// OnClose registers f to be called by Close, after the server's runs have
// stopped, for the work of a protocol served beside ACP (A2A push
// deliveries). Funcs are called in the order they were registered.
func (s *Server) OnClose(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onClose = append(s.onClose, f)
}

// OnTakeOver registers f to be called when this server, one of
// Options.Replicas, has taken over a replica that stopped, with its ID and
// the number of runs restored here: the claims of that replica are this
// server's from then on, so a protocol served beside ACP starts again the
// work it claims (A2A push deliveries). f is also called once when the
// server has joined the replicas (Recover), with "" and 0: before, it
// claims nothing.
func (s *Server) OnTakeOver(f func(from string, runs int)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onTakeOver = append(s.onTakeOver, f)
}

// Claim claims a piece of background work (kind, key) for this server
// among Options.Replicas, so that one replica does it, and reports
// whether this server holds it: false before the server has joined the
// replicas (Recover; see OnTakeOver). Without replicas, every claim is
// this server's.
func (s *Server) Claim(ctx context.Context, kind, key string) (bool, error) {
	if s.opts.Replicas == nil {
		return true, nil
	}
	if !s.joined.Load() {
		return false, nil
	}
	return s.opts.Replicas.Claim(ctx, kind, key)
}

// Release gives up a claim of Claim.
func (s *Server) Release(ctx context.Context, kind, key string) error {
	if s.opts.Replicas == nil {
		return nil
	}
	return s.opts.Replicas.Release(ctx, kind, key)
}
