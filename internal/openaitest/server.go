package openaitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Path is the one route the server serves.
const Path = "/v1/chat/completions"

// Handler answers one chat completions request. It may be called
// concurrently when the client sends concurrent requests; ctx is the HTTP
// request's and is done when the client gives up, so a handler can hang
// until then. An [*HTTPError] is sent as that status and body; any other
// error as a 500 with OpenAI's error body carrying its message.
type Handler func(ctx context.Context, req Request) (Response, error)

// Script returns a Handler that answers with responses in order, one per
// request. Once they are used up it answers 400 "script exhausted" (a status
// clients do not retry).
func Script(responses ...Response) Handler {
	var mu sync.Mutex
	next := 0
	return func(context.Context, Request) (Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(responses) {
			return Response{}, Error(http.StatusBadRequest, fmt.Sprintf("openaitest: script exhausted: all %d responses were used", len(responses)))
		}
		r := responses[next]
		next++
		return r, nil
	}
}

// HTTPError is an error a [Handler] returns to answer with an HTTP error.
type HTTPError struct {
	// Status is the HTTP status code.
	Status int
	// Message, Type and Code fill OpenAI's error body,
	// {"error":{"message","type","param","code"}}.
	Message string
	Type    string
	Code    string
	// Header holds extra response headers, such as Retry-After.
	Header http.Header
	// Body, when set, is sent verbatim instead of the error object: for
	// malformed or truncated bodies.
	Body string
}

// Error implements error.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("openaitest: HTTP %d: %s", e.Status, e.Message)
}

// Error returns an HTTPError with OpenAI's usual type for the status:
// invalid_request_error for 4xx, server_error for 5xx, and for 429 the
// type "requests" with code rate_limit_exceeded.
func Error(status int, message string) *HTTPError {
	e := &HTTPError{Status: status, Message: message, Type: "invalid_request_error"}
	switch {
	case status == http.StatusTooManyRequests:
		e.Type, e.Code = "requests", "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		e.Code = "invalid_api_key"
	case status >= 500:
		e.Type = "server_error"
	}
	return e
}

// RateLimited returns a 429 with a Retry-After header of retryAfter, rounded
// up to whole seconds (none when retryAfter is 0).
func RateLimited(retryAfter time.Duration) *HTTPError {
	e := Error(http.StatusTooManyRequests, "Rate limit reached for gpt-4o-mini; please try again later.")
	if retryAfter > 0 {
		secs := int((retryAfter + time.Second - 1) / time.Second)
		e.Header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
	}
	return e
}

// Malformed returns a 200 whose body is body verbatim, for clients that must
// cope with a broken response.
func Malformed(body string) *HTTPError {
	return &HTTPError{Status: http.StatusOK, Message: "malformed body", Body: body}
}

// Server is a running fake of OpenAI's chat completions endpoint. Its
// methods are safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	handler Handler
	created int64

	mu       sync.Mutex
	requests []Request

	ids atomic.Uint64
}

// New starts a Server on 127.0.0.1 that answers with h, and closes it when
// the test ends.
func New(t testing.TB, h Handler) *Server {
	t.Helper()
	s := Start(h)
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server on 127.0.0.1 that answers with h; the caller must
// Close it. Tests use [New].
func Start(h Handler) *Server {
	if h == nil {
		panic("openaitest: nil Handler")
	}
	s := &Server{handler: h, created: time.Now().Unix()}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the server's root URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.srv.URL }

// BaseURL returns the API's base URL, URL() + "/v1": what OpenAI clients
// (and llm.Config.BaseURL) take.
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close shuts the server down, waiting for requests in flight; New already
// arranges it at the end of the test.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far at [Path], in order. The
// slice is a copy; its elements share their contents with the server's
// record and must not be modified.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Len returns how many requests the server received at [Path].
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		writeError(w, Error(http.StatusNotFound, fmt.Sprintf("openaitest: no route %s; the base URL must end in /v1 (use Server.BaseURL)", r.URL.Path)))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, Error(http.StatusMethodNotAllowed, "openaitest: "+r.Method+" "+Path+"; use POST"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, Error(http.StatusBadRequest, "openaitest: reading the body: "+err.Error()))
		return
	}
	var req Request
	decodeErr := json.Unmarshal(body, &req)
	req.Header, req.Body = r.Header.Clone(), body
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if decodeErr != nil {
		writeError(w, Error(http.StatusBadRequest, "openaitest: the body is not a chat completions request: "+decodeErr.Error()))
		return
	}

	resp, err := s.handler(r.Context(), req)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone
		}
		var he *HTTPError
		if !errors.As(err, &he) {
			he = Error(http.StatusInternalServerError, err.Error())
		}
		writeError(w, he)
		return
	}
	if len(resp.ToolCalls) > 0 {
		// Copy, so that a Script's responses stay as written.
		calls := append([]ToolCall(nil), resp.ToolCalls...)
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = "call_" + strconv.FormatUint(s.ids.Add(1), 10)
			}
		}
		resp.ToolCalls = calls
	}
	id := "chatcmpl-" + strconv.FormatUint(s.ids.Add(1), 10)
	model := req.Model
	if model == "" {
		model = "gpt-4o-mini"
	}
	if req.Stream {
		s.stream(w, id, model, req, resp)
		return
	}
	finish := resp.finishReason()
	msg := &wireOutMessage{Role: "assistant", ReasoningContent: resp.Reasoning, ToolCalls: resp.ToolCalls}
	if resp.Text != "" {
		msg.Content = &resp.Text
	}
	out := wireCompletion{
		ID: id, Object: "chat.completion", Created: s.created, Model: model,
		Choices: []wireChoice{{Index: 0, Message: msg, FinishReason: &finish}},
		Usage:   resp.Usage.wire(),
	}
	b, err := marshal(out)
	if err != nil {
		writeError(w, Error(http.StatusInternalServerError, "openaitest: encoding the response: "+err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// stream writes resp as OpenAI's server-sent events.
func (s *Server) stream(w http.ResponseWriter, id, model string, req Request, resp Response) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(choices []wireChoice, usage *wireUsage) bool {
		if choices == nil {
			choices = []wireChoice{}
		}
		b, err := marshal(wireCompletion{ID: id, Object: "chat.completion.chunk", Created: s.created, Model: model, Choices: choices, Usage: usage})
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	delta := func(d wireDelta) bool { return send([]wireChoice{{Delta: &d}}, nil) }

	empty := ""
	if !delta(wireDelta{Role: "assistant", Content: &empty}) {
		return
	}
	for _, piece := range splitWords(resp.Reasoning) {
		if !delta(wireDelta{ReasoningContent: piece}) {
			return
		}
	}
	for _, piece := range splitWords(resp.Text) {
		if !delta(wireDelta{Content: &piece}) {
			return
		}
	}
	for i, c := range resp.ToolCalls {
		index := i
		first := wireCall{Index: &index, ID: c.ID, Type: "function"}
		first.Function.Name = c.Name
		if !delta(wireDelta{ToolCalls: []wireCall{first}}) {
			return
		}
		for _, piece := range splitN(c.Arguments, 3) {
			next := wireCall{Index: &index}
			next.Function.Arguments = piece
			if !delta(wireDelta{ToolCalls: []wireCall{next}}) {
				return
			}
		}
	}
	finish := resp.finishReason()
	if !send([]wireChoice{{Delta: &wireDelta{}, FinishReason: &finish}}, nil) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		if !send(nil, resp.Usage.wire()) {
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// splitWords cuts text after each space, keeping the spaces.
func splitWords(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// splitN cuts s into at most n non-empty pieces at rune boundaries.
func splitN(s string, n int) []string {
	runes := []rune(s)
	if len(runes) == 0 {
		return nil
	}
	size := (len(runes) + n - 1) / n
	var out []string
	for len(runes) > 0 {
		k := min(size, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

func writeError(w http.ResponseWriter, e *HTTPError) {
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	status := e.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	body := []byte(e.Body)
	if e.Body == "" {
		var we wireError
		we.Error.Message, we.Error.Type = e.Message, e.Type
		if e.Code != "" {
			we.Error.Code = &e.Code
		}
		body, _ = marshal(we)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
