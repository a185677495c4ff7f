package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/byref/byref/server"
)

// The protocol versions served, and the one a request without the
// A2A-Version header is taken to speak.
const (
	Version       = "1.0"
	LegacyVersion = "0.3"
)

// DefaultWriteTimeout is the default of Options.WriteTimeout.
const DefaultWriteTimeout = 30 * time.Second

// Options configures Mount. The zero value works.
type Options struct {
	// Skills declares the skills of agents by name, for their cards. An
	// agent not listed gets one skill per action of its runtime, or, when
	// it has none (it runs on an engine), one skill for the agent itself.
	Skills map[string][]sdk.AgentSkill
	// BaseURL is the public URL cards give for the endpoints (e.g.
	// "https://agents.example"). Empty means the card request's host, over
	// http (https when the request came over TLS).
	BaseURL string
	// Version is the agents' version in their cards; empty means "1.0.0".
	Version string
	// Token says the server wants a bearer token (server.Options.Token is
	// set): the cards then declare an HTTP bearer security scheme. The
	// token itself is never shown.
	Token bool
	// WriteTimeout bounds each write of a stream, so that a client that
	// stopped reading is dropped. Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Logger logs failures. Nil means no logging.
	Logger *slog.Logger

	// AllowPrivatePush lets push notifications go to loopback, private,
	// link-local and other internal addresses, which are refused by
	// default (a client could otherwise make the server call its
	// internal network). Set it for receivers inside your network.
	AllowPrivatePush bool
	// PushRetry is the delivery policy of push notifications; the zero
	// value is the defaults (5 attempts, from 1s apart doubling to 1m, 10s
	// per attempt).
	PushRetry PushRetry
	// PushClient sends push notifications. Nil means a client that
	// follows no redirect and refuses internal addresses at each
	// connection (unless AllowPrivatePush). A client given here is used
	// as it is: its transport must refuse internal addresses itself.
	PushClient *http.Client
}

// Server serves a server.Server's agents over A2A. Create one with Mount.
type Server struct {
	opts   Options
	srv    *server.Server
	runs   runs
	push   *pusher // nil when the store keeps no records
	agents []server.Agent
	skills map[string][]sdk.AgentSkill
	log    *slog.Logger
}

// Mount serves srv's agents over A2A beside ACP, on srv itself: the root
// card at /.well-known/agent-card.json, each agent's card at
// /a2a/{name}/.well-known/agent-card.json and its JSON-RPC endpoint at
// /a2a/{name}. The cards are public (as GET /ping); the endpoints pass the
// server's guards (token, cross-site refusal, body limit). Call it once,
// before serving.
func Mount(srv *server.Server, opts Options) (*Server, error) {
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.Version == "" {
		opts.Version = "1.0.0"
	}
	s := &Server{opts: opts, srv: srv, runs: srv, agents: srv.Agents(), skills: map[string][]sdk.AgentSkill{}, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for name := range opts.Skills {
		if !slices.ContainsFunc(s.agents, func(a server.Agent) bool { return a.Name == name }) {
			return nil, fmt.Errorf("a2a: Options.Skills names the agent %q, which the server does not offer; name one of its Options.Agents", name)
		}
	}
	for _, a := range s.agents {
		s.skills[a.Name] = s.agentSkills(a)
	}
	if s.push = newPusher(srv.Store(), srv, s.opts, s.log); s.push != nil {
		s.push.resume()
		srv.OnClose(s.push.close)
		// The deliveries of a replica that stopped are this server's now.
		srv.OnTakeOver(func(string, int) { s.push.resume() })
	}
	srv.HandlePublic("/.well-known/agent-card.json", s.cardHandler(""))
	for _, a := range s.agents {
		srv.HandlePublic("/a2a/"+a.Name+"/.well-known/agent-card.json", s.cardHandler(a.Name))
		srv.Handle("/a2a/"+a.Name, s.endpoint(a.Name))
	}
	return s, nil
}

// endpoint is an agent's JSON-RPC endpoint: v1.0 or v0.3 by the
// A2A-Version header (or query parameter); see versions.
func (s *Server) endpoint(agent string) http.Handler {
	h := &handler{agent: agent, runs: s.runs, push: s.push, log: s.log}
	v1 := a2asrv.NewJSONRPCHandler(h, a2asrv.WithTransportPanicHandler(s.panicked))
	v0 := a2av0.NewJSONRPCHandler(h, a2asrv.WithTransportPanicHandler(s.panicked))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeRPCError(w, http.StatusMethodNotAllowed, nil, sdk.ErrInvalidRequest, "send JSON-RPC requests with POST")
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeRPCError(w, http.StatusRequestEntityTooLarge, nil, sdk.ErrInvalidRequest, fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit))
				return
			}
			writeRPCError(w, http.StatusBadRequest, nil, sdk.ErrParseError, "reading the request body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		version := r.Header.Get(sdk.SvcParamVersion)
		if version == "" {
			version = r.URL.Query().Get(sdk.SvcParamVersion)
		}
		if err := h.precheck(r.Context(), body); err != nil {
			writeRPCError(w, http.StatusOK, requestID(body), err, err.Error())
			return
		}
		w = &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.opts.WriteTimeout}
		switch majorMinor(version) {
		case Version:
			v1.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), versionKey{}, Version)))
		case LegacyVersion, "":
			v0.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), versionKey{}, LegacyVersion)))
		default:
			writeRPCError(w, http.StatusOK, requestID(body), sdk.ErrVersionNotSupported, fmt.Sprintf("A2A-Version %q is not supported; this agent speaks %s and %s (send the header A2A-Version: %s)", version, Version, LegacyVersion, Version))
		}
	})
}

// majorMinor reduces "1.0.2" to "1.0"; "" stays "".
func majorMinor(v string) string {
	v = strings.TrimSpace(v)
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return v
}

// panicked answers a panic in a handler with an internal error, logged.
func (s *Server) panicked(v any) error {
	s.log.Error("a2a: panic", "panic", v)
	return fmt.Errorf("%w: the server's log has the details", sdk.ErrInternalError)
}

// requestID returns the id of a JSON-RPC request body, or nil.
func requestID(body []byte) any {
	var req struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	switch req.ID.(type) {
	case string, float64:
		return req.ID
	}
	return nil
}

// codes are the JSON-RPC error codes of the errors this file writes itself.
var codes = map[error]int{
	sdk.ErrParseError:           -32700,
	sdk.ErrInvalidRequest:       -32600,
	sdk.ErrTaskNotFound:         -32001,
	sdk.ErrUnsupportedOperation: -32004,
	sdk.ErrVersionNotSupported:  -32009,
}

// writeRPCError writes a JSON-RPC error response.
func writeRPCError(w http.ResponseWriter, status int, id any, kind error, msg string) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", id, rpcError{code(kind), msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// code returns the JSON-RPC code of err: that of the first of codes it
// wraps, else the internal error's.
func code(err error) int {
	for kind, c := range codes {
		if errors.Is(err, kind) {
			return c
		}
	}
	return -32603
}

// deadlineWriter sets a write deadline before each write, so that a stream
// client that stopped reading is dropped after the timeout instead of
// holding its goroutine.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher.
func (w *deadlineWriter) Flush() { _ = w.rc.Flush() }

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// contextRE is what a client-chosen contextId may be.
var contextRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
