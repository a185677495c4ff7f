package llmtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/byref/byref/llm"
)

// The fixtures of this file follow Google's Gemini API reference,
// "Generating content" (https://ai.google.dev/api/generate-content), with
// thought signatures as "Thought signatures"
// (https://ai.google.dev/gemini-api/docs/thought-signatures) documents
// them, and the shapes of the recorded exchanges in shared/recordings/gemini.

// geminiResponse is a GenerateContentResponse with one candidate.
func geminiResponse(parts, finish string, prompt, candidates, thoughts int) string {
	return fmt.Sprintf(`{"candidates":[{"content":{"parts":[%s],"role":"model"},"finishReason":%s,"index":0}],`+
		`"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d,"thoughtsTokenCount":%d},"modelVersion":"gemini-2.5-flash","responseId":"xlWYafXAOKSf1e8PpcODiAg"}`,
		parts, finish, prompt, candidates, prompt+candidates+thoughts, thoughts)
}

// geminiChunk is one data: line of a streamGenerateContent?alt=sse stream.
func geminiChunk(parts, finish string, prompt, candidates int) string {
	return "data: " + geminiResponse(parts, finish, prompt, candidates, 0)
}

const geminiFailure = `{"error":{"code":400,"message":"scripted failure","status":"INVALID_ARGUMENT"}}`

func geminiCases() []Case {
	serve := func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model) {
		s := NewServer(t, "enerateContent", replies...)
		return s, open(t, s.URL())
	}
	ok := func(stream bool) Reply {
		if stream {
			return Reply{SSE: []string{geminiChunk(`{"text":"o"}`, "null", 1, 1), geminiChunk(`{"text":"k"}`, `"STOP"`, 1, 1)}}
		}
		return Reply{Body: geminiResponse(`{"text":"ok"}`, `"STOP"`, 1, 1, 0)}
	}
	call := func(name, args, id, sig string) string {
		s := `{"functionCall":{"name":"` + name + `","args":` + args
		if id != "" {
			s += `,"id":"` + id + `"`
		}
		s += `}`
		if sig != "" {
			s += `,"thoughtSignature":"` + sig + `"`
		}
		return s + `}`
	}
	cases := []Case{
		{"text", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: geminiResponse(`{"text":"Paris"}`, `"STOP"`, 11, 1, 34)})
			resp := generate(t, m, ask("Capital of France?"))
			if resp.Text != "Paris" {
				t.Errorf("resp = %+v", resp)
			}
			wantStop(t, resp, llm.StopEnd)
			// Thoughts are output tokens, and reasoning tokens.
			wantCachedUsage(t, resp, llm.Usage{InputTokens: 11, OutputTokens: 35, ReasoningTokens: 34})
			if s.Header(0).Get("x-goog-api-key") == "" {
				t.Errorf("headers = %v; want x-goog-api-key", s.Header(0))
			}
			b := s.Body(0)
			if Path(t, b, "systemInstruction", "parts", 0, "text") != "You are terse." || Path(t, b, "contents", 0, "role") != "user" ||
				Path(t, b, "contents", 0, "parts", 0, "text") != "Capital of France?" ||
				Path(t, b, "tools", 0, "functionDeclarations", 1, "parametersJsonSchema", "$defs") == nil {
				t.Errorf("body = %v", b)
			}
		}},
		{"text_stream", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{SSE: []string{geminiChunk(`{"text":"Hel"}`, "null", 11, 1), geminiChunk(`{"text":"lo."}`, `"STOP"`, 11, 2)}})
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hello." || text(chunks) != "Hello." {
				t.Errorf("text %q, chunks %q", resp.Text, text(chunks))
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 11, 2) // the last chunk's counts, which are cumulative
			if p := s.Path(0); p[len(p)-len(":streamGenerateContent?alt=sse"):] != ":streamGenerateContent?alt=sse" {
				t.Errorf("path %s; want …:streamGenerateContent?alt=sse", p)
			}
		}},
		{"tool_call", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: geminiResponse(call("get_weather", `{"city":"Paris"}`, "", "CpYEAXLI2nxH"), `"STOP"`, 57, 15, 124)})
			resp := generate(t, m, ask("Weather in Paris?"))
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID == "" {
				t.Fatalf("calls = %+v; want one with an ID", resp.ToolCalls)
			}
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: resp.ToolCalls[0].ID, Name: "get_weather", Arguments: `{"city":"Paris"}`, Signature: "CpYEAXLI2nxH"}})
			// Gemini says STOP after function calls.
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"parallel_tool_calls", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: geminiResponse(call("get_weather", `{"city":"Paris"}`, "3ae8iwca", "EukBCuYB")+","+call("get_time", `{"city":"<<var:home>>"}`, "up3kf30e", ""), `"STOP"`, 1, 1, 0)})
			resp := generate(t, m, ask("Weather in Paris, time at home?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{
				{ID: "3ae8iwca", Name: "get_weather", Arguments: `{"city":"Paris"}`, Signature: "EukBCuYB"},
				{ID: "up3kf30e", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
			})
		}},
		{"tool_calls_stream", func(t *testing.T, open Open) {
			// As recorded from gemini-3-flash-preview: one call per chunk,
			// the signature on the first, a last chunk with an empty text.
			_, m := serve(t, open, Reply{SSE: []string{
				geminiChunk(call("get_weather", `{"city": "Paris"}`, "3ae8iwca", "EukBCuYB"), "null", 1, 16),
				geminiChunk(call("get_time", `{}`, "up3kf30e", ""), "null", 1, 32),
				geminiChunk(`{"text":""}`, `"STOP"`, 1, 32)}})
			resp, chunks := stream(t, m, ask("Weather in Paris, and the time?"))
			want := []llm.ToolCall{{ID: "3ae8iwca", Name: "get_weather", Arguments: `{"city": "Paris"}`, Signature: "EukBCuYB"}, {ID: "up3kf30e", Name: "get_time", Arguments: `{}`}}
			wantCalls(t, resp.ToolCalls, want)
			frags := fragments(chunks)
			for i := range frags {
				frags[i].Signature = want[i].Signature // fragments carry no signature
			}
			wantCalls(t, frags, want)
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"call_without_arguments", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: geminiResponse(`{"functionCall":{"name":"get_time"}}`, `"STOP"`, 1, 1, 0)})
			resp := generate(t, m, ask("Time?"))
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != "{}" {
				t.Errorf("calls = %+v; want one with arguments {}", resp.ToolCalls)
			}
		}},
		{"distinct_ids", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: geminiResponse(call("get_weather", `{"city":"Paris"}`, "", "")+","+call("get_weather", `{"city":"Rome"}`, "", ""), `"STOP"`, 1, 1, 0)})
			resp := generate(t, m, ask("Weather in Paris and Rome?"))
			if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].ID == "" || resp.ToolCalls[0].ID == resp.ToolCalls[1].ID {
				t.Errorf("calls = %+v; want two distinct non-empty IDs", resp.ToolCalls)
			}
		}},
		{"content_parts", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: geminiResponse(`{"text":"Hello"},{"text":" there."}`, `"STOP"`, 1, 1, 0)})
			if resp := generate(t, m, ask("Hi")); resp.Text != "Hello there." {
				t.Errorf("Text = %q", resp.Text)
			}
		}},
		{"usage", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: `{"candidates":[{"content":{"parts":[{"text":"Paris."}],"role":"model"},"finishReason":"STOP","index":0}],` +
				`"usageMetadata":{"cacheTokensDetails":[{"modality":"TEXT","tokenCount":3512}],"cachedContentTokenCount":3512,"candidatesTokenCount":2,"promptTokenCount":3520,"toolUsePromptTokenCount":5,"thoughtsTokenCount":42,"totalTokenCount":3569}}`})
			// promptTokenCount includes the cached part.
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 3525, OutputTokens: 44, CacheReadTokens: 3512, ReasoningTokens: 42})
		}},
		{"thought_signatures_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open,
				Reply{Body: geminiResponse(`{"text":"**Planning** look it up.","thought":true},{"text":"Checking.","thoughtSignature":"EqoeCqce"},`+call("get_weather", `{"city":"Paris"}`, "", "CpYEAXLI"), `"STOP"`, 29, 7, 100)},
				Reply{Body: geminiResponse(`{"text":"Sunny."}`, `"STOP"`, 40, 2, 0)},
			)
			req := ask("Weather in Paris?")
			resp := generate(t, m, req)
			if resp.Reasoning != "**Planning** look it up." || resp.Text != "Checking." || len(resp.Thinking) != 2 || len(resp.ToolCalls) != 1 {
				t.Fatalf("resp = %+v", resp)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], "sunny"))
			generate(t, m, req)
			turn := Path(t, s.Body(1), "contents", 1)
			// The model turn goes back as it came: the thought part, the
			// text with its signature, the call with its signature.
			if Path(t, turn, "role") != "model" || Path(t, turn, "parts", 0, "thought") != true ||
				Path(t, turn, "parts", 1, "text") != "Checking." || Path(t, turn, "parts", 1, "thoughtSignature") != "EqoeCqce" ||
				Path(t, turn, "parts", 2, "functionCall", "name") != "get_weather" || Path(t, turn, "parts", 2, "thoughtSignature") != "CpYEAXLI" ||
				Path(t, turn, "parts", 2, "functionCall", "id") != resp.ToolCalls[0].ID {
				t.Errorf("model turn sent back as %v", turn)
			}
			fr := Path(t, s.Body(1), "contents", 2, "parts", 0, "functionResponse")
			if Path(t, fr, "name") != "get_weather" || Path(t, fr, "id") != resp.ToolCalls[0].ID || Path(t, fr, "response", "output") != "sunny" {
				t.Errorf("function response = %v", fr)
			}
		}},
		{"thoughts_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{
				geminiChunk(`{"text":"Let me ","thought":true}`, "null", 1, 1),
				geminiChunk(`{"text":"think.","thought":true}`, "null", 1, 1),
				geminiChunk(`{"text":"42."}`, "null", 1, 2),
				geminiChunk(`{"text":"","thoughtSignature":"EqQBCgIY"}`, `"STOP"`, 1, 2)}})
			resp, chunks := stream(t, m, ask("Answer?"))
			want := []llm.Thinking{{Text: "Let me think."}, {Signature: "EqQBCgIY"}}
			if resp.Text != "42." || reasoning(chunks) != "Let me think." || len(resp.Thinking) != 2 || resp.Thinking[0] != want[0] || resp.Thinking[1] != want[1] {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"tool_results_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: geminiResponse(`{"text":"Sunny, noon."}`, `"STOP"`, 1, 1, 0)})
			a := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`, Signature: "Sig_A"}
			b := llm.ToolCall{ID: "call_2", Name: "get_time", Arguments: `not json`}
			body := roundTrip(t, s, m, a, b, "contents", "systemInstruction", "parts", 0, "text")
			if Path(t, body, "contents", 1, "parts", 0, "functionCall", "args", "city") != "Paris" ||
				Path(t, body, "contents", 1, "parts", 0, "thoughtSignature") != "Sig_A" ||
				Path(t, body, "contents", 1, "parts", 1, "functionCall", "args") == nil ||
				Path(t, body, "contents", 2, "parts", 0, "functionResponse", "name") != "get_weather" ||
				Path(t, body, "contents", 2, "parts", 1, "functionResponse", "name") != "get_time" ||
				Path(t, body, "contents", 2, "parts", 1, "functionResponse", "id") != "call_2" {
				t.Errorf("contents = %v", body["contents"])
			}
		}},
		{"prompt_blocked", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HATE_SPEECH","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`})
			resp := generate(t, m, ask("Something bad"))
			wantStop(t, resp, llm.StopContentFilter)
		}},
	}
	cases = append(cases, settingsCases(serve, ok, "generationConfig", "maxOutputTokens", "safetySettings", "toolConfig", "cachedContent")...)
	cases = append(cases, stopReasonCases(serve, "finish_reason_", func(reason string) Reply {
		return Reply{Body: geminiResponse(`{"text":"The answer is"}`, `"`+reason+`"`, 1, 1, 0)}
	}, []stopRow{
		{"STOP", llm.StopEnd},
		{"MAX_TOKENS", llm.StopMaxTokens},
		{"SAFETY", llm.StopContentFilter},
		{"RECITATION", llm.StopContentFilter},
		{"PROHIBITED_CONTENT", llm.StopContentFilter},
		{"MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"},
	})...)
	cases = append(cases,
		Case{"finish_max_tokens_no_parts", func(t *testing.T, open Open) {
			// As recorded: the budget went to thinking; content has no parts.
			_, m := serve(t, open, Reply{Body: `{"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":15,"thoughtsTokenCount":2,"totalTokenCount":17}}`})
			resp := generate(t, m, ask("Hi"))
			wantStop(t, resp, llm.StopMaxTokens)
			wantCachedUsage(t, resp, llm.Usage{InputTokens: 15, OutputTokens: 2, ReasoningTokens: 2})
		}},
		Case{"finish_reason_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{geminiChunk(`{"text":"The answer is"}`, `"MAX_TOKENS"`, 1, 1)}})
			resp, _ := stream(t, m, ask("Hi"))
			wantStop(t, resp, llm.StopMaxTokens)
		}},
		Case{"malformed_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{geminiChunk(`{"text":"Hel"}`, "null", 1, 1), `data: {not json`}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"truncated_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{geminiChunk(`{"text":"Hel"}`, "null", 1, 1)}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"stream_error_event", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{SSE: []string{geminiChunk(`{"text":"Hel"}`, "null", 1, 1), `data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`}})
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrProviderUnavailable, 0, true)
		}},
	)
	// Gemini's 429 asks for its wait in the body, as a google.rpc.RetryInfo.
	rateLimited := Reply{Status: 429, Body: `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`}
	cases = append(cases, bodyCases(serve, ok(false).Body, `{"candidates": nope}`, "no_candidates", `{"hello":"world"}`, 200, true)...)
	return append(cases, commonCases(serve, ok, geminiFailure, rateLimited)...)
}
