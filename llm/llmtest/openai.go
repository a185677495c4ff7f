package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// The fixtures of this file follow OpenAI's API reference for chat
// completions (https://platform.openai.com/docs/api-reference/chat: "The chat
// completion object" and "The chat completion chunk object"), except where a
// comment names the compatible provider's reference, or the recorded response,
// a fixture follows instead.

// completion is a chat.completion object with one choice.
func completion(message, finish, usage string) string {
	return `{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,"model":"gpt-4o-mini-2024-07-18",` +
		`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":` + finish + `}],` +
		`"usage":` + usage + `,"service_tier":"default","system_fingerprint":"fp_06737a9306"}`
}

// chunk is a chat.completion.chunk event with one choice.
func chunk(delta, finish string) string {
	return `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
}

// usageChunk is the last chunk when stream_options.include_usage is set.
func usageChunk(in, out int) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

const done = "data: [DONE]"

const usage19x10 = `{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"completion_tokens_details":{"reasoning_tokens":0}}`

func openAICases(f Flavor) []Case {
	switch f {
	case OpenAI, Mistral, Gemini, Ollama, VLLM:
	default:
		return nil
	}
	chat := func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model) {
		s := NewServer(t, "/chat/completions", replies...)
		return s, open(t, s.URL())
	}
	cases := []Case{
		{"text", func(t *testing.T, open Open) {
			s, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"Hello there.","refusal":null,"annotations":[]}`, `"stop"`, usage19x10)})
			resp := generate(t, m, ask("Hi"))
			if resp.Text != "Hello there." || len(resp.ToolCalls) != 0 || resp.Refusal != "" {
				t.Errorf("resp = %+v", resp)
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 19, 10)
			if got := Path(t, s.Body(0), "messages", 0, "role"); got != "system" {
				t.Errorf("messages[0].role = %v", got)
			}
			if got := Path(t, s.Body(0), "tools", 0, "function", "strict"); got != true {
				t.Errorf("a strict tool went out with strict = %v", got)
			}
			if _, ok := Path(t, s.Body(0), "tools", 1, "function").(map[string]any)["strict"]; ok {
				t.Error("a tool not marked Strict went out with a strict field")
			}
		}},
		{"text_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":"","refusal":null}`, "null"),
				chunk(`{"content":"Hel"}`, "null"),
				chunk(`{"content":"lo."}`, "null"),
				chunk(`{}`, `"stop"`),
				usageChunk(11, 2),
				done,
			}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hello." || text(chunks) != "Hello." {
				t.Errorf("text %q, chunks %q", resp.Text, text(chunks))
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 11, 2)
		}},
		{"tool_call", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}],"refusal":null}`, `"tool_calls"`, usage19x10)})
			resp := generate(t, m, ask("Weather in Paris?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "call_abc", Name: "get_weather", Arguments: `{"city":"Paris"}`}})
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"parallel_tool_calls", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":null,"tool_calls":[`+
				`{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},`+
				`{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{\"city\":\"<<var:home>>\"}"}}]}`, `"tool_calls"`, usage19x10)})
			resp := generate(t, m, ask("Weather in Paris, time at home?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "call_2", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
			})
		}},
		{"tool_calls_stream_split_arguments", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"<<var:home>>\"}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`),
				usageChunk(30, 20),
				done,
			}})
			resp, chunks := stream(t, m, ask("Weather in Paris, time at home?"))
			want := []llm.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "call_2", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
			}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
			if text(chunks) != "" {
				t.Errorf("tool-call deltas leaked into the text: %q", text(chunks))
			}
			wantStop(t, resp, llm.StopToolCalls)
			wantUsage(t, resp, 30, 20)
		}},
		{"empty_ids", func(t *testing.T, open Open) {
			// Ollama's compatible endpoint was recorded sending calls
			// with empty IDs from some models.
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"","tool_calls":[`+
				`{"id":"","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},`+
				`{"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]}`, `"tool_calls"`, usage19x10)})
			resp := generate(t, m, ask("Weather in Paris and Rome?"))
			if len(resp.ToolCalls) != 2 {
				t.Fatalf("calls = %+v", resp.ToolCalls)
			}
			a, b := resp.ToolCalls[0].ID, resp.ToolCalls[1].ID
			if a == "" || b == "" || a == b {
				t.Errorf("IDs %q and %q; want two distinct non-empty IDs", a, b)
			}
		}},
		{"calls_without_type", func(t *testing.T, open Open) {
			// Mistral's stream, as recorded and as Mistral's API reference
			// (https://docs.mistral.ai/api/#tag/chat) shows it: each
			// tool-call delta is a whole call, with no "type".
			_, m := chat(t, open, Reply{SSE: []string{
				`data: {"id":"b2ff7e0b","object":"chat.completion.chunk","created":1741569952,"model":"mistral-large-latest","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
				`data: {"id":"b2ff7e0b","object":"chat.completion.chunk","created":1741569952,"model":"mistral-large-latest","choices":[{"index":0,"delta":{"tool_calls":[{"id":"D681PevKs","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"},"index":0}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":91,"total_tokens":115,"completion_tokens":24}}`,
				done,
			}})
			resp, chunks := stream(t, m, ask("Weather in Paris?"))
			want := []llm.ToolCall{{ID: "D681PevKs", Name: "get_weather", Arguments: `{"city": "Paris"}`}}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
			wantStop(t, resp, llm.StopToolCalls)
			wantUsage(t, resp, 91, 24)
		}},
		{"split_call_stream", func(t *testing.T, open Open) {
			// As recorded from a GLM model behind an OpenAI-compatible
			// endpoint: one call arrives as a named delta with empty
			// arguments, then a delta with no name, a made-up ID and the
			// arguments.
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_9f2","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"id":"call_-8462","type":"function","function":{"arguments":"{\"city\":\"Paris\"}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`),
				done,
			}})
			resp, _ := stream(t, m, ask("Weather in Paris?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "call_9f2", Name: "get_weather", Arguments: `{"city":"Paris"}`}})
		}},
		{"tool_calls_stream_no_arguments", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_time","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":2,"id":"call_3","type":"function","function":{"name":"get_time","arguments":""}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`),
				done,
			}})
			resp, chunks := stream(t, m, ask("Time, weather in Rome, time?"))
			want := []llm.ToolCall{
				{ID: "call_1", Name: "get_time", Arguments: `{}`},
				{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Rome"}`},
				{ID: "call_3", Name: "get_time", Arguments: `{}`},
			}
			wantCalls(t, resp.ToolCalls, want)
			// A streaming caller's fragments add up to {} too, not "".
			wantCalls(t, fragments(chunks), want)
		}},
		{"legacy_function_call", func(t *testing.T, open Open) {
			// The deprecated functions API's answer: one function_call,
			// no ID, finish_reason "function_call".
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"refusal":null}`, `"function_call"`, usage19x10)})
			resp := generate(t, m, ask("Weather in Paris?"))
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID == "" {
				t.Fatalf("calls = %+v; want one call with an ID", resp.ToolCalls)
			}
			resp.ToolCalls[0].ID = ""
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}})
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"legacy_function_call_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":""}}`, "null"),
				chunk(`{"function_call":{"arguments":"{\"city\":"}}`, "null"),
				chunk(`{"function_call":{"arguments":"\"Paris\"}"}}`, "null"),
				chunk(`{}`, `"function_call"`),
				done,
			}})
			resp, chunks := stream(t, m, ask("Weather in Paris?"))
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID == "" {
				t.Fatalf("calls = %+v; want one call with an ID", resp.ToolCalls)
			}
			resp.ToolCalls[0].ID = ""
			want := []llm.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"content_parts", func(t *testing.T, open Open) {
			// Magistral, per Mistral's reasoning docs
			// (https://docs.mistral.ai/capabilities/reasoning/): content
			// is an array of a thinking part and text parts.
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","tool_calls":null,"content":[`+
				`{"type":"thinking","thinking":[{"type":"text","text":"The user greets me."}]},`+
				`{"type":"text","text":"Hello"},{"type":"text","text":" there."}]}`, `"stop"`, usage19x10)})
			resp := generate(t, m, ask("Hi"))
			if resp.Text != "Hello there." || resp.Reasoning != "The user greets me." {
				t.Errorf("text %q, reasoning %q", resp.Text, resp.Reasoning)
			}
			wantStop(t, resp, llm.StopEnd)
		}},
		{"content_parts_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Greeting."}]}]}`, "null"),
				chunk(`{"content":[{"type":"text","text":"Hi!"}]}`, "null"),
				chunk(`{"content":""}`, `"stop"`),
				done,
			}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hi!" || resp.Reasoning != "Greeting." || reasoning(chunks) != "Greeting." {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"refusal", func(t *testing.T, open Open) {
			// OpenAI's refusal field ("Refusals" in the Structured
			// Outputs guide): content null, finish_reason "stop".
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}`, `"stop"`, usage19x10)})
			resp := generate(t, m, ask("Something bad"))
			if resp.Refusal != "I'm sorry, I can't help with that." {
				t.Errorf("Refusal = %q", resp.Refusal)
			}
			wantStop(t, resp, llm.StopRefusal)
		}},
		{"refusal_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":null,"refusal":""}`, "null"),
				chunk(`{"refusal":"I'm sorry, "}`, "null"),
				chunk(`{"refusal":"no."}`, "null"),
				chunk(`{}`, `"stop"`),
				done,
			}})
			resp, _ := stream(t, m, ask("Something bad"))
			if resp.Refusal != "I'm sorry, no." {
				t.Errorf("Refusal = %q", resp.Refusal)
			}
			wantStop(t, resp, llm.StopRefusal)
		}},
		{"usage", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"ok"}`, `"stop"`,
				`{"prompt_tokens":1200,"completion_tokens":340,"total_tokens":1540,"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":300}}`)})
			// cached_tokens is a part of prompt_tokens, reasoning_tokens of
			// completion_tokens.
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 1024, ReasoningTokens: 300})
		}},
		{"reasoning_content", func(t *testing.T, open Open) {
			// vLLM's reasoning outputs
			// (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html).
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","reasoning_content":"9.11 < 9.8.","content":"9.8 is larger."}`, `"stop"`, usage19x10)})
			resp := generate(t, m, ask("Which is larger?"))
			if resp.Reasoning != "9.11 < 9.8." || resp.Text != "9.8 is larger." {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"reasoning_stream", func(t *testing.T, open Open) {
			// Ollama's compatible endpoint streams "reasoning"
			// (https://github.com/ollama/ollama/blob/main/docs/openai.md).
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","content":"","reasoning":"Think"}`, "null"),
				chunk(`{"role":"assistant","content":"","reasoning":"ing."}`, "null"),
				chunk(`{"role":"assistant","content":"Done."}`, `"stop"`),
				done,
			}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Reasoning != "Thinking." || reasoning(chunks) != "Thinking." || resp.Text != "Done." {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"thought_signature", func(t *testing.T, open Open) {
			// Gemini 3 through the OpenAI-compatible endpoint, per
			// Google's "Thought signatures" and "OpenAI compatibility"
			// docs (https://ai.google.dev/gemini-api/docs/thought-signatures):
			// the signature is in extra_content.google and must come back
			// with the call; Gemini says "stop" after calls.
			s, m := chat(t, open,
				Reply{Body: completion(`{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"Sig_A=="}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-1","type":"function"}]}`, `"stop"`, usage19x10)},
				Reply{Body: completion(`{"role":"assistant","content":"Sunny."}`, `"stop"`, usage19x10)},
			)
			req := ask("Weather in Paris?")
			resp := generate(t, m, req)
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "function-call-1", Name: "get_weather", Arguments: `{"city":"Paris"}`, Signature: "Sig_A=="}})
			wantStop(t, resp, llm.StopToolCalls)
			req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], `{"sky":"sunny"}`))
			generate(t, m, req)
			if got := Path(t, s.Body(1), "messages", 2, "tool_calls", 0, "extra_content", "google", "thought_signature"); got != "Sig_A==" {
				t.Errorf("the signature went back as %v", got)
			}
		}},
		{"thought_signature_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{
				chunk(`{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"Sig_B=="}},"function":{"arguments":"{\"city\":\"Rome\"}","name":"get_weather"},"id":"function-call-2","type":"function","index":0}]}`, "null"),
				chunk(`{}`, `"stop"`),
				done,
			}})
			resp, _ := stream(t, m, ask("Weather in Rome?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "function-call-2", Name: "get_weather", Arguments: `{"city":"Rome"}`, Signature: "Sig_B=="}})
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"tool_results_round_trip", func(t *testing.T, open Open) {
			s, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"Sunny."}`, `"stop"`, usage19x10)})
			call := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
			req := ask("Weather?")
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, llm.ToolResultMessage(call, "sunny"))
			generate(t, m, req)
			b := s.Body(0)
			if Path(t, b, "messages", 2, "tool_calls", 0, "function", "arguments") != `{"city":"Paris"}` ||
				Path(t, b, "messages", 2, "tool_calls", 0, "type") != "function" ||
				Path(t, b, "messages", 3, "role") != "tool" || Path(t, b, "messages", 3, "tool_call_id") != "call_1" ||
				Path(t, b, "messages", 3, "content") != "sunny" {
				t.Errorf("messages = %v", b["messages"])
			}
		}},
		{"structured_output", func(t *testing.T, open Open) {
			s, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"{\"city\":\"Paris\"}"}`, `"stop"`, usage19x10)})
			req := ask("Which city?")
			req.ResponseFormat = &llm.ResponseFormat{Name: "city", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`), Strict: true}
			if resp := generate(t, m, req); resp.Text != `{"city":"Paris"}` {
				t.Errorf("Text = %q", resp.Text)
			}
			f := Path(t, s.Body(0), "response_format")
			if Path(t, f, "type") != "json_schema" || Path(t, f, "json_schema", "name") != "city" || Path(t, f, "json_schema", "strict") != true ||
				Path(t, f, "json_schema", "schema", "type") != "object" {
				t.Errorf("response_format = %v", f)
			}
		}},
		{"unset_parameters", func(t *testing.T, open Open) {
			s, m := chat(t, open,
				Reply{Body: completion(`{"role":"assistant","content":"ok"}`, `"stop"`, usage19x10)},
				Reply{SSE: []string{chunk(`{"content":"ok"}`, `"stop"`), done}},
			)
			generate(t, m, ask("Hi"))
			stream(t, m, ask("Hi"))
			for i := range 2 {
				absent(t, s.Body(i), "temperature", "top_p", "max_tokens", "max_completion_tokens", "n", "seed", "presence_penalty", "frequency_penalty", "parallel_tool_calls", "tool_choice")
			}
			_, hasOptions := s.Body(1)["stream_options"]
			if f == Mistral && hasOptions {
				t.Error("stream_options went to Mistral, which refuses unknown fields")
			}
			if f != Mistral && !hasOptions {
				t.Error("stream_options.include_usage was not asked for; the stream would carry no usage")
			}
		}},
		{"set_parameters", func(t *testing.T, open Open) {
			s, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"ok"}`, `"stop"`, usage19x10)})
			req := ask("Hi")
			req.MaxTokens, req.Temperature, req.TopP = 100, ptr(0), ptr(0.5)
			generate(t, m, req)
			b := s.Body(0)
			field, other := "max_tokens", "max_completion_tokens"
			if f == OpenAI {
				field, other = other, field
			}
			if b[field] != float64(100) || b["temperature"] != float64(0) || b["top_p"] != 0.5 {
				t.Errorf("%s = %v, temperature = %v, top_p = %v; want 100, 0, 0.5", field, b[field], b["temperature"], b["top_p"])
			}
			absent(t, b, other)
		}},
	}
	for _, sr := range []struct {
		finish string
		want   llm.StopReason
	}{
		{`"stop"`, llm.StopEnd},
		{`"length"`, llm.StopMaxTokens},
		{`"content_filter"`, llm.StopContentFilter},
		{`"model_length"`, llm.StopMaxTokens}, // Mistral's context-length stop
	} {
		cases = append(cases, Case{"stop_reason_" + strings.Trim(sr.finish, `"`), func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{Body: completion(`{"role":"assistant","content":"The answer is"}`, sr.finish, usage19x10)})
			wantStop(t, generate(t, m, ask("Hi")), sr.want)
		}})
	}
	cases = append(cases,
		Case{"stop_reason_length_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{chunk(`{"content":"The answer is"}`, "null"), chunk(`{}`, `"length"`), done}})
			resp, _ := stream(t, m, ask("Hi"))
			wantStop(t, resp, llm.StopMaxTokens)
			if resp.Text != "The answer is" {
				t.Errorf("Text = %q; the cut text is kept", resp.Text)
			}
		}},
		Case{"malformed_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{chunk(`{"content":"Hel"}`, "null"), `data: {not json`, done}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"truncated_stream", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{chunk(`{"content":"Hel"}`, "null"), chunk(`{"content":"lo"}`, "null")}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"stream_error_event", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{chunk(`{"content":"Hel"}`, "null"), `data: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrProviderUnavailable, 0, true)
		}},
		Case{"stream_callback_error", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{SSE: []string{chunk(`{"content":"one "}`, "null"), chunk(`{"content":"two"}`, `"stop"`), done}})
			callbackStops(t, m)
		}},
	)
	cases = append(cases,
		Case{"retries", func(t *testing.T, open Open) {
			s, m := chat(t, open,
				Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
				Reply{Status: 502, Body: `bad gateway`},
				Reply{Body: completion(`{"role":"assistant","content":"ok"}`, `"stop"`, usage19x10)},
			)
			resp, err := llm.WithRetry(m, retry).Generate(context.Background(), ask("Hi"))
			if err != nil || resp.Text != "ok" || s.Requests() != 3 {
				t.Errorf("resp %+v, err %v after %d requests; want ok after 3", resp, err, s.Requests())
			}
		}},
		Case{"retry_after", func(t *testing.T, open Open) {
			_, m := chat(t, open, Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"error":{"message":"slow down"}}`})
			_, err := m.Generate(context.Background(), ask("Hi"))
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter.Seconds() != 7 {
				t.Errorf("err = %v; want RetryAfter 7s", err)
			}
		}},
	)
	cases = append(cases, bodyCases(chat, completion(`{"role":"assistant","content":"Hello there."}`, `"stop"`, usage19x10), `{"choices": nope}`, "no_choices", `{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`, 200, true)...)
	return append(cases, sharedCases(chat, httpErrorCases, `{"error":{"message":"scripted failure","type":"invalid_request_error","param":null,"code":null}}`,
		Reply{Body: completion(`{"role":"assistant","content":"ok"}`, `"stop"`, usage19x10)})...)
}
