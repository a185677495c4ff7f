package llmtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/byref/byref/llm"
)

// The fixtures of this file follow Anthropic's API reference: "Messages"
// (https://docs.anthropic.com/en/api/messages) for bodies, "Streaming
// Messages" (https://docs.anthropic.com/en/docs/build-with-claude/streaming)
// for events, "Building with extended thinking" for thinking blocks and
// signatures, and "Handling stop reasons" for refusal and
// model_context_window_exceeded.

// message is a Messages API response body.
func message(content, stop string, in, out int) string {
	return fmt.Sprintf(`{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",`+
		`"content":[%s],"stop_reason":%s,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d}}`, content, stop, in, out)
}

// events frames a stream: message_start, the given events, message_delta
// with the stop reason and message_stop.
func events(stop string, body ...string) []string {
	out := []string{
		"event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2}}}`,
		"event: ping\n" + `data: {"type": "ping"}`,
	}
	out = append(out, body...)
	return append(out,
		"event: message_delta\n"+`data: {"type":"message_delta","delta":{"stop_reason":`+stop+`,"stop_sequence":null},"usage":{"output_tokens":89}}`,
		"event: message_stop\n"+`data: {"type":"message_stop"}`)
}

func blockStart(i int, block string) string {
	return fmt.Sprintf("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":%s}", i, block)
}

func blockDelta(i int, delta string) string {
	return fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":%s}", i, delta)
}

func blockStop(i int) string {
	return fmt.Sprintf("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}", i)
}

func anthropicCases() []Case {
	msgs := func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model) {
		s := NewServer(t, "/v1/messages", replies...)
		return s, open(t, s.URL())
	}
	weatherUse := `{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"city":"Paris"}}`
	cases := []Case{
		{"text", func(t *testing.T, open Open) {
			s, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"Hi! My name is Claude."}`, `"end_turn"`, 2095, 503)})
			resp := generate(t, m, ask("Hi"))
			if resp.Text != "Hi! My name is Claude." {
				t.Errorf("resp = %+v", resp)
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 2095, 503)
			h := s.Header(0)
			if h.Get("anthropic-version") == "" || h.Get("x-api-key") == "" {
				t.Errorf("headers = %v; want anthropic-version and x-api-key", h)
			}
			b := s.Body(0)
			if Path(t, b, "system", 0, "text") != "You are terse." || Path(t, b, "messages", 0, "role") != "user" || Path(t, b, "tools", 1, "input_schema", "$defs") == nil {
				t.Errorf("body = %v", b)
			}
		}},
		{"text_stream", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"end_turn"`,
				blockStart(0, `{"type":"text","text":""}`),
				blockDelta(0, `{"type":"text_delta","text":"Hel"}`),
				blockDelta(0, `{"type":"text_delta","text":"lo."}`),
				blockStop(0))})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hello." || text(chunks) != "Hello." {
				t.Errorf("text %q, chunks %q", resp.Text, text(chunks))
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 472, 89)
		}},
		{"tool_call", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"I'll check."},`+weatherUse, `"tool_use"`, 10, 5)})
			resp := generate(t, m, ask("Weather in Paris?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: `{"city":"Paris"}`}})
			wantStop(t, resp, llm.StopToolCalls)
			if resp.Text != "I'll check." {
				t.Errorf("Text = %q", resp.Text)
			}
		}},
		{"parallel_tool_calls", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Body: message(weatherUse+`,{"type":"tool_use","id":"toolu_02","name":"get_time","input":{"city":"<<var:home>>"}}`, `"tool_use"`, 10, 5)})
			resp := generate(t, m, ask("Weather in Paris, time at home?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{
				{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "toolu_02", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
			})
		}},
		{"tool_calls_stream_split_arguments", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"tool_use"`,
				blockStart(0, `{"type":"text","text":""}`),
				blockDelta(0, `{"type":"text_delta","text":"Checking."}`),
				blockStop(0),
				blockStart(1, `{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}`),
				blockDelta(1, `{"type":"input_json_delta","partial_json":""}`),
				blockDelta(1, `{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}`),
				blockDelta(1, `{"type":"input_json_delta","partial_json":"ris\"}"}`),
				blockStop(1),
				blockStart(2, `{"type":"tool_use","id":"toolu_02","name":"get_time","input":{}}`),
				blockDelta(2, `{"type":"input_json_delta","partial_json":"{\"city\": \"<<var:home>>\"}"}`),
				blockStop(2))})
			resp, chunks := stream(t, m, ask("Weather in Paris, time at home?"))
			want := []llm.ToolCall{
				{ID: "toolu_01", Name: "get_weather", Arguments: `{"city": "Paris"}`},
				{ID: "toolu_02", Name: "get_time", Arguments: `{"city": "<<var:home>>"}`},
			}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
			if resp.Text != "Checking." || text(chunks) != "Checking." {
				t.Errorf("text %q", resp.Text)
			}
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"tool_call_stream_no_arguments", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"tool_use"`,
				blockStart(0, `{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}`),
				blockStop(0))})
			resp, chunks := stream(t, m, ask("Weather?"))
			want := []llm.ToolCall{{ID: "toolu_01", Name: "get_weather", Arguments: `{}`}}
			wantCalls(t, resp.ToolCalls, want)
			// The fragments a streaming caller sees add up to {} too,
			// not "".
			wantCalls(t, fragments(chunks), want)
		}},
		{"tool_calls_stream_no_arguments_then_arguments", func(t *testing.T, open Open) {
			// As recorded: a call with no input, then one with input.
			_, m := msgs(t, open, Reply{SSE: events(`"tool_use"`,
				blockStart(0, `{"type":"tool_use","id":"toolu_01","name":"get_time","input":{}}`),
				blockDelta(0, `{"type":"input_json_delta","partial_json":""}`),
				blockStop(0),
				blockStart(1, `{"type":"tool_use","id":"toolu_02","name":"get_weather","input":{}}`),
				blockDelta(1, `{"type":"input_json_delta","partial_json":"{\"city\":\"Rome\"}"}`),
				blockStop(1))})
			resp, chunks := stream(t, m, ask("Time, and weather in Rome?"))
			want := []llm.ToolCall{{ID: "toolu_01", Name: "get_time", Arguments: `{}`}, {ID: "toolu_02", Name: "get_weather", Arguments: `{"city":"Rome"}`}}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
		}},
		{"empty_ids", func(t *testing.T, open Open) {
			// Anthropic-compatible servers have been seen leaving IDs out.
			_, m := msgs(t, open, Reply{Body: message(`{"type":"tool_use","id":"","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","name":"get_weather","input":{"city":"Rome"}}`, `"tool_use"`, 1, 1)})
			resp := generate(t, m, ask("Weather in Paris and Rome?"))
			if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].ID == "" || resp.ToolCalls[1].ID == "" || resp.ToolCalls[0].ID == resp.ToolCalls[1].ID {
				t.Errorf("calls = %+v; want two distinct non-empty IDs", resp.ToolCalls)
			}
		}},
		{"content_parts", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"Hello"},{"type":"text","text":" there."}`, `"end_turn"`, 1, 1)})
			if resp := generate(t, m, ask("Hi")); resp.Text != "Hello there." {
				t.Errorf("Text = %q", resp.Text)
			}
		}},
		{"refusal", func(t *testing.T, open Open) {
			// A refusal with no content blocks, as recorded from Claude.
			_, m := msgs(t, open, Reply{Body: message(``, `"refusal"`, 30, 0)})
			resp := generate(t, m, ask("Something bad"))
			wantStop(t, resp, llm.StopRefusal)
			if resp.Refusal == "" {
				t.Error("Refusal is empty; a refusal says so")
			}
		}},
		{"refusal_with_text", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"I can't help with that."}`, `"refusal"`, 30, 7)})
			resp := generate(t, m, ask("Something bad"))
			wantStop(t, resp, llm.StopRefusal)
			if resp.Refusal != "I can't help with that." {
				t.Errorf("Refusal = %q", resp.Refusal)
			}
		}},
		{"refusal_stream", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"refusal"`,
				blockStart(0, `{"type":"text","text":""}`),
				blockDelta(0, `{"type":"text_delta","text":"I can't"}`),
				blockStop(0))})
			resp, _ := stream(t, m, ask("Something bad"))
			wantStop(t, resp, llm.StopRefusal)
			if resp.Refusal != "I can't" {
				t.Errorf("Refusal = %q", resp.Refusal)
			}
		}},
		{"usage", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,` +
				`"usage":{"input_tokens":50,"cache_creation_input_tokens":1000,"cache_read_input_tokens":2000,"output_tokens":20}}`})
			// input_tokens excludes the cache's reads and writes; Usage
			// counts them in InputTokens and apart.
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 3050, OutputTokens: 20, CacheReadTokens: 2000, CacheWriteTokens: 1000})
		}},
		{"usage_compaction_iterations", func(t *testing.T, open Open) {
			// A message the server compacted first (context management):
			// usage.iterations counts the compaction and the message, the
			// top-level fields only the last (as recorded from
			// claude-sonnet-4-6).
			_, m := msgs(t, open, Reply{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn",` +
				`"usage":{"input_tokens":181,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":8,"iterations":[` +
				`{"input_tokens":100,"output_tokens":83,"cache_read_input_tokens":55096,"cache_creation_input_tokens":0,"type":"compaction"},` +
				`{"input_tokens":181,"output_tokens":8,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"type":"message"}]}}`})
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 55377, OutputTokens: 91, CacheReadTokens: 55096})
		}},
		{"thinking", func(t *testing.T, open Open) {
			s, m := msgs(t, open,
				Reply{Body: message(`{"type":"thinking","thinking":"Paris is a city; look it up.","signature":"WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL=="},`+
					`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},`+weatherUse, `"tool_use"`, 10, 5)},
				Reply{Body: message(`{"type":"text","text":"Sunny."}`, `"end_turn"`, 10, 5)},
			)
			req := ask("Weather in Paris?")
			resp := generate(t, m, req)
			if resp.Reasoning != "Paris is a city; look it up." || len(resp.Thinking) != 2 ||
				resp.Thinking[0].Signature == "" || resp.Thinking[1].Redacted == "" {
				t.Fatalf("resp = %+v", resp)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], "sunny"))
			generate(t, m, req)
			b := s.Body(1)
			// The assistant turn goes back with its thinking blocks first,
			// unchanged, then the tool_use.
			if Path(t, b, "messages", 1, "content", 0, "type") != "thinking" ||
				Path(t, b, "messages", 1, "content", 0, "signature") != resp.Thinking[0].Signature ||
				Path(t, b, "messages", 1, "content", 0, "thinking") != resp.Thinking[0].Text ||
				Path(t, b, "messages", 1, "content", 1, "type") != "redacted_thinking" ||
				Path(t, b, "messages", 1, "content", 1, "data") != resp.Thinking[1].Redacted ||
				Path(t, b, "messages", 1, "content", 2, "type") != "tool_use" {
				t.Errorf("assistant turn sent back as %v", Path(t, b, "messages", 1))
			}
		}},
		{"thinking_stream", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"end_turn"`,
				blockStart(0, `{"type":"thinking","thinking":""}`),
				blockDelta(0, `{"type":"thinking_delta","thinking":"Let me "}`),
				blockDelta(0, `{"type":"thinking_delta","thinking":"think."}`),
				blockDelta(0, `{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}`),
				blockStop(0),
				blockStart(1, `{"type":"text","text":""}`),
				blockDelta(1, `{"type":"text_delta","text":"42."}`),
				blockStop(1))})
			resp, chunks := stream(t, m, ask("Answer?"))
			want := []llm.Thinking{{Text: "Let me think.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}
			if resp.Text != "42." || reasoning(chunks) != "Let me think." || len(resp.Thinking) != 1 || resp.Thinking[0] != want[0] {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"tool_results_round_trip", func(t *testing.T, open Open) {
			s, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"Sunny, noon."}`, `"end_turn"`, 1, 1)})
			a := llm.ToolCall{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
			b := llm.ToolCall{ID: "toolu_2", Name: "get_time", Arguments: `not json`}
			body := roundTrip(t, s, m, a, b, "messages", "system", 0, "text")
			if Path(t, body, "messages", 1, "content", 0, "input", "city") != "Paris" ||
				Path(t, body, "messages", 1, "content", 1, "input") == nil ||
				Path(t, body, "messages", 2, "content", 0, "tool_use_id") != "toolu_1" ||
				Path(t, body, "messages", 2, "content", 1, "tool_use_id") != "toolu_2" ||
				Path(t, body, "messages", 2, "content", 1, "content") != "noon" {
				t.Errorf("messages = %v", body["messages"])
			}
		}},
		{"unset_parameters", func(t *testing.T, open Open) {
			s, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"ok"}`, `"end_turn"`, 1, 1)})
			generate(t, m, ask("Hi"))
			b := s.Body(0)
			absent(t, b, "temperature", "top_p", "top_k", "stop_sequences", "tool_choice", "thinking")
			if b["max_tokens"] != float64(4096) {
				t.Errorf("max_tokens = %v; the API requires one, and the documented default is 4096", b["max_tokens"])
			}
		}},
		{"set_parameters", func(t *testing.T, open Open) {
			s, m := msgs(t, open, Reply{Body: message(`{"type":"text","text":"ok"}`, `"end_turn"`, 1, 1)})
			req := ask("Hi")
			req.MaxTokens, req.Temperature = 100, ptr(0)
			generate(t, m, req)
			b := s.Body(0)
			if b["max_tokens"] != float64(100) || b["temperature"] != float64(0) {
				t.Errorf("max_tokens = %v, temperature = %v", b["max_tokens"], b["temperature"])
			}
			absent(t, b, "top_p")
		}},
	}
	cases = append(cases, stopReasonCases(msgs, "stop_reason_", func(reason string) Reply {
		return Reply{Body: message(`{"type":"text","text":"The answer is"}`, `"`+reason+`"`, 1, 1)}
	}, []stopRow{
		{"end_turn", llm.StopEnd},
		{"stop_sequence", llm.StopEnd},
		{"max_tokens", llm.StopMaxTokens},
		{"model_context_window_exceeded", llm.StopMaxTokens},
		{"pause_turn", "pause_turn"},
	})...)
	cases = append(cases,
		Case{"stop_reason_max_tokens_stream", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"max_tokens"`, blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"The answer is"}`), blockStop(0))})
			resp, _ := stream(t, m, ask("Hi"))
			wantStop(t, resp, llm.StopMaxTokens)
		}},
		Case{"malformed_stream", func(t *testing.T, open Open) {
			ev := events(`"end_turn"`, blockStart(0, `{"type":"text","text":""}`), "event: content_block_delta\ndata: {not json")
			_, m := msgs(t, open, Reply{SSE: ev})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"truncated_stream", func(t *testing.T, open Open) {
			ev := events(`"end_turn"`, blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"Hel"}`))
			_, m := msgs(t, open, Reply{SSE: ev[:len(ev)-2]})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"stream_error_event", func(t *testing.T, open Open) {
			ev := events(`"end_turn"`, blockStart(0, `{"type":"text","text":""}`), "event: error\n"+`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			_, m := msgs(t, open, Reply{SSE: ev})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrProviderUnavailable, 0, true)
		}},
		Case{"stream_callback_error", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{SSE: events(`"end_turn"`, blockStart(0, `{"type":"text","text":""}`),
				blockDelta(0, `{"type":"text_delta","text":"one "}`), blockDelta(0, `{"type":"text_delta","text":"two"}`), blockStop(0))})
			callbackStops(t, m)
		}},
	)
	cases = append(cases,
		Case{"retries", func(t *testing.T, open Open) {
			s, m := msgs(t, open,
				Reply{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
				Reply{Status: 429, Header: map[string]string{"retry-after": "1"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
				Reply{Body: message(`{"type":"text","text":"ok"}`, `"end_turn"`, 1, 1)},
			)
			resp, err := llm.WithRetry(m, retry).Generate(context.Background(), ask("Hi"))
			if err != nil || resp.Text != "ok" || s.Requests() != 3 {
				t.Errorf("resp %+v, err %v after %d requests; want ok after 3", resp, err, s.Requests())
			}
		}},
		Case{"retry_after", func(t *testing.T, open Open) {
			_, m := msgs(t, open, Reply{Status: 429, Header: map[string]string{"retry-after": "7"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`})
			_, err := m.Generate(context.Background(), ask("Hi"))
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter.Seconds() != 7 {
				t.Errorf("err = %v; want RetryAfter 7s", err)
			}
		}},
	)
	cases = append(cases, bodyCases(msgs, message(`{"type":"text","text":"Hello there."}`, `"end_turn"`, 1, 1), `{"type":"message","content": nope}`, "not_a_message", `{"hello":"world"}`, 200, true)...)
	statuses := append(httpErrorCases[:len(httpErrorCases):len(httpErrorCases)], httpErrorCase{"529_overloaded", 529, llm.ErrProviderUnavailable, true})
	return append(cases, sharedCases(msgs, statuses, `{"type":"error","error":{"type":"invalid_request_error","message":"scripted failure"}}`,
		Reply{Body: message(`{"type":"text","text":"ok"}`, `"end_turn"`, 1, 1)})...)
}
