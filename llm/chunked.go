package llm

import (
	"context"
	"time"
	"unicode/utf8"
)

// Chunked returns m as a [Streamer] that delivers each of m's responses in
// pieces of at most size bytes (whole UTF-8 characters), in the order
// providers stream them: the reasoning, the text, then each tool call (its
// ID and name first, then its arguments), waiting pause before each piece
// as a provider does between its deltas (a Stream whose ctx is done
// returns its error). It calls m.Generate once per Stream. It is for
// tests, demos and examples: a scripted model that streams. A size below
// 1 means 1.
func Chunked(m Model, size int, pause time.Duration) Streamer {
	return chunked{m: m, size: max(size, 1), pause: pause}
}

type chunked struct {
	m     Model
	size  int
	pause time.Duration
}

// Generate implements [Model].
func (c chunked) Generate(ctx context.Context, req Request) (Response, error) {
	return c.m.Generate(ctx, req)
}

// Stream implements [Streamer].
func (c chunked) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	resp, err := c.m.Generate(ctx, req)
	if err != nil {
		return Response{}, err
	}
	if c.pause > 0 {
		t := time.NewTimer(c.pause)
		defer t.Stop()
		send := fn
		fn = func(ch Chunk) error {
			t.Reset(c.pause)
			select {
			case <-t.C:
			case <-ctx.Done():
				return ctx.Err()
			}
			return send(ch)
		}
	}
	for _, p := range pieces(resp.Reasoning, c.size) {
		if err := fn(Chunk{Reasoning: p}); err != nil {
			return Response{}, err
		}
	}
	for _, p := range pieces(resp.Text, c.size) {
		if err := fn(Chunk{Text: p}); err != nil {
			return Response{}, err
		}
	}
	for _, call := range resp.ToolCalls {
		if err := fn(Chunk{ToolCall: &ToolCall{ID: call.ID, Name: call.Name}}); err != nil {
			return Response{}, err
		}
		for _, p := range pieces(call.Arguments, c.size) {
			if err := fn(Chunk{ToolCall: &ToolCall{Arguments: p}}); err != nil {
				return Response{}, err
			}
		}
	}
	return resp, nil
}

// pieces cuts s into pieces of at most size bytes, not inside a UTF-8
// character (a longer character is a piece of its own).
func pieces(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
