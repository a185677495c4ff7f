package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/byref/byref/llm"
)

// commonCases are [sharedCases] and the retry cases, for a flavor given
// its server, a successful reply with the text "ok" (streamed when asked),
// an error body that carries the message "scripted failure" and the reply
// of a rate limit that asks for a 7-second wait in the flavor's own way.
func commonCases(serve serveFunc, ok func(stream bool) Reply, failure string, rateLimited Reply) []Case {
	cases := []Case{
		{"retries", func(t *testing.T, open Open) {
			s, m := serve(t, open, rateLimited, Reply{Status: 503, Body: failure}, ok(false))
			resp, err := llm.WithRetry(m, retry).Generate(context.Background(), ask("Hi"))
			if err != nil || resp.Text != "ok" || s.Requests() != 3 {
				t.Errorf("resp %+v, err %v after %d requests; want ok after 3", resp, err, s.Requests())
			}
		}},
		{"retry_after", func(t *testing.T, open Open) {
			_, m := serve(t, open, rateLimited)
			_, err := m.Generate(context.Background(), ask("Hi"))
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter.Seconds() != 7 || !pe.Retryable {
				t.Errorf("err = %v; want a retryable error with RetryAfter 7s", err)
			}
		}},
		{"stream_callback_error", func(t *testing.T, open Open) {
			_, m := serve(t, open, ok(true))
			callbackStops(t, m)
		}},
	}
	return append(cases, sharedCases(serve, httpErrorCases, failure, ok(false))...)
}

// stopRow is a provider's stop reason and what byref maps it to.
type stopRow struct {
	reason string
	want   llm.StopReason
}

// stopReasonCases checks each row's mapping on an answer with the text
// "The answer is" that reply builds for the provider's stop reason.
func stopReasonCases(serve serveFunc, prefix string, reply func(reason string) Reply, rows []stopRow) []Case {
	cases := make([]Case, 0, len(rows))
	for _, sr := range rows {
		cases = append(cases, Case{prefix + sr.reason, func(t *testing.T, open Open) {
			_, m := serve(t, open, reply(sr.reason))
			resp := generate(t, m, ask("Hi"))
			wantStop(t, resp, sr.want)
			if resp.Text != "The answer is" {
				t.Errorf("Text = %q; the cut text is kept", resp.Text)
			}
		}})
	}
	return cases
}

// settingsCases checks that no sampling setting goes out unless the
// caller set it, and that a set cap and temperature do, in the object
// named config ("generationConfig", "inferenceConfig") under the names
// maxKey and "temperature"; unset are the top-level fields a request
// without settings must not carry.
func settingsCases(serve serveFunc, ok func(stream bool) Reply, config, maxKey string, unset ...string) []Case {
	return []Case{
		{"unset_parameters", func(t *testing.T, open Open) {
			s, m := serve(t, open, ok(false))
			generate(t, m, ask("Hi"))
			absent(t, s.Body(0), append(unset, config)...)
		}},
		{"set_parameters", func(t *testing.T, open Open) {
			s, m := serve(t, open, ok(false))
			req := ask("Hi")
			req.MaxTokens, req.Temperature = 100, ptr(0)
			generate(t, m, req)
			c, _ := Path(t, s.Body(0), config).(map[string]any)
			if c[maxKey] != float64(100) || c["temperature"] != float64(0) {
				t.Errorf("%s = %v; want %s 100 and temperature 0", config, c, maxKey)
			}
			absent(t, c, "topP")
		}},
	}
}

// bodyCases check that an answer that is not the API's JSON fails as a
// bad response: malformed JSON, JSON of another shape (the case named
// otherName), and full, a whole answer, cut in half. status is the error's HTTP status
// (200, or 0 where the client library does not tell it), and syntax says
// whether the error wraps the *json.SyntaxError.
func bodyCases(serve serveFunc, full, malformed, otherName, other string, status int, syntax bool) []Case {
	fails := func(body string, syntax bool) func(t *testing.T, open Open) {
		return func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Body: body})
			_, err := m.Generate(context.Background(), ask("Hi"))
			wantKind(t, err, llm.ErrBadResponse, status, false)
			var syn *json.SyntaxError
			if syntax && !errors.As(err, &syn) {
				t.Errorf("err = %v, want it to wrap the *json.SyntaxError", err)
			}
		}
	}
	return []Case{
		{"malformed_body", fails(malformed, syntax)},
		{otherName, fails(other, false)},
		{"truncated_body", fails(full[:len(full)/2], false)},
	}
}

// roundTrip sends, after ask's messages, a second system message, an
// assistant turn with calls a and b and their results ("sunny", "noon"),
// and returns the request's body after checking that the two system
// messages went as one text at systemPath and the conversation as three
// messages (under messagesKey): user, assistant, and one user message with
// both results. b's result names its call by ID alone, as a caller may.
func roundTrip(t *testing.T, s *Server, m llm.Model, a, b llm.ToolCall, messagesKey string, systemPath ...any) map[string]any {
	t.Helper()
	req := ask("Weather and time?")
	req.Messages = append(req.Messages, llm.SystemMessage("Be brief."),
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{a, b}},
		llm.ToolResultMessage(a, "sunny"), llm.Message{Role: llm.RoleTool, ToolCallID: b.ID, Text: "noon"})
	generate(t, m, req)
	body := s.Body(0)
	if got := Path(t, body, systemPath...); got != "You are terse.\n\nBe brief." {
		t.Errorf("system = %q; want both system messages joined", got)
	}
	if n := len(body[messagesKey].([]any)); n != 3 {
		t.Fatalf("%d messages; want user, assistant, and one user message with both results", n)
	}
	return body
}
