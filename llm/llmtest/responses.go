package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// The fixtures of this file follow OpenAI's API reference for the Responses
// API (https://platform.openai.com/docs/api-reference/responses: "The
// response object" and "Streaming events") and the shapes of the recorded
// exchanges in ../shared/recordings/openai-responses.

// Responses is OpenAI's Responses API (POST …/responses), as OpenAI and
// Azure OpenAI's v1 endpoint speak it.
const Responses Flavor = "responses"

// responseObject is a response object with the output items and usage.
func responseObject(status, output, usage string) string {
	return `{"id":"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b","object":"response","created_at":1741476542,"status":"` + status + `",` +
		`"error":null,"incomplete_details":null,"model":"gpt-5-mini-2025-08-07","output":[` + output + `],"parallel_tool_calls":true,"store":false,` +
		`"usage":` + usage + `}`
}

// respEvent is one streaming event: its type and the rest of its fields.
func respEvent(typ, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"" + fields + "}"
}

// completed is the response.completed event carrying the whole response.
func completed(output, usage string) string {
	return respEvent("response.completed", `"response":`+responseObject("completed", output, usage))
}

const (
	respUsage = `{"input_tokens":19,"input_tokens_details":{"cached_tokens":0},"output_tokens":10,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":29}`
	respText  = `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello there.","annotations":[]}]}`
	respCall1 = `{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}`
	respCall2 = `{"id":"fc_2","type":"function_call","status":"completed","call_id":"call_2","name":"get_time","arguments":"{\"city\":\"<<var:home>>\"}"}`
	// respReasoning is a reasoning item with a two-part summary and its
	// encrypted_content.
	respReasoning = `{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAAB-opaque==","summary":[{"type":"summary_text","text":"**Weather** first."},{"type":"summary_text","text":"Then answer."}]}`
)

func responsesCases() []Case {
	serve := func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model) {
		s := NewServer(t, "/responses", replies...)
		return s, open(t, s.URL())
	}
	parisCall := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	homeCall := llm.ToolCall{ID: "call_2", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`}
	cases := []Case{
		{"text", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: responseObject("completed", respText, respUsage)})
			resp := generate(t, m, ask("Hi"))
			if resp.Text != "Hello there." || len(resp.ToolCalls) != 0 || resp.Refusal != "" {
				t.Errorf("resp = %+v", resp)
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 19, 10)
			b := s.Body(0)
			if b["instructions"] != "You are terse." || Path(t, b, "input", 0, "role") != "user" || Path(t, b, "input", 0, "content") != "Hi" {
				t.Errorf("instructions %v, input %v", b["instructions"], b["input"])
			}
			if Path(t, b, "tools", 0, "strict") != true || Path(t, b, "tools", 1, "strict") != false || Path(t, b, "tools", 0, "name") != "get_weather" {
				t.Errorf("tools = %v; each goes with its strict flag, which defaults to true", b["tools"])
			}
			if b["store"] != false {
				t.Errorf("store = %v, want false: the run's log is the conversation", b["store"])
			}
		}},
		{"text_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.created", `"response":`+responseObject("in_progress", "", "null")),
				respEvent("response.output_item.added", `"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`),
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello"`),
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":" there."`),
				respEvent("response.output_item.done", `"output_index":0,"item":`+respText),
				completed(respText, respUsage),
			}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hello there." || text(chunks) != resp.Text {
				t.Errorf("Text = %q, chunks %q", resp.Text, text(chunks))
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 19, 10)
		}},
		{"tool_call", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: responseObject("completed", respCall1, respUsage)})
			resp := generate(t, m, ask("Weather?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{parisCall})
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"parallel_tool_calls", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: responseObject("completed", respCall1+","+respCall2, respUsage)})
			resp := generate(t, m, ask("Weather and time?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{parisCall, homeCall})
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"tool_calls_stream_split_arguments", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"get_weather","arguments":""}`),
				respEvent("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"{\"city\":"`),
				respEvent("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"`),
				respEvent("response.output_item.done", `"output_index":0,"item":`+respCall1),
				respEvent("response.output_item.added", `"output_index":1,"item":{"id":"fc_2","type":"function_call","status":"in_progress","call_id":"call_2","name":"get_time","arguments":""}`),
				respEvent("response.function_call_arguments.delta", `"item_id":"fc_2","output_index":1,"delta":"{\"city\":\"<<var:home>>\"}"`),
				respEvent("response.output_item.done", `"output_index":1,"item":`+respCall2),
				completed(respCall1+","+respCall2, respUsage),
			}})
			resp, chunks := stream(t, m, ask("Weather and time?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{parisCall, homeCall})
			wantCalls(t, fragments(chunks), resp.ToolCalls)
		}},
		{"tool_call_stream_no_arguments", func(t *testing.T, open Open) {
			noArgs := `{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_time","arguments":""}`
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_item.added", `"output_index":0,"item":`+noArgs),
				respEvent("response.output_item.done", `"output_index":0,"item":`+noArgs),
				completed(noArgs, respUsage),
			}})
			resp, chunks := stream(t, m, ask("Time?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "call_1", Name: "get_time", Arguments: "{}"}})
			wantCalls(t, fragments(chunks), resp.ToolCalls)
		}},
		{"stream_items_only_in_done_events", func(t *testing.T, open Open) {
			// A response.completed without its output: the items of the
			// output_item.done events make the response.
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"get_weather","arguments":""}`),
				respEvent("response.output_item.done", `"output_index":0,"item":`+respCall1),
				completed("", respUsage),
			}})
			resp, chunks := stream(t, m, ask("Weather?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{parisCall})
			wantCalls(t, fragments(chunks), resp.ToolCalls)
		}},
		{"refusal", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: responseObject("completed", `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}`, respUsage)})
			resp := generate(t, m, ask("Something bad"))
			if resp.Refusal != "I can't help with that." || resp.Text != "" {
				t.Errorf("Refusal = %q, Text = %q", resp.Refusal, resp.Text)
			}
			wantStop(t, resp, llm.StopRefusal)
		}},
		{"usage", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: responseObject("completed", respText,
				`{"input_tokens":2087,"input_tokens_details":{"cached_tokens":2048},"output_tokens":1926,"output_tokens_details":{"reasoning_tokens":1792},"total_tokens":4013}`)})
			// cached_tokens is a part of input_tokens, reasoning_tokens of
			// output_tokens.
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 2087, OutputTokens: 1926, CacheReadTokens: 2048, ReasoningTokens: 1792})
		}},
		{"reasoning", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: responseObject("completed", respReasoning+","+respCall1, respUsage)})
			resp := generate(t, m, ask("Weather?"))
			if resp.Reasoning != "**Weather** first.\n\nThen answer." {
				t.Errorf("Reasoning = %q", resp.Reasoning)
			}
			want := []llm.Thinking{
				{Provider: "openai-responses", ID: "rs_1", Text: "**Weather** first.", Signature: "gAAAAAB-opaque=="},
				{Provider: "openai-responses", ID: "rs_1", Text: "Then answer."},
			}
			if fmt.Sprint(resp.Thinking) != fmt.Sprint(want) {
				t.Errorf("Thinking = %+v, want %+v", resp.Thinking, want)
			}
		}},
		{"reasoning_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`),
				respEvent("response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`),
				respEvent("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Weather** "`),
				respEvent("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"first."`),
				respEvent("response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}`),
				respEvent("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Then answer."`),
				respEvent("response.output_item.done", `"output_index":0,"item":`+respReasoning),
				respEvent("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}`),
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello there."`),
				respEvent("response.output_item.done", `"output_index":1,"item":`+respText),
				completed(respReasoning+","+respText, respUsage),
			}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Reasoning != "**Weather** first.\n\nThen answer." || reasoning(chunks) != resp.Reasoning || resp.Text != "Hello there." {
				t.Errorf("Reasoning = %q, chunks %q, Text %q", resp.Reasoning, reasoning(chunks), resp.Text)
			}
			if len(resp.Thinking) != 2 || resp.Thinking[0].Signature != "gAAAAAB-opaque==" {
				t.Errorf("Thinking = %+v", resp.Thinking)
			}
		}},
		{"reasoning_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: responseObject("completed", respReasoning+","+respCall1, respUsage)}, Reply{Body: responseObject("completed", respText, respUsage)})
			req := ask("Weather?")
			first := generate(t, m, req)
			req.Messages = append(req.Messages, first.Message(), llm.ToolResultMessage(first.ToolCalls[0], "sunny"))
			// Another provider's reasoning in the conversation stays out.
			req.Messages[2].Thinking = append([]llm.Thinking{{Text: "anthropic's", Signature: "sig"}}, req.Messages[2].Thinking...)
			generate(t, m, req)
			in := s.Body(1)["input"].([]any)
			if len(in) != 4 {
				t.Fatalf("input = %v, want the user message, the reasoning item, the call and its output", in)
			}
			item := in[1].(map[string]any)
			if item["type"] != "reasoning" || item["id"] != "rs_1" || item["encrypted_content"] != "gAAAAAB-opaque==" ||
				Path(t, item, "summary", 1, "text") != "Then answer." || Path(t, item, "summary", 0, "type") != "summary_text" {
				t.Errorf("reasoning item sent back as %v", item)
			}
			if Path(t, in[2], "type") != "function_call" || Path(t, in[2], "call_id") != "call_1" || Path(t, in[2], "arguments") != `{"city":"Paris"}` ||
				Path(t, in[3], "type") != "function_call_output" || Path(t, in[3], "call_id") != "call_1" || Path(t, in[3], "output") != "sunny" {
				t.Errorf("input = %v", in)
			}
		}},
		{"structured_output", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: responseObject("completed", `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"{\"city\":\"Paris\"}"}]}`, respUsage)})
			req := ask("Which city?")
			req.ResponseFormat = &llm.ResponseFormat{Name: "city", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`), Strict: true}
			if resp := generate(t, m, req); resp.Text != `{"city":"Paris"}` {
				t.Errorf("Text = %q", resp.Text)
			}
			f := Path(t, s.Body(0), "text", "format")
			if Path(t, f, "type") != "json_schema" || Path(t, f, "name") != "city" || Path(t, f, "strict") != true || Path(t, f, "schema", "type") != "object" {
				t.Errorf("text.format = %v", f)
			}
		}},
		{"tool_results_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: responseObject("completed", respText, respUsage)})
			req := ask("Weather?")
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Text: "Let me look.", ToolCalls: []llm.ToolCall{parisCall, homeCall}},
				llm.ToolResultMessage(parisCall, "sunny"), llm.ToolResultMessage(homeCall, "noon"))
			generate(t, m, req)
			in := s.Body(0)["input"].([]any)
			want := []string{"user", "assistant:Let me look.", "function_call:call_1", "function_call:call_2", "function_call_output:call_1:sunny", "function_call_output:call_2:noon"}
			var got []string
			for _, v := range in {
				it := v.(map[string]any)
				switch {
				case it["role"] == "assistant":
					got = append(got, "assistant:"+fmt.Sprint(it["content"]))
				case it["role"] != nil:
					got = append(got, fmt.Sprint(it["role"]))
				case it["type"] == "function_call":
					got = append(got, "function_call:"+fmt.Sprint(it["call_id"]))
				default:
					got = append(got, fmt.Sprint(it["type"], ":", it["call_id"], ":", it["output"]))
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("input = %v, want %v", got, want)
			}
		}},
		{"unset_parameters", func(t *testing.T, open Open) {
			s, m := serve(t, open,
				Reply{Body: responseObject("completed", respText, respUsage)},
				Reply{SSE: []string{completed(respText, respUsage)}},
			)
			generate(t, m, ask("Hi"))
			stream(t, m, ask("Hi"))
			for i := range 2 {
				absent(t, s.Body(i), "temperature", "top_p", "max_output_tokens", "tool_choice", "parallel_tool_calls", "previous_response_id", "text", "truncation")
			}
			if s.Body(1)["stream"] != true {
				t.Error("a stream was not asked for")
			}
		}},
		{"set_parameters", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: responseObject("completed", respText, respUsage)})
			req := ask("Hi")
			req.MaxTokens, req.Temperature, req.TopP, req.CacheKey = 100, ptr(0), ptr(0.5), "agent-1"
			generate(t, m, req)
			b := s.Body(0)
			if b["max_output_tokens"] != float64(100) || b["temperature"] != float64(0) || b["top_p"] != 0.5 || b["prompt_cache_key"] != "agent-1" {
				t.Errorf("max_output_tokens = %v, temperature = %v, top_p = %v, prompt_cache_key = %v", b["max_output_tokens"], b["temperature"], b["top_p"], b["prompt_cache_key"])
			}
		}},
	}
	for _, sr := range []struct {
		name, status, details string
		want                  llm.StopReason
	}{
		{"max_output_tokens", "incomplete", `{"reason":"max_output_tokens"}`, llm.StopMaxTokens},
		{"content_filter", "incomplete", `{"reason":"content_filter"}`, llm.StopContentFilter},
	} {
		cases = append(cases, Case{"stop_reason_" + sr.name, func(t *testing.T, open Open) {
			body := strings.Replace(responseObject(sr.status, respText, respUsage), `"incomplete_details":null`, `"incomplete_details":`+sr.details, 1)
			_, m := serve(t, open, Reply{Body: body}, Reply{SSE: []string{respEvent("response.incomplete", `"response":`+body)}})
			wantStop(t, generate(t, m, ask("Hi")), sr.want)
			resp, _ := stream(t, m, ask("Hi"))
			wantStop(t, resp, sr.want)
		}})
	}
	cases = append(cases,
		Case{"failed_response", func(t *testing.T, open Open) {
			failed := strings.Replace(responseObject("failed", "", "null"), `"error":null`, `"error":{"code":"rate_limit_exceeded","message":"Rate limit reached"}`, 1)
			_, m := serve(t, open, Reply{Body: failed}, Reply{SSE: []string{respEvent("response.failed", `"response":`+failed)}})
			_, err := m.Generate(context.Background(), ask("Hi"))
			wantKind(t, err, llm.ErrRateLimited, 0, true)
			_, err = llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrRateLimited, 0, true)
		}},
		Case{"stream_error_event", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"Hel"`),
				respEvent("error", `"code":"server_error","message":"The server had an error while processing your request.","param":null`),
			}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrProviderUnavailable, 0, true)
		}},
		Case{"malformed_body", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: `{"output": nope}`})
			_, err := m.Generate(context.Background(), ask("Hi"))
			wantKind(t, err, llm.ErrBadResponse, 200, false)
		}},
		Case{"truncated_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"Hel"`)}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"stream_callback_error", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"one "`),
				respEvent("response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"two"`),
				completed(respText, respUsage),
			}})
			callbackStops(t, m)
		}},
	)
	cases = append(cases,
		Case{"retries", func(t *testing.T, open Open) {
			s, m := serve(t, open,
				Reply{Status: 429, Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
				Reply{Status: 502, Body: `bad gateway`},
				Reply{Body: responseObject("completed", respText, respUsage)},
			)
			resp, err := llm.WithRetry(m, retry).Generate(context.Background(), ask("Hi"))
			if err != nil || resp.Text != "Hello there." || s.Requests() != 3 {
				t.Errorf("resp %+v, err %v after %d requests; want the text after 3", resp, err, s.Requests())
			}
		}},
	)
	return append(cases, sharedCases(serve, httpErrorCases, `{"error":{"message":"scripted failure","type":"invalid_request_error","param":null,"code":null}}`,
		Reply{Body: responseObject("completed", respText, respUsage)})...)
}
