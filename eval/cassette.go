package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/byref/byref/llm"
)

// CassetteVersion is the version of the cassette file format this package
// writes and reads.
const CassetteVersion = 1

// ErrCassetteMiss is the condition of a request a cassette has no recording
// for. The error a replaying model returns is a [*MissError] that unwraps to
// it.
var ErrCassetteMiss = errors.New("eval: the request is not in the cassette")

// Cassette is the recorded model exchanges of a case: each request as a hash,
// each response whole. Replayed as an [llm.Model] ([Cassette.Player]), it
// answers a request only when the request hashes the same as a recorded one;
// any other request is a miss, reported with a diff against the nearest
// recording, never answered.
//
// Requests are kept as hashes so that a cassette stays small and holds no
// copy of what the model was shown; to make a miss readable, every message
// is also stored once, the first time a request carries it, with its own
// hash ([Exchange.New]).
type Cassette struct {
	// Version is CassetteVersion.
	Version int `json:"version"`
	// Model names the model the exchanges were recorded with, as
	// "provider:model", when known.
	Model string `json:"model,omitempty"`
	// Exchanges are the recorded calls, in the order they were made.
	Exchanges []Exchange `json:"exchanges"`
}

// Exchange is one recorded model call.
type Exchange struct {
	// Request is the hash of the whole request (see [RequestHash]).
	Request string `json:"request"`
	// Tools is the hash of the request's tool list and sampling settings;
	// ToolList names each tool with the hash of its schema, so that a miss
	// can say which tool changed.
	Tools    string   `json:"tools"`
	ToolList []string `json:"tool_list,omitempty"`
	// Messages are the hashes of the request's messages, in order.
	Messages []string `json:"messages"`
	// New are the messages of the request that no earlier exchange of the
	// cassette carried, for diffs.
	New []RecordedMessage `json:"new,omitempty"`
	// Response is the model's answer.
	Response RecordedResponse `json:"response"`
}

// RecordedMessage is a message of a recorded request, kept for diffs.
type RecordedMessage struct {
	Hash string `json:"hash"`
	Text string `json:"text"`
}

// RecordedResponse is an [llm.Response] as a cassette stores it.
type RecordedResponse struct {
	Text       string         `json:"text,omitempty"`
	Reasoning  string         `json:"reasoning,omitempty"`
	Thinking   []llm.Thinking `json:"thinking,omitempty"`
	Refusal    string         `json:"refusal,omitempty"`
	ToolCalls  []RecordedCall `json:"tool_calls,omitempty"`
	StopReason llm.StopReason `json:"stop_reason,omitempty"`
	Usage      RecordedUsage  `json:"usage"`
}

// RecordedCall is a tool call of a recorded response, as a cassette stores
// it: the cassette's own keys ("name", where the run's log writes
// "action"), so that cassettes recorded before llm.ToolCall and
// run.ToolCall became one type still play.
type RecordedCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Signature string `json:"signature,omitempty"`
}

// RecordedUsage is the token usage of a recorded response.
type RecordedUsage struct {
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	Cost             float64 `json:"cost,omitempty"`
}

func recordResponse(r llm.Response) RecordedResponse {
	out := RecordedResponse{Text: r.Text, Reasoning: r.Reasoning, Thinking: r.Thinking, Refusal: r.Refusal,
		StopReason: r.StopReason, Usage: RecordedUsage(r.Usage)}
	for _, c := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, RecordedCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Signature: c.Signature})
	}
	return out
}

// LLM returns the response as the model gave it.
func (r RecordedResponse) LLM() llm.Response {
	out := llm.Response{Text: r.Text, Reasoning: r.Reasoning, Thinking: append([]llm.Thinking(nil), r.Thinking...), Refusal: r.Refusal,
		StopReason: r.StopReason, Usage: llm.Usage(r.Usage)}
	for _, c := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Signature: c.Signature})
	}
	return out
}

// shape is a request cut into the parts a cassette hashes.
type shape struct {
	whole    string
	tools    string
	toolList []string // "name hash" per tool
	messages []string // hashes
	texts    []string // the messages as text, for diffs
}

// RequestHash returns the hash a cassette records for req: SHA-256 over
// the tools (name, description, schema compacted, strictness), the
// sampling settings and every message (role, text, tool calls with their
// IDs and arguments, the call a tool result answers, thinking blocks), in
// order. CacheKey is left out: it only routes the request to a provider's
// cache, and the runtime derives it from the tools and the system prompt,
// which are hashed.
func RequestHash(req llm.Request) string { return shapeOf(req).whole }

func shapeOf(req llm.Request) shape {
	var b strings.Builder
	var list []string
	for _, t := range req.Tools {
		var tb strings.Builder
		field(&tb, "tool", t.Name)
		field(&tb, "desc", t.Description)
		field(&tb, "params", canonicalText(t.Parameters))
		field(&tb, "strict", strconv.FormatBool(t.Strict))
		b.WriteString(tb.String())
		list = append(list, t.Name+" "+hash(tb.String())[:12])
	}
	field(&b, "max_tokens", strconv.Itoa(req.MaxTokens))
	if req.Temperature != nil {
		field(&b, "temperature", strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if req.TopP != nil {
		field(&b, "top_p", strconv.FormatFloat(*req.TopP, 'g', -1, 64))
	}
	s := shape{tools: hash(b.String()), toolList: list}
	whole := sha256.New()
	whole.Write([]byte(s.tools))
	for _, m := range req.Messages {
		text := messageText(m)
		h := hash(text)
		s.messages = append(s.messages, h)
		s.texts = append(s.texts, text)
		whole.Write([]byte(h))
	}
	s.whole = hex.EncodeToString(whole.Sum(nil))
	return s
}

// messageText writes a message as the readable text a diff shows and a
// hash covers.
func messageText(m llm.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	if m.ToolCallID != "" {
		b.WriteString(" (answers " + m.ToolCallID + " " + m.ToolName + ")")
	}
	b.WriteString(": ")
	b.WriteString(m.Text)
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, "\n  call %s %s(%s)", c.ID, c.Name, c.Arguments)
		if c.Signature != "" {
			b.WriteString(" signed " + c.Signature)
		}
	}
	for _, t := range m.Thinking {
		fmt.Fprintf(&b, "\n  thinking %q %q %q", t.Text, t.Signature, t.Redacted)
	}
	return b.String()
}

// field writes a length-prefixed key and value, so that no two requests
// write the same bytes.
func field(b *strings.Builder, key, value string) {
	b.WriteString(key)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(value)))
	b.WriteByte(':')
	b.WriteString(value)
	b.WriteByte('\n')
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// add records one exchange, storing the messages the cassette has not seen.
func (c *Cassette) add(s shape, resp llm.Response, seen map[string]bool) {
	e := Exchange{Request: s.whole, Tools: s.tools, ToolList: s.toolList, Messages: s.messages, Response: recordResponse(resp)}
	for i, h := range s.messages {
		if !seen[h] {
			seen[h] = true
			e.New = append(e.New, RecordedMessage{Hash: h, Text: s.texts[i]})
		}
	}
	c.Exchanges = append(c.Exchanges, e)
}

// Recorder is an [llm.Model] that calls another model and records every
// exchange, for a cassette; it streams when the model does. It is safe for concurrent use; exchanges are
// kept in the order their responses arrived.
type Recorder struct {
	model llm.Model
	mu    sync.Mutex
	c     Cassette
	seen  map[string]bool
}

// Record returns a Recorder around model. name is recorded as the
// cassette's Model.
func Record(model llm.Model, name string) *Recorder {
	return &Recorder{model: model, c: Cassette{Version: CassetteVersion, Model: name}, seen: map[string]bool{}}
}

// Generate implements [llm.Model]: it calls the model and records the
// exchange when the call succeeds.
func (r *Recorder) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := r.model.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	s := shapeOf(req)
	r.mu.Lock()
	r.c.add(s, resp, r.seen)
	r.mu.Unlock()
	return resp, nil
}

// Stream implements [llm.Streamer]: it streams from the model (through
// [llm.Stream], so a model that does not stream still works) and records
// the complete response.
func (r *Recorder) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	resp, err := llm.Stream(ctx, r.model, req, fn)
	if err != nil {
		return resp, err
	}
	s := shapeOf(req)
	r.mu.Lock()
	r.c.add(s, resp, r.seen)
	r.mu.Unlock()
	return resp, nil
}

// Cassette returns a copy of what was recorded so far.
func (r *Recorder) Cassette() *Cassette {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.c
	c.Exchanges = append([]Exchange(nil), r.c.Exchanges...)
	return &c
}

// ReadCassette reads a cassette file.
func ReadCassette(path string) (*Cassette, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: reading cassette: %w", err)
	}
	var c Cassette
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("eval: cassette %s is not valid JSON: %w", path, err)
	}
	if c.Version != CassetteVersion {
		return nil, fmt.Errorf("eval: cassette %s has version %d; this byref reads version %d: record it again", path, c.Version, CassetteVersion)
	}
	return &c, nil
}

// WriteFile writes the cassette as indented JSON.
func (c *Cassette) WriteFile(path string) error {
	b, err := marshalIndent(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Player returns a fresh player of the cassette: an [llm.Model] that answers
// each request with the response recorded for an identical request. When
// the same request was recorded several times, the player gives the
// recorded responses in order, then the last again. A request with no
// recording gets a [*MissError]. Each player keeps its own place, so give
// every run its own.
func (c *Cassette) Player() llm.Model {
	p := &player{c: c, byHash: map[string][]int{}, next: map[string]int{}}
	for i, e := range c.Exchanges {
		p.byHash[e.Request] = append(p.byHash[e.Request], i)
	}
	return p
}

type player struct {
	c      *Cassette
	mu     sync.Mutex
	byHash map[string][]int
	next   map[string]int
}

// Generate answers req with its recording, or a *MissError.
func (p *player) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	s := shapeOf(req)
	p.mu.Lock()
	idx, ok := p.byHash[s.whole]
	n := p.next[s.whole]
	if ok {
		if n < len(idx)-1 {
			p.next[s.whole] = n + 1
		} else {
			n = len(idx) - 1
		}
	}
	p.mu.Unlock()
	if !ok {
		return llm.Response{}, p.c.miss(s)
	}
	return p.c.Exchanges[idx[n]].Response.LLM(), nil
}

// MissError is a request a cassette has no recording for, with where it
// parts from the nearest recorded request.
type MissError struct {
	// Request is the hash of the request.
	Request string
	// Nearest is the index of the recorded exchange that shares the
	// longest run of leading messages with the request; -1 if none.
	Nearest int
	// Diff says how the request differs from that recording.
	Diff string
}

// Error implements error.
func (e *MissError) Error() string {
	return ErrCassetteMiss.Error() + ": " + e.Diff + " (record the case again if the change is intended)"
}

// Unwrap returns ErrCassetteMiss.
func (e *MissError) Unwrap() error { return ErrCassetteMiss }

func (c *Cassette) miss(s shape) *MissError {
	e := &MissError{Request: s.whole, Nearest: -1}
	best, bestLen := -1, -1
	for i, x := range c.Exchanges {
		n := 0
		for n < len(x.Messages) && n < len(s.messages) && x.Messages[n] == s.messages[n] {
			n++
		}
		if n > bestLen || (n == bestLen && x.Tools == s.tools && c.Exchanges[best].Tools != s.tools) {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		e.Diff = "the cassette has no exchanges"
		return e
	}
	e.Nearest = best
	x := c.Exchanges[best]
	var b strings.Builder
	if x.Tools != s.tools {
		b.WriteString(toolsDiff(x.ToolList, s.toolList) + "; ")
	}
	switch {
	case bestLen < len(x.Messages) && bestLen < len(s.messages):
		fmt.Fprintf(&b, "message %d differs from recorded exchange %d:\n- %s\n+ %s", bestLen+1, best+1,
			indent(c.messageText(x.Messages[bestLen])), indent(s.texts[bestLen]))
	case bestLen < len(s.messages):
		fmt.Fprintf(&b, "the conversation goes on past recorded exchange %d (%d messages) with:\n+ %s", best+1, len(x.Messages), indent(s.texts[bestLen]))
	case bestLen < len(x.Messages):
		fmt.Fprintf(&b, "the request stops at message %d where recorded exchange %d goes on with:\n- %s", bestLen, best+1, indent(c.messageText(x.Messages[bestLen])))
	default:
		fmt.Fprintf(&b, "same messages as recorded exchange %d", best+1)
	}
	e.Diff = b.String()
	return e
}

// toolsDiff says how the tools of a request differ from a recording's.
func toolsDiff(recorded, sent []string) string {
	split := func(list []string) (names []string, hashes map[string]string) {
		hashes = map[string]string{}
		for _, t := range list {
			name, h, _ := strings.Cut(t, " ")
			names = append(names, name)
			hashes[name] = h
		}
		return names, hashes
	}
	rn, rh := split(recorded)
	sn, sh := split(sent)
	var out []string
	for _, n := range sn {
		switch h, ok := rh[n]; {
		case !ok:
			out = append(out, "tool "+n+" added")
		case h != sh[n]:
			out = append(out, "tool "+n+" changed (description or schema)")
		}
	}
	for _, n := range rn {
		if _, ok := sh[n]; !ok {
			out = append(out, "tool "+n+" removed")
		}
	}
	if len(out) == 0 {
		if strings.Join(rn, ",") != strings.Join(sn, ",") {
			return "the tools are in another order than recorded"
		}
		return "the sampling settings (max tokens, temperature, top_p) differ from the recording"
	}
	return strings.Join(out, ", ")
}

// messageText returns the text of the message with hash h, as stored by the
// first exchange that carried it.
func (c *Cassette) messageText(h string) string {
	for _, x := range c.Exchanges {
		for _, m := range x.New {
			if m.Hash == h {
				return m.Text
			}
		}
	}
	return "(message " + h + ", text not stored)"
}

func indent(s string) string {
	const max = 600
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.ReplaceAll(s, "\n", "\n  ")
}
