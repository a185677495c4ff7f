package llmtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// The fixtures of this file follow the Amazon Bedrock API reference,
// "Converse" and "ConverseStream" (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html),
// and the shapes of the recorded exchanges in shared/recordings/bedrock:
// streams are AWS event streams, one JSON payload per message.

// converseResponse is a Converse response body.
func converseResponse(content, stop, usage string) string {
	return `{"metrics":{"latencyMs":268},"output":{"message":{"content":[` + content + `],"role":"assistant"}},"stopReason":"` + stop + `","usage":` + usage + `}`
}

// converseUsage is a usage object without cache counts.
func converseUsage(in, out int) string {
	return fmt.Sprintf(`{"inputTokens":%d,"outputTokens":%d,"totalTokens":%d}`, in, out, in+out)
}

// converseStream frames a ConverseStream: messageStart, the given events,
// messageStop with the stop reason and metadata with the usage.
func converseStream(stop, usage string, events ...string) Reply {
	var b strings.Builder
	b.WriteString(converseEvent("messageStart", `{"p":"abcdefghijklmnopqr","role":"assistant"}`))
	for _, e := range events {
		b.WriteString(e)
	}
	b.WriteString(converseEvent("messageStop", `{"p":"abcdefghijklmno","stopReason":"`+stop+`"}`))
	b.WriteString(converseEvent("metadata", `{"metrics":{"latencyMs":522},"p":"abcdefgh","usage":`+usage+`}`))
	return Reply{ContentType: "application/vnd.amazon.eventstream", Body: b.String()}
}

func blockDeltaEvent(i int, delta string) string {
	return converseEvent("contentBlockDelta", fmt.Sprintf(`{"contentBlockIndex":%d,"delta":%s,"p":"abcdefghijklmn"}`, i, delta))
}

func blockStartEvent(i int, start string) string {
	return converseEvent("contentBlockStart", fmt.Sprintf(`{"contentBlockIndex":%d,"start":%s,"p":"abcdefghijklmn"}`, i, start))
}

func blockStopEvent(i int) string {
	return converseEvent("contentBlockStop", fmt.Sprintf(`{"contentBlockIndex":%d,"p":"abcdefghijklmnop"}`, i))
}

func bedrockCases() []Case {
	serve := func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model) {
		s := NewServer(t, "", replies...)
		return s, open(t, s.URL())
	}
	ok := func(stream bool) Reply {
		if stream {
			return converseStream("end_turn", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"o"}`), blockDeltaEvent(0, `{"text":"k"}`), blockStopEvent(0))
		}
		return Reply{Body: converseResponse(`{"text":"ok"}`, "end_turn", converseUsage(1, 1))}
	}
	toolUse := `{"toolUse":{"input":{"city":"Paris"},"name":"get_weather","toolUseId":"tooluse_nz0CoSg6TyuVDvWTCaatSw"}}`
	cases := []Case{
		{"text", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: converseResponse(`{"text":"Hello! How can I assist you today?"}`, "end_turn", converseUsage(7, 30))})
			resp := generate(t, m, ask("Hi"))
			if resp.Text != "Hello! How can I assist you today?" {
				t.Errorf("resp = %+v", resp)
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 7, 30)
			if p := s.Path(0); !strings.HasPrefix(p, "/model/") || !strings.HasSuffix(p, "/converse") {
				t.Errorf("path %s; want /model/{id}/converse", p)
			}
			if s.Header(0).Get("Authorization") == "" {
				t.Error("the request is not signed")
			}
			b := s.Body(0)
			if Path(t, b, "system", 0, "text") != "You are terse." || Path(t, b, "messages", 0, "role") != "user" ||
				Path(t, b, "messages", 0, "content", 0, "text") != "Hi" ||
				Path(t, b, "toolConfig", "tools", 1, "toolSpec", "inputSchema", "json", "$defs") == nil {
				t.Errorf("body = %v", b)
			}
		}},
		{"text_stream", func(t *testing.T, open Open) {
			s, m := serve(t, open, converseStream("end_turn", converseUsage(13, 82), blockDeltaEvent(0, `{"text":"Hel"}`), blockDeltaEvent(0, `{"text":"lo."}`), blockStopEvent(0)))
			resp, chunks := stream(t, m, ask("Hi"))
			if resp.Text != "Hello." || text(chunks) != "Hello." {
				t.Errorf("text %q, chunks %q", resp.Text, text(chunks))
			}
			wantStop(t, resp, llm.StopEnd)
			wantUsage(t, resp, 13, 82)
			if p := s.Path(0); !strings.HasSuffix(p, "/converse-stream") {
				t.Errorf("path %s; want /model/{id}/converse-stream", p)
			}
		}},
		{"tool_call", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: converseResponse(`{"text":"I'll check."},`+toolUse, "tool_use", converseUsage(10, 5))})
			resp := generate(t, m, ask("Weather in Paris?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{{ID: "tooluse_nz0CoSg6TyuVDvWTCaatSw", Name: "get_weather", Arguments: `{"city":"Paris"}`}})
			wantStop(t, resp, llm.StopToolCalls)
			if resp.Text != "I'll check." {
				t.Errorf("Text = %q", resp.Text)
			}
		}},
		{"parallel_tool_calls", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: converseResponse(toolUse+`,{"toolUse":{"input":{"city":"<<var:home>>"},"name":"get_time","toolUseId":"tooluse_KBNwKhm1RwK4iTLuHbyOtg"}}`, "tool_use", converseUsage(10, 5))})
			resp := generate(t, m, ask("Weather in Paris, time at home?"))
			wantCalls(t, resp.ToolCalls, []llm.ToolCall{
				{ID: "tooluse_nz0CoSg6TyuVDvWTCaatSw", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "tooluse_KBNwKhm1RwK4iTLuHbyOtg", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
			})
		}},
		{"tool_calls_stream_split_arguments", func(t *testing.T, open Open) {
			_, m := serve(t, open, converseStream("tool_use", converseUsage(471, 91),
				blockDeltaEvent(0, `{"text":"Checking."}`), blockStopEvent(0),
				blockStartEvent(1, `{"toolUse":{"name":"get_weather","toolUseId":"tooluse_01"}}`),
				blockDeltaEvent(1, `{"toolUse":{"input":"{\"city\": \"Pa"}}`),
				blockDeltaEvent(1, `{"toolUse":{"input":"ris\"}"}}`),
				blockStopEvent(1),
				blockStartEvent(2, `{"toolUse":{"name":"get_time","toolUseId":"tooluse_02"}}`),
				blockStopEvent(2)))
			resp, chunks := stream(t, m, ask("Weather in Paris, and the time?"))
			want := []llm.ToolCall{{ID: "tooluse_01", Name: "get_weather", Arguments: `{"city": "Paris"}`}, {ID: "tooluse_02", Name: "get_time", Arguments: `{}`}}
			wantCalls(t, resp.ToolCalls, want)
			wantCalls(t, fragments(chunks), want)
			if resp.Text != "Checking." || text(chunks) != "Checking." {
				t.Errorf("text %q", resp.Text)
			}
			wantStop(t, resp, llm.StopToolCalls)
		}},
		{"content_parts", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: converseResponse(`{"text":"Hello"},{"text":" there."}`, "end_turn", converseUsage(1, 1))})
			if resp := generate(t, m, ask("Hi")); resp.Text != "Hello there." {
				t.Errorf("Text = %q", resp.Text)
			}
		}},
		{"usage", func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: converseResponse(`{"text":"21"}`, "end_turn",
				`{"cacheReadInputTokenCount":2000,"cacheReadInputTokens":2000,"cacheWriteInputTokenCount":1000,"cacheWriteInputTokens":1000,"inputTokens":50,"outputTokens":20,"serverToolUsage":{},"totalTokens":3070}`)})
			// inputTokens excludes the cache's reads and writes; Usage
			// counts them in InputTokens and apart.
			wantCachedUsage(t, generate(t, m, ask("Hi")), llm.Usage{InputTokens: 3050, OutputTokens: 20, CacheReadTokens: 2000, CacheWriteTokens: 1000})
		}},
		{"reasoning_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open,
				Reply{Body: converseResponse(`{"reasoningContent":{"reasoningText":{"text":"Paris is a city; look it up.","signature":"Eu0CCkgIBxAB"}}},`+
					`{"reasoningContent":{"redactedContent":"EmwKAhgBEgy3va3p"}},`+toolUse, "tool_use", converseUsage(10, 5))},
				Reply{Body: converseResponse(`{"text":"Sunny."}`, "end_turn", converseUsage(10, 5))},
			)
			req := ask("Weather in Paris?")
			resp := generate(t, m, req)
			if resp.Reasoning != "Paris is a city; look it up." || len(resp.Thinking) != 2 || resp.Thinking[0].Signature != "Eu0CCkgIBxAB" || resp.Thinking[1].Redacted != "EmwKAhgBEgy3va3p" {
				t.Fatalf("resp = %+v", resp)
			}
			req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], "sunny"))
			generate(t, m, req)
			turn := Path(t, s.Body(1), "messages", 1)
			// The assistant turn goes back with its reasoning first,
			// unchanged, as Claude on Bedrock requires with tool use.
			if Path(t, turn, "content", 0, "reasoningContent", "reasoningText", "signature") != "Eu0CCkgIBxAB" ||
				Path(t, turn, "content", 0, "reasoningContent", "reasoningText", "text") != "Paris is a city; look it up." ||
				Path(t, turn, "content", 1, "reasoningContent", "redactedContent") != "EmwKAhgBEgy3va3p" ||
				Path(t, turn, "content", 2, "toolUse", "toolUseId") != "tooluse_nz0CoSg6TyuVDvWTCaatSw" {
				t.Errorf("assistant turn sent back as %v", turn)
			}
		}},
		{"reasoning_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, converseStream("end_turn", converseUsage(36, 73),
				blockDeltaEvent(0, `{"reasoningContent":{"text":"Let me "}}`),
				blockDeltaEvent(0, `{"reasoningContent":{"text":"think."}}`),
				blockDeltaEvent(0, `{"reasoningContent":{"signature":"EqQBCgIY"}}`),
				blockStopEvent(0),
				blockDeltaEvent(1, `{"text":"42."}`),
				blockStopEvent(1)))
			resp, chunks := stream(t, m, ask("Answer?"))
			want := llm.Thinking{Text: "Let me think.", Signature: "EqQBCgIY"}
			if resp.Text != "42." || reasoning(chunks) != "Let me think." || len(resp.Thinking) != 1 || resp.Thinking[0] != want {
				t.Errorf("resp = %+v", resp)
			}
		}},
		{"tool_results_round_trip", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Body: converseResponse(`{"text":"Sunny, noon."}`, "end_turn", converseUsage(1, 1))})
			a := llm.ToolCall{ID: "tooluse_1", Name: "get_weather", Arguments: `{"city":"Paris","days":12345678901234567890}`}
			b := llm.ToolCall{ID: "tooluse_2", Name: "get_time", Arguments: `not json`}
			body := roundTrip(t, s, m, a, b, "messages", "system", 0, "text")
			if Path(t, body, "messages", 1, "content", 0, "toolUse", "input", "city") != "Paris" ||
				!strings.Contains(string(s.Raw(0)), `"days":12345678901234567890`) ||
				Path(t, body, "messages", 1, "content", 1, "toolUse", "input") == nil ||
				Path(t, body, "messages", 2, "content", 0, "toolResult", "toolUseId") != "tooluse_1" ||
				Path(t, body, "messages", 2, "content", 1, "toolResult", "toolUseId") != "tooluse_2" ||
				Path(t, body, "messages", 2, "content", 1, "toolResult", "content", 0, "text") != "noon" {
				t.Errorf("messages = %s", s.Raw(0))
			}
		}},
	}
	cases = append(cases, settingsCases(serve, ok, "inferenceConfig", "maxTokens", "additionalModelRequestFields", "guardrailConfig", "modelId")...)
	cases = append(cases, stopReasonCases(serve, "stop_reason_", func(reason string) Reply {
		return Reply{Body: converseResponse(`{"text":"The answer is"}`, reason, converseUsage(1, 1))}
	}, []stopRow{
		{"end_turn", llm.StopEnd},
		{"stop_sequence", llm.StopEnd},
		{"max_tokens", llm.StopMaxTokens},
		{"model_context_window_exceeded", llm.StopMaxTokens},
		{"guardrail_intervened", llm.StopContentFilter},
		{"content_filtered", llm.StopContentFilter},
		{"malformed_model_output", "malformed_model_output"},
	})...)
	cases = append(cases,
		Case{"stop_reason_max_tokens_stream", func(t *testing.T, open Open) {
			_, m := serve(t, open, converseStream("max_tokens", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"The answer is"}`), blockStopEvent(0)))
			resp, _ := stream(t, m, ask("Hi"))
			wantStop(t, resp, llm.StopMaxTokens)
		}},
		Case{"truncated_stream", func(t *testing.T, open Open) {
			r := converseStream("end_turn", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"Hel"}`))
			cut := converseEvent("messageStart", `{"p":"abcdefghijklmnopqr","role":"assistant"}`) + blockDeltaEvent(0, `{"text":"Hel"}`)
			r.Body = r.Body[:len(cut)]
			_, m := serve(t, open, r)
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"corrupt_stream", func(t *testing.T, open Open) {
			r := converseStream("end_turn", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"Hel"}`))
			b := []byte(r.Body)
			b[len(b)/2] ^= 0xff // the message CRC no longer matches
			r.Body = string(b)
			_, m := serve(t, open, r)
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrBadResponse, 0, false)
		}},
		Case{"stream_exception", func(t *testing.T, open Open) {
			r := converseStream("end_turn", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"Hel"}`), converseException("throttlingException", "Too many tokens, please wait before trying again."))
			_, m := serve(t, open, r)
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrRateLimited, 0, true)
		}},
		Case{"stream_server_exception", func(t *testing.T, open Open) {
			r := converseStream("end_turn", converseUsage(1, 1), blockDeltaEvent(0, `{"text":"Hel"}`), converseException("modelStreamErrorException", "The model stopped."))
			_, m := serve(t, open, r)
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { return nil })
			wantKind(t, err, llm.ErrProviderUnavailable, 0, true)
		}},
	)
	// Bedrock's errors are {"message": ...}, their type in x-amzn-ErrorType.
	rateLimited := Reply{Status: 429, Header: map[string]string{"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", "Retry-After": "7"},
		Body: `{"message":"Too many requests, please wait before trying again."}`}
	// The SDK reports no status for an answer it could not read.
	cases = append(cases, bodyCases(serve, ok(false).Body, `{"output": nope}`, "not_a_message", `{"output":{"image":{}},"stopReason":"end_turn"}`, 0, false)...)
	return append(cases, commonCases(serve, ok, `{"message":"scripted failure"}`, rateLimited)...)
}
