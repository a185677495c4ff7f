package llm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Scripted is a [Model] that is not a language model: it plays back responses
// written in advance, for tests, examples and demos that must run without a
// provider, a key or a network. It is safe for concurrent use.
//
// A Scripted built by [NewScripted] returns its responses in order, one per
// call, whoever the caller is: when several runs share it, each call takes the
// next response. After the last one it fails with an error wrapping
// [ErrScriptExhausted]. A Scripted built by [NewScriptedFunc] asks a function
// of the conversation, which suits concurrent runs and scripts that react to
// tool results.
//
// Tool calls without an ID get a unique one ("call_1", "call_2", ...), so
// scripts can use [CallTool] freely. Scripted also implements [Streamer]: it
// streams the text word by word, then the tool calls, one chunk each.
type Scripted struct {
	mu        sync.Mutex
	responses []Response
	next      int
	fn        func(Request) (Response, error)
	calls     int
	ids       uint64
	requests  []Request
}

// NewScripted returns a Scripted that plays responses in order.
func NewScripted(responses ...Response) *Scripted {
	return &Scripted{responses: responses}
}

// NewScriptedFunc returns a Scripted that answers each request with fn. fn may
// be called concurrently by concurrent callers; the Request it gets is only
// valid during the call.
func NewScriptedFunc(fn func(Request) (Response, error)) *Scripted {
	return &Scripted{fn: fn}
}

// Calls returns how many times Generate or Stream has been called.
func (s *Scripted) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Requests returns copies of the requests Generate and Stream received, in
// order, so tests can check what the model was shown.
func (s *Scripted) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining returns how many scripted responses are left; 0 for a Scripted
// built by NewScriptedFunc.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.responses) - s.next
}

// Generate implements [Model]: it returns the next scripted response.
func (s *Scripted) Generate(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	var resp Response
	s.mu.Lock()
	s.calls++
	s.requests = append(s.requests, Request{
		Messages: append([]Message(nil), req.Messages...), Tools: append([]Tool(nil), req.Tools...),
		MaxTokens: req.MaxTokens, Temperature: req.Temperature,
	})
	fn := s.fn
	if fn == nil {
		if s.next >= len(s.responses) {
			n := len(s.responses)
			s.mu.Unlock()
			return Response{}, fmt.Errorf("%w: all %d responses were used by earlier calls; script more responses or use NewScriptedFunc", ErrScriptExhausted, n)
		}
		resp = s.responses[s.next]
		s.next++
	}
	s.mu.Unlock()
	if fn != nil {
		var err error
		if resp, err = fn(req); err != nil {
			return Response{}, err
		}
	}
	if len(resp.ToolCalls) > 0 {
		calls := make([]ToolCall, len(resp.ToolCalls))
		copy(calls, resp.ToolCalls)
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = s.newID()
			}
		}
		resp.ToolCalls = calls
	}
	return resp, nil
}

func (s *Scripted) newID() string {
	s.mu.Lock()
	s.ids++
	n := s.ids
	s.mu.Unlock()
	return "call_" + strconv.FormatUint(n, 10)
}

// Stream implements [Streamer]: it streams the next scripted response.
func (s *Scripted) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	resp, err := s.Generate(ctx, req)
	if err != nil {
		return Response{}, err
	}
	if resp.Reasoning != "" {
		if err := fn(Chunk{Reasoning: resp.Reasoning}); err != nil {
			return Response{}, err
		}
	}
	for rest := resp.Text; rest != ""; {
		i := strings.IndexByte(rest, ' ')
		piece := rest
		if i >= 0 {
			piece = rest[:i+1]
		}
		rest = rest[len(piece):]
		if err := fn(Chunk{Text: piece}); err != nil {
			return Response{}, err
		}
	}
	for i := range resp.ToolCalls {
		c := resp.ToolCalls[i]
		if err := fn(Chunk{ToolCall: &c}); err != nil {
			return Response{}, err
		}
	}
	return resp, nil
}

// Text returns a response that answers with text and ends the turn.
func Text(text string) Response {
	return Response{Text: text, StopReason: StopEnd}
}

// CallTool returns a response that calls one tool with arguments given as
// JSON text, e.g. CallTool("get_weather", `{"city":"Paris"}`).
func CallTool(name, arguments string) Response {
	return Response{ToolCalls: []ToolCall{{Name: name, Arguments: arguments}}, StopReason: StopToolCalls}
}

// CallTools returns a response that calls several tools in parallel.
func CallTools(calls ...ToolCall) Response {
	return Response{ToolCalls: calls, StopReason: StopToolCalls}
}
