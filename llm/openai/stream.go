package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Stream implements [llm.Streamer]. Text, reasoning and tool-call fragments
// reach fn as they arrive; the returned Response is assembled from them.
func (m *Model) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	body, err := m.encode(req, true)
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := wire.Post(ctx, m.client, m.provider, m.url, m.header, body)
	if err != nil {
		return llm.Response{}, err
	}
	defer resp.Body.Close()
	var a assembler
	var cbErr error
	done := false
	err = wire.Events(resp.Body, func(ev wire.Event) error {
		if string(ev.Data) == "[DONE]" {
			done = true
			return nil
		}
		var c completion
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			return wire.BadResponse(m.provider, fmt.Errorf("decode a stream chunk: %w", err))
		}
		if c.Error != nil {
			return streamError(m.provider, c.Error)
		}
		if cbErr = a.add(c, fn); cbErr != nil {
			return cbErr
		}
		return nil
	})
	if err := wire.StreamEnd(ctx, m.provider, cbErr, err, a.finish != "" || done, "a finish reason or [DONE]"); err != nil {
		return llm.Response{}, err
	}
	if cbErr = a.closeLast(fn); cbErr != nil {
		return llm.Response{}, fmt.Errorf("llm: %s: stream stopped by its callback: %w", m.provider, cbErr)
	}
	a.out.Text, a.out.Reasoning, a.out.Refusal = a.text.String(), a.reasoning.String(), a.refusal.String()
	if a.finish == "" && a.out.Text == "" && a.out.Refusal == "" && len(a.out.ToolCalls) == 0 {
		return llm.Response{}, wire.BadResponse(m.provider, errors.New("the stream ended without content or a finish reason"))
	}
	m.finish(&a.out, a.finish)
	return a.out, nil
}

// assembler builds a Response from stream chunks.
type assembler struct {
	out                      llm.Response
	text, reasoning, refusal strings.Builder
	finish                   string
	// index is the stream index of each call of out.ToolCalls, -1 if none.
	index []int
}

// closeLast reports {} as the arguments of the latest call when it streamed
// none, so that a call's fragments always add up to its arguments: a call
// ends when the next one starts or the stream ends.
func (a *assembler) closeLast(fn func(llm.Chunk) error) error {
	n := len(a.out.ToolCalls)
	if n == 0 || a.out.ToolCalls[n-1].Arguments != "" {
		return nil
	}
	return fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: "{}"}})
}

// add folds one chunk into the response and reports its pieces to fn.
func (a *assembler) add(c completion, fn func(llm.Chunk) error) error {
	if c.Usage != nil {
		a.out.Usage = c.Usage.usage()
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	if ch.FinishReason != "" {
		a.finish = ch.FinishReason
	}
	d := ch.Delta
	if r := d.Content.reasoning + d.reasoning(); r != "" {
		a.reasoning.WriteString(r)
		if err := fn(llm.Chunk{Reasoning: r}); err != nil {
			return err
		}
	}
	if d.Content.text != "" {
		a.text.WriteString(d.Content.text)
		if err := fn(llm.Chunk{Text: d.Content.text}); err != nil {
			return err
		}
	}
	a.refusal.WriteString(d.Refusal)
	for _, tc := range d.calls() {
		if err := a.call(tc, fn); err != nil {
			return err
		}
	}
	return nil
}

// call folds one tool-call delta into the calls. OpenAI sends the ID, type
// and name in a call's first delta and pieces of its arguments, by index, in
// the next ones. Others differ, and are read as follows:
//
//   - a delta whose index names an earlier call continues it, unless it
//     names a function and an ID of its own (a new call reusing an index);
//   - a delta with no name and no index of an earlier call continues the
//     latest call, whatever its ID (a GLM endpoint was recorded splitting one
//     call in two, the second with no name and a made-up ID);
//   - any other delta starts a call, with or without "type" (Mistral sends
//     none).
func (a *assembler) call(tc toolCall, fn func(llm.Chunk) error) error {
	idx := -1
	if tc.Index != nil {
		idx = *tc.Index
	}
	at := -1
	if idx >= 0 {
		for i := len(a.index) - 1; i >= 0; i-- {
			if a.index[i] == idx {
				at = i
				break
			}
		}
	}
	if at >= 0 {
		prev := a.out.ToolCalls[at]
		if tc.Function.Name != "" && prev.Name != "" && tc.ID != "" && tc.ID != prev.ID {
			at = -1
		}
	}
	if at < 0 && tc.Function.Name == "" && len(a.out.ToolCalls) > 0 {
		at = len(a.out.ToolCalls) - 1
	}
	if at < 0 {
		if err := a.closeLast(fn); err != nil {
			return err
		}
		a.out.ToolCalls = append(a.out.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Signature: tc.signature()})
		a.index = append(a.index, idx)
		first := llm.ToolCall{ID: tc.ID, Name: tc.Function.Name}
		if err := fn(llm.Chunk{ToolCall: &first}); err != nil {
			return err
		}
		if tc.Function.Arguments != "" {
			return fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: tc.Function.Arguments}})
		}
		return nil
	}
	c := &a.out.ToolCalls[at]
	if c.ID == "" {
		c.ID = tc.ID
	}
	if c.Name == "" {
		c.Name = tc.Function.Name
	}
	if s := tc.signature(); s != "" {
		c.Signature = s
	}
	c.Arguments += tc.Function.Arguments
	if tc.Function.Arguments != "" {
		return fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: tc.Function.Arguments}})
	}
	return nil
}
