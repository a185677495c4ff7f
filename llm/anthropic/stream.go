package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Stream implements [llm.Streamer]. Text, thinking and tool-call fragments
// reach fn as they arrive; the returned Response is assembled from the
// content blocks, in their order.
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
	blocks := map[int]*streamBlock{}
	var u usage
	stop := ""
	started, stopped := false, false
	var cbErr error
	err = wire.Events(resp.Body, func(ev wire.Event) error {
		var e event
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return wire.BadResponse(m.provider, fmt.Errorf("decode a stream event: %w", err))
		}
		switch e.Type {
		case "error":
			if e.Error == nil {
				e.Error = &apiError{Type: "error", Message: string(ev.Data)}
			}
			return apiFailure(m.provider, e.Error)
		case "message_start":
			started = true
			if e.Message != nil {
				u = e.Message.Usage
			}
		case "content_block_start":
			if e.ContentBlock == nil {
				return wire.BadResponse(m.provider, errors.New("content_block_start without a content_block"))
			}
			b := &streamBlock{block: *e.ContentBlock}
			b.text.WriteString(b.block.Text)
			b.thinking.WriteString(b.block.Thinking)
			b.signature.WriteString(b.block.Signature)
			if b.block.Type == "tool_use" {
				// The input arrives as input_json_delta pieces.
				cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{ID: b.block.ID, Name: b.block.Name}})
			}
			blocks[e.Index] = b
		case "content_block_delta":
			b, ok := blocks[e.Index]
			if !ok || e.Delta == nil {
				return wire.BadResponse(m.provider, fmt.Errorf("a delta for content block %d, which did not start", e.Index))
			}
			switch e.Delta.Type {
			case "text_delta":
				b.text.WriteString(e.Delta.Text)
				if e.Delta.Text != "" {
					cbErr = fn(llm.Chunk{Text: e.Delta.Text})
				}
			case "thinking_delta":
				b.thinking.WriteString(e.Delta.Thinking)
				if e.Delta.Thinking != "" {
					cbErr = fn(llm.Chunk{Reasoning: e.Delta.Thinking})
				}
			case "signature_delta":
				b.signature.WriteString(e.Delta.Signature)
			case "input_json_delta":
				b.input.WriteString(e.Delta.PartialJSON)
				if e.Delta.PartialJSON != "" {
					cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: e.Delta.PartialJSON}})
				}
			}
		case "content_block_stop":
			// A call with no arguments streams no input_json_delta; its
			// fragments still add up to the call's arguments, {}.
			if b, ok := blocks[e.Index]; ok && b.block.Type == "tool_use" && b.input.Len() == 0 && !b.closed {
				b.closed = true
				cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: "{}"}})
			}
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != "" {
				stop = e.Delta.StopReason
			}
			if e.Usage != nil {
				u.OutputTokens = e.Usage.OutputTokens
				if e.Usage.InputTokens > 0 {
					u.InputTokens = e.Usage.InputTokens
				}
				if len(e.Usage.Iterations) > 0 {
					u.Iterations = e.Usage.Iterations
				}
			}
		case "message_stop":
			stopped = true
		}
		return cbErr
	})
	if err := wire.StreamEnd(ctx, m.provider, cbErr, err, started && stopped, "message_stop"); err != nil {
		return llm.Response{}, err
	}
	out := llm.Response{Usage: u.usage()}
	order := make([]int, 0, len(blocks))
	for i := range blocks {
		order = append(order, i)
	}
	sort.Ints(order)
	for _, i := range order {
		addBlock(&out, blocks[i].done())
	}
	m.finish(&out, stop)
	return out, nil
}

// streamBlock is a content block being streamed: its start, and the pieces
// of its text, thinking, signature and input gathered so far.
type streamBlock struct {
	block
	text, thinking, signature, input strings.Builder
	// closed is set when content_block_stop reported the {} of a call
	// that streamed no input.
	closed bool
}

// done returns the block with its pieces joined.
func (b *streamBlock) done() block {
	out := b.block
	out.Text, out.Thinking, out.Signature = b.text.String(), b.thinking.String(), b.signature.String()
	if out.Type == "tool_use" {
		out.Input = json.RawMessage(b.input.String())
	}
	return out
}
