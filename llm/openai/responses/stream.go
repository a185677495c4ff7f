package responses

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

// event is one streaming event: its type and the fields its type uses.
type event struct {
	Type        string    `json:"type"`
	ItemID      string    `json:"item_id"`
	OutputIndex int       `json:"output_index"`
	Delta       string    `json:"delta"`
	Item        *item     `json:"item"`
	Response    *response `json:"response"`
	Code        any       `json:"code"`
	Message     string    `json:"message"`
	Error       *apiError `json:"error"`
}

// Stream implements [llm.Streamer]. Text, reasoning summaries and
// function-call arguments reach fn as they arrive; the returned Response is
// built from the response object of the last event (response.completed or
// response.incomplete), as Generate builds it, with the items of
// response.output_item.done when that object lists none.
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
	a := assembler{fn: fn, args: map[string]*strings.Builder{}}
	err = wire.Events(resp.Body, func(ev wire.Event) error {
		var e event
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return wire.BadResponse(m.provider, fmt.Errorf("decode a stream event: %w", err))
		}
		if e.Type == "error" {
			apiErr := e.Error
			if apiErr == nil {
				apiErr = &apiError{Code: e.Code, Message: e.Message}
			}
			return failure(m.provider, apiErr)
		}
		return a.add(e)
	})
	switch {
	case a.cbErr != nil:
		return llm.Response{}, fmt.Errorf("llm: %s: stream stopped by its callback: %w", m.provider, a.cbErr)
	case err != nil:
		var pe *llm.ProviderError
		if errors.As(err, &pe) {
			return llm.Response{}, err
		}
		return llm.Response{}, wire.ReadError(ctx, m.provider, err)
	case a.final == nil:
		return llm.Response{}, wire.BadResponse(m.provider, errors.New("the stream ended before response.completed; it was cut off"))
	}
	if err := a.closeLast(); err != nil {
		return llm.Response{}, fmt.Errorf("llm: %s: stream stopped by its callback: %w", m.provider, err)
	}
	final := *a.final
	if len(final.Output) == 0 {
		sort.SliceStable(a.done, func(i, j int) bool { return a.done[i].index < a.done[j].index })
		for _, d := range a.done {
			final.Output = append(final.Output, d.item)
		}
	}
	return m.result(final)
}

// assembler follows a stream's events: it reports their pieces to fn and
// keeps the finished items and the final response object.
type assembler struct {
	fn    func(llm.Chunk) error
	cbErr error
	// args holds the arguments streamed so far of each function call, by
	// item ID; last is the ID of the latest call.
	args map[string]*strings.Builder
	last string
	// reasoned is set once a summary part has begun, so that the next one
	// is reported after a blank line, as Response.Reasoning joins them.
	reasoned bool
	done     []doneItem
	final    *response
}

type doneItem struct {
	index int
	item  item
}

func (a *assembler) emit(c llm.Chunk) error {
	if a.cbErr = a.fn(c); a.cbErr != nil {
		return a.cbErr
	}
	return nil
}

// add folds one event in.
func (a *assembler) add(e event) error {
	switch e.Type {
	case "response.output_text.delta":
		if e.Delta != "" {
			return a.emit(llm.Chunk{Text: e.Delta})
		}
	case "response.reasoning_summary_part.added":
		if a.reasoned {
			if err := a.emit(llm.Chunk{Reasoning: "\n\n"}); err != nil {
				return err
			}
		}
		a.reasoned = true
	case "response.reasoning_summary_text.delta":
		if e.Delta != "" {
			return a.emit(llm.Chunk{Reasoning: e.Delta})
		}
	case "response.output_item.added":
		if e.Item != nil && e.Item.Type == "function_call" {
			if err := a.closeLast(); err != nil {
				return err
			}
			a.last = e.Item.ID
			a.args[e.Item.ID] = &strings.Builder{}
			if err := a.emit(llm.Chunk{ToolCall: &llm.ToolCall{ID: e.Item.CallID, Name: e.Item.Name}}); err != nil {
				return err
			}
			if e.Item.Arguments != nil {
				return a.arguments(e.Item.ID, *e.Item.Arguments)
			}
		}
	case "response.function_call_arguments.delta":
		return a.arguments(e.ItemID, e.Delta)
	case "response.output_item.done":
		if e.Item == nil {
			return nil
		}
		a.done = append(a.done, doneItem{e.OutputIndex, *e.Item})
		if b, ok := a.args[e.Item.ID]; ok && e.Item.Arguments != nil {
			// Report what the deltas left out, if anything.
			if rest, ok := strings.CutPrefix(*e.Item.Arguments, b.String()); ok && rest != "" {
				return a.arguments(e.Item.ID, rest)
			}
		}
	case "response.completed", "response.incomplete", "response.failed":
		a.final = e.Response
		if a.final == nil {
			a.final = &response{}
		}
		if a.final.Status == "" {
			a.final.Status = strings.TrimPrefix(e.Type, "response.")
		}
	}
	return nil
}

// arguments reports a piece of a call's arguments.
func (a *assembler) arguments(id, s string) error {
	b, ok := a.args[id]
	if !ok || s == "" || id != a.last {
		return nil
	}
	b.WriteString(s)
	return a.emit(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: s}})
}

// closeLast reports {} as the arguments of the latest call when it streamed
// none, so that a call's fragments always add up to its arguments.
func (a *assembler) closeLast() error {
	if b, ok := a.args[a.last]; ok && strings.TrimSpace(b.String()) == "" {
		b.WriteString("{}")
		return a.emit(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: "{}"}})
	}
	return nil
}
