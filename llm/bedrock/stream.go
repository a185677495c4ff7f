package bedrock

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Stream implements [llm.Streamer] with ConverseStream, whose answer is an
// AWS event stream (application/vnd.amazon.eventstream) the SDK decodes.
// Text, reasoning and tool-call fragments reach fn as they arrive; the
// returned Response is assembled from the content blocks, in their order.
// An exception inside the stream is classified by its name; a stream that
// ends before messageStop was cut off ([llm.ErrBadResponse]).
func (m *Model) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	in, err := m.input(req)
	if err != nil {
		return llm.Response{}, err
	}
	out, err := m.client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId: in.ModelId, Messages: in.Messages, System: in.System, InferenceConfig: in.InferenceConfig, ToolConfig: in.ToolConfig,
	})
	if err != nil {
		return llm.Response{}, m.failure(ctx, err)
	}
	es := out.GetStream()
	defer es.Close()
	blocks := map[int32]*streamBlock{}
	block := func(i *int32) *streamBlock {
		n := aws.ToInt32(i)
		b, ok := blocks[n]
		if !ok {
			b = &streamBlock{}
			blocks[n] = b
		}
		return b
	}
	var resp llm.Response
	var stop types.StopReason
	stopped := false
	var cbErr error
	for ev := range es.Events() {
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				b := block(e.Value.ContentBlockIndex)
				b.call = &llm.ToolCall{ID: aws.ToString(tu.Value.ToolUseId), Name: aws.ToString(tu.Value.Name)}
				if b.call.ID == "" {
					b.call.ID = m.newID()
				}
				cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{ID: b.call.ID, Name: b.call.Name}})
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			b := block(e.Value.ContentBlockIndex)
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				b.text.WriteString(d.Value)
				if d.Value != "" {
					cbErr = fn(llm.Chunk{Text: d.Value})
				}
			case *types.ContentBlockDeltaMemberToolUse:
				piece := aws.ToString(d.Value.Input)
				b.input.WriteString(piece)
				if piece != "" {
					cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: piece}})
				}
			case *types.ContentBlockDeltaMemberReasoningContent:
				b.reasoning = true
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					b.text.WriteString(r.Value)
					if r.Value != "" {
						cbErr = fn(llm.Chunk{Reasoning: r.Value})
					}
				case *types.ReasoningContentBlockDeltaMemberSignature:
					b.signature.WriteString(r.Value)
				case *types.ReasoningContentBlockDeltaMemberRedactedContent:
					b.redacted = append(b.redacted, r.Value...)
				}
			}
		case *types.ConverseStreamOutputMemberContentBlockStop:
			// A call with no arguments streams no input; its fragments
			// still add up to the call's arguments, {}.
			if b := block(e.Value.ContentBlockIndex); b.call != nil && b.input.Len() == 0 && !b.closed {
				b.closed = true
				cbErr = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: "{}"}})
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			stop, stopped = e.Value.StopReason, true
		case *types.ConverseStreamOutputMemberMetadata:
			resp.Usage = usage(e.Value.Usage)
		}
		if cbErr != nil {
			return llm.Response{}, fmt.Errorf("llm: %s: stream stopped by its callback: %w", m.provider, cbErr)
		}
	}
	if err := es.Err(); err != nil {
		return llm.Response{}, m.failure(ctx, err)
	}
	if !stopped {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, fmt.Errorf("llm: %s: %w", m.provider, err)
		}
		return llm.Response{}, wire.BadResponse(m.provider, errors.New("the stream ended before messageStop; it was cut off"))
	}
	order := make([]int32, 0, len(blocks))
	for i := range blocks {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return order[a] < order[b] })
	for _, i := range order {
		blocks[i].addTo(&resp)
	}
	m.finish(&resp, stop)
	return resp, nil
}

// streamBlock is a content block being streamed: a tool call, reasoning
// or text, and the pieces gathered so far.
type streamBlock struct {
	call      *llm.ToolCall
	reasoning bool
	text      strings.Builder
	input     strings.Builder
	signature strings.Builder
	redacted  []byte
	// closed is set when contentBlockStop reported the {} of a call that
	// streamed no input.
	closed bool
}

// addTo adds the finished block to resp.
func (b *streamBlock) addTo(resp *llm.Response) {
	switch {
	case b.call != nil:
		c := *b.call
		c.Arguments = strings.TrimSpace(b.input.String())
		if c.Arguments == "" {
			c.Arguments = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, c)
	case b.reasoning:
		if len(b.redacted) > 0 {
			resp.Thinking = append(resp.Thinking, llm.Thinking{Redacted: base64.StdEncoding.EncodeToString(b.redacted)})
			return
		}
		resp.Reasoning += b.text.String()
		resp.Thinking = append(resp.Thinking, llm.Thinking{Text: b.text.String(), Signature: b.signature.String()})
	default:
		resp.Text += b.text.String()
	}
}
