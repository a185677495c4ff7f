package gemini

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Stream implements [llm.Streamer] over streamGenerateContent?alt=sse.
// Every chunk is a whole GenerateContentResponse: text and thought parts
// reach fn as they arrive, each function call as a fragment with its ID and
// name and one with its arguments. The usage is the last chunk's (Gemini's
// counts are cumulative). A stream that ends before a finish reason was cut
// off: [llm.ErrBadResponse].
func (m *Model) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	body, err := m.encode(req)
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := wire.Post(ctx, m.client, m.provider, m.streamURL, m.header, body)
	if err != nil {
		return llm.Response{}, err
	}
	defer resp.Body.Close()
	var t turn
	var cbErr error
	err = wire.Events(resp.Body, func(ev wire.Event) error {
		var r response
		if err := json.Unmarshal(ev.Data, &r); err != nil {
			return wire.BadResponse(m.provider, fmt.Errorf("decode a stream chunk: %w", err))
		}
		if r.Error != nil {
			return apiFailure(m.provider, r.Error)
		}
		return t.add(m, r, func(c llm.Chunk) error {
			cbErr = fn(c)
			return cbErr
		})
	})
	if err := wire.StreamEnd(ctx, m.provider, cbErr, err, t.finish != "" || t.feedback != "", "a finishReason"); err != nil {
		return llm.Response{}, err
	}
	return t.done(), nil
}
