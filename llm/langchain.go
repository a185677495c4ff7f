package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
)

// LangchainOptions configures [FromLangchain]. The zero value works.
type LangchainOptions struct {
	// Provider names the provider in errors; default "langchain".
	Provider string
	// Model, when set, is sent with every call (llms.WithModel), overriding
	// the client's default model.
	Model string
	// MaxTokens caps the output tokens when a Request leaves MaxTokens at 0;
	// 0 leaves the client's default (langchaingo's Anthropic client sends 2048).
	MaxTokens int
	// Temperature is used when a Request leaves Temperature nil; nil leaves
	// the client's default.
	Temperature *float64
}

// Langchain adapts a langchaingo llms.Model to [Model] and [Streamer]. It is
// safe for concurrent use when the wrapped model is (langchaingo's OpenAI and
// Anthropic clients are).
//
// Mapping: system, user and assistant messages become langchaingo messages of
// the same role; an assistant message's tool calls become llms.ToolCall parts;
// a tool message becomes one llms.ToolCallResponse. Tool parameters are passed
// as a decoded JSON object (map[string]any), the form every langchaingo client
// accepts. From the response, the text of every choice is joined, tool calls
// are gathered in order (a call without an ID gets a unique "call_N" one), usage
// is read from the GenerationInfo keys the clients set, and stop reasons are
// normalized to [StopReason].
//
// What each langchaingo client supports, as measured against wire-format test
// servers in this package's tests:
//
//   - OpenAI (and OpenAI-compatible endpoints): tools, parallel tool calls, tool
//     results (role "tool" with tool_call_id), streaming text, and streamed tool
//     calls, which reach the stream callback as [Chunk.ToolCall] fragments and
//     the final Response assembled. Arguments arrive exactly as sent.
//   - Anthropic: tools, parallel tool calls, tool results (tool_result blocks),
//     streaming text and thinking. Streamed tool calls are assembled in the
//     final Response only: langchaingo reports no tool-call fragments while
//     streaming. langchaingo re-encodes arguments (keys sorted); the adapter
//     undoes its HTML escaping so that <<var:name>> reads as sent.
//     Because langchaingo's Anthropic client keeps only the first part of an
//     assistant message, the adapter sends each part as its own assistant
//     message (the API joins consecutive messages of one role).
type Langchain struct {
	m        llms.Model
	opts     LangchainOptions
	provider string
	// splitParts sends one part per assistant message, and reencoded
	// undoes the HTML escaping of re-encoded arguments (both for Anthropic).
	splitParts bool
	reencoded  bool
	// record classifies errors by the HTTP exchange, seen by recordingDoer.
	record bool
	// legacyMaxTokens sends max_tokens instead of max_completion_tokens,
	// for OpenAI-compatible endpoints that refuse the latter.
	legacyMaxTokens bool
	ids             atomic.Uint64
}

// FromLangchain returns a [Model] backed by m.
func FromLangchain(m llms.Model, opts LangchainOptions) *Langchain {
	l := &Langchain{m: m, opts: opts, provider: opts.Provider}
	if l.provider == "" {
		l.provider = "langchain"
	}
	_, l.splitParts = m.(*anthropic.LLM)
	l.reencoded = l.splitParts
	return l
}

// Generate implements [Model].
func (l *Langchain) Generate(ctx context.Context, req Request) (Response, error) {
	return l.call(ctx, req, nil)
}

// Stream implements [Streamer].
func (l *Langchain) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	return l.call(ctx, req, fn)
}

func (l *Langchain) call(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	msgs, err := toLangchainMessages(req.Messages, l.splitParts)
	if err != nil {
		return Response{}, fmt.Errorf("llm: %s: %w", l.provider, err)
	}
	opts, err := l.callOptions(req)
	if err != nil {
		return Response{}, fmt.Errorf("llm: %s: %w", l.provider, err)
	}
	var cbErr error
	if fn != nil {
		opts = append(opts,
			llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
				if cbErr = l.deliver(chunk, req.Tools, fn); cbErr != nil {
					return cbErr
				}
				return nil
			}),
			llms.WithStreamingReasoningFunc(func(_ context.Context, reasoning, _ []byte) error {
				if len(reasoning) == 0 {
					return nil
				}
				if cbErr = fn(Chunk{Reasoning: string(reasoning)}); cbErr != nil {
					return cbErr
				}
				return nil
			}))
	}
	callCtx := ctx
	var ex *exchange
	if l.record {
		callCtx, ex = withExchange(ctx)
	}
	resp, err := l.m.GenerateContent(callCtx, msgs, opts...)
	if err != nil {
		if cbErr != nil {
			return Response{}, fmt.Errorf("llm: %s: stream stopped by its callback: %w", l.provider, cbErr)
		}
		if ex != nil {
			ex = ex.snapshot()
		}
		return Response{}, classify(ctx, l.provider, err, ex)
	}
	out, err := l.fromLangchainResponse(resp)
	if err == nil && fn != nil && out.StopReason == "" && out.Text == "" && out.Reasoning == "" && len(out.ToolCalls) == 0 {
		// langchaingo's clients skip stream lines they cannot parse; a stream
		// that yields nothing and never says why it stopped is broken.
		return Response{}, &ProviderError{Provider: l.provider, Kind: ErrBadResponse, Err: errors.New("the stream ended without content or a stop reason")}
	}
	return out, err
}

// deliver passes one streamed chunk to fn, as text or as tool-call fragments.
func (l *Langchain) deliver(chunk []byte, tools []Tool, fn func(Chunk) error) error {
	if len(chunk) == 0 {
		return nil
	}
	if calls, ok := parseToolCallChunk(chunk, tools); ok {
		for i := range calls {
			if err := fn(Chunk{ToolCall: &calls[i]}); err != nil {
				return err
			}
		}
		return nil
	}
	return fn(Chunk{Text: string(chunk)})
}

// wireToolCallDelta is the shape langchaingo's OpenAI client gives the stream
// callback for a tool-call delta: the JSON of the delta's tool_calls.
type wireToolCallDelta struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// parseToolCallChunk recognizes the tool-call deltas langchaingo's OpenAI
// client streams through the same callback as text. A chunk counts as one
// when it is exactly a JSON array of {id, type, function:{name, arguments}}
// objects whose names are empty or name a tool of the request.
func parseToolCallChunk(chunk []byte, tools []Tool) ([]ToolCall, bool) {
	if len(chunk) < 2 || chunk[0] != '[' || chunk[1] != '{' {
		return nil, false
	}
	var deltas []wireToolCallDelta
	dec := json.NewDecoder(bytes.NewReader(chunk))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&deltas); err != nil || dec.More() || len(deltas) == 0 {
		return nil, false
	}
	calls := make([]ToolCall, len(deltas))
	for i, d := range deltas {
		if d.Function == nil {
			return nil, false
		}
		if d.Function.Name != "" && !hasTool(tools, d.Function.Name) {
			return nil, false
		}
		calls[i] = ToolCall{ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments}
	}
	return calls, true
}

func hasTool(tools []Tool, name string) bool {
	for i := range tools {
		if tools[i].Name == name {
			return true
		}
	}
	return false
}

// callOptions maps the request's knobs and tools to langchaingo call options.
func (l *Langchain) callOptions(req Request) ([]llms.CallOption, error) {
	opts := make([]llms.CallOption, 0, 6)
	if l.opts.Model != "" {
		opts = append(opts, llms.WithModel(l.opts.Model))
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = l.opts.MaxTokens
	}
	if maxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(maxTokens))
	}
	temp := req.Temperature
	if temp == nil {
		temp = l.opts.Temperature
	}
	if temp != nil {
		opts = append(opts, llms.WithTemperature(*temp))
	}
	if len(req.Tools) > 0 {
		tools, err := toLangchainTools(req.Tools)
		if err != nil {
			return nil, err
		}
		opts = append(opts, llms.WithTools(tools))
	}
	if l.legacyMaxTokens {
		opts = append(opts, llms.WithMetadata(map[string]any{"openai:use_legacy_max_tokens": true}))
	}
	return opts, nil
}

// toLangchainTools converts tools, decoding each parameter schema.
func toLangchainTools(tools []Tool) ([]llms.Tool, error) {
	out := make([]llms.Tool, len(tools))
	for i, t := range tools {
		var params map[string]any
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		} else if err := json.Unmarshal(t.Parameters, &params); err != nil || params == nil {
			if err == nil {
				err = fmt.Errorf("got null")
			}
			return nil, fmt.Errorf("tool %q: Parameters must be a JSON Schema object: %w", t.Name, err)
		}
		out[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  params,
			Strict:      t.Strict,
		}}
	}
	return out, nil
}

// toLangchainMessages converts the conversation. With split, system messages
// are joined into one and every assistant part is its own message, for
// langchaingo's Anthropic client, which reads one part per message.
func toLangchainMessages(msgs []Message, split bool) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, 0, len(msgs)+2)
	systemAt := -1
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case RoleSystem:
			if split && systemAt >= 0 {
				prev := out[systemAt].Parts[0].(llms.TextContent)
				out[systemAt].Parts[0] = llms.TextContent{Text: prev.Text + "\n\n" + m.Text}
				continue
			}
			systemAt = len(out)
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeSystem, Parts: []llms.ContentPart{llms.TextContent{Text: m.Text}}})
		case RoleUser:
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: m.Text}}})
		case RoleAssistant:
			parts := make([]llms.ContentPart, 0, 1+len(m.ToolCalls))
			if m.Text != "" {
				parts = append(parts, llms.TextContent{Text: m.Text})
			}
			for _, c := range m.ToolCalls {
				args := c.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				parts = append(parts, llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: args}})
			}
			if len(parts) == 0 {
				continue // an empty turn says nothing, and some providers refuse it
			}
			if split {
				for _, p := range parts {
					out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{p}})
				}
				continue
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts})
		case RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: a tool message needs the ToolCallID of the call it answers", i)
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.ToolName, Content: m.Text},
			}})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q; use system, user, assistant or tool", i, m.Role)
		}
	}
	return out, nil
}

// fromLangchainResponse joins the choices of a langchaingo response.
func (l *Langchain) fromLangchainResponse(resp *llms.ContentResponse) (Response, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return Response{}, &ProviderError{Provider: l.provider, Kind: ErrBadResponse, Err: fmt.Errorf("no choices in the response")}
	}
	var out Response
	usageSet := false
	stop := ""
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		out.Text += c.Content
		switch {
		case c.ReasoningContent != "":
			out.Reasoning += c.ReasoningContent
		case c.Content == "" && len(c.ToolCalls) == 0:
			if t, ok := c.GenerationInfo["ThinkingContent"].(string); ok {
				out.Reasoning += t
			}
		}
		for _, tc := range c.ToolCalls {
			call := ToolCall{ID: tc.ID}
			if tc.FunctionCall != nil {
				call.Name, call.Arguments = tc.FunctionCall.Name, tc.FunctionCall.Arguments
			}
			if call.ID == "" {
				call.ID = "call_" + strconv.FormatUint(l.ids.Add(1), 10)
			}
			if l.reencoded {
				call.Arguments = unescapeHTML(call.Arguments)
			}
			out.ToolCalls = append(out.ToolCalls, call)
		}
		if !usageSet {
			out.Usage, usageSet = usageFrom(c.GenerationInfo)
		}
		if c.StopReason != "" {
			stop = c.StopReason
		}
	}
	out.StopReason = normalizeStopReason(stop)
	if out.StopReason == "" && len(out.ToolCalls) > 0 {
		out.StopReason = StopToolCalls
	}
	return out, nil
}

// usageFrom reads token counts from the GenerationInfo keys langchaingo's
// clients set: PromptTokens/CompletionTokens (OpenAI, Google),
// InputTokens/OutputTokens (Anthropic), input_tokens/output_tokens.
func usageFrom(info map[string]any) (Usage, bool) {
	pairs := [...][2]string{
		{"PromptTokens", "CompletionTokens"},
		{"InputTokens", "OutputTokens"},
		{"input_tokens", "output_tokens"},
	}
	for _, p := range pairs {
		in, okIn := toInt(info[p[0]])
		out, okOut := toInt(info[p[1]])
		if okIn || okOut {
			return Usage{InputTokens: in, OutputTokens: out}, true
		}
	}
	return Usage{}, false
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	}
	return 0, false
}

// unescapeHTML undoes the \u003c, \u003e and \u0026 escapes json.Marshal
// puts in arguments langchaingo re-encodes, so that references such as
// <<var:page>> read as the model wrote them.
func unescapeHTML(args string) string {
	if !strings.Contains(args, `\u00`) {
		return args
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return args
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return args
	}
	return strings.TrimSuffix(b.String(), "\n")
}
