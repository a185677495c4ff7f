package recorded

import (
	"encoding/json"
	"maps"
	"sort"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// This file reads the chat completions recordings (openai-chat/,
// openrouter/, and Azure's chat deployments and v1 endpoint) as
// responses.go reads the Responses API's.

// ChatRequest returns the llm.Request a recorded chat completions request
// carries, and whether it streams: an assistant message's content and
// tool_calls become its text and calls; a tool message a tool result.
func ChatRequest(t *testing.T, r *Recording) (llm.Request, bool) {
	t.Helper()
	body := r.RequestBody(t)
	var req llm.Request
	for _, v := range list(body["messages"]) {
		msg := v.(map[string]any)
		text := contentText(msg["content"])
		switch str(msg["role"]) {
		case "system", "developer":
			req.Messages = append(req.Messages, llm.SystemMessage(text))
		case "user":
			req.Messages = append(req.Messages, llm.UserMessage(text))
		case "assistant":
			m := llm.Message{Role: llm.RoleAssistant, Text: text}
			for _, c := range list(msg["tool_calls"]) {
				m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: str(path(c, "id")), Name: str(path(c, "function", "name")), Arguments: str(path(c, "function", "arguments"))})
			}
			req.Messages = append(req.Messages, m)
		case "tool":
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: str(msg["tool_call_id"]), Text: text})
		default:
			t.Fatalf("%s: message of role %v", r.Name, msg["role"])
		}
	}
	for _, v := range list(body["tools"]) {
		params, _ := json.Marshal(path(v, "function", "parameters"))
		strict, _ := path(v, "function", "strict").(bool)
		req.Tools = append(req.Tools, llm.Tool{Name: str(path(v, "function", "name")), Description: str(path(v, "function", "description")), Parameters: params, Strict: strict})
	}
	if f, ok := path(body, "response_format", "json_schema").(map[string]any); ok {
		schema, _ := json.Marshal(f["schema"])
		strict, _ := f["strict"].(bool)
		req.ResponseFormat = &llm.ResponseFormat{Name: str(f["name"]), Description: str(f["description"]), Schema: schema, Strict: strict}
	}
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		if n, ok := body[k].(float64); ok {
			req.MaxTokens = int(n)
		}
	}
	if v, ok := body["temperature"].(float64); ok {
		req.Temperature = &v
	}
	req.CacheKey = str(body["prompt_cache_key"])
	stream, _ := body["stream"].(bool)
	return req, stream || r.Streamed()
}

// ChatExpected reads a recorded chat completions answer: the first
// choice's message of a JSON body, or its deltas added up over a stream,
// with the last usage and finish reason.
func ChatExpected(t *testing.T, r *Recording) Expected {
	t.Helper()
	exp := Expected{Status: r.Response.Status}
	var objs []map[string]any
	if r.Streamed() {
		for _, line := range strings.Split(r.Response.Body, "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			var obj map[string]any
			if ok && json.Unmarshal([]byte(data), &obj) == nil {
				objs = append(objs, obj)
			}
		}
	} else {
		var obj map[string]any
		if err := json.Unmarshal([]byte(r.Response.Body), &obj); err != nil {
			t.Fatalf("%s: response body: %v", r.Name, err)
		}
		objs = append(objs, obj)
	}
	if exp.Status >= 300 {
		exp.Message = str(path(objs[0], "error", "message"))
		return exp
	}
	finish := ""
	calls := map[int]*llm.ToolCall{}
	var order []int
	for _, obj := range objs {
		if u, ok := obj["usage"].(map[string]any); ok {
			exp.Usage = llm.Usage{
				InputTokens: num(u["prompt_tokens"]), OutputTokens: num(u["completion_tokens"]),
				CacheReadTokens:  num(path(u, "prompt_tokens_details", "cached_tokens")),
				CacheWriteTokens: num(path(u, "prompt_tokens_details", "cache_write_tokens")),
				ReasoningTokens:  num(path(u, "completion_tokens_details", "reasoning_tokens")),
			}
			exp.Usage.Cost, _ = u["cost"].(float64)
		}
		choices := list(obj["choices"])
		if len(choices) == 0 {
			continue
		}
		ch := choices[0].(map[string]any)
		if f := str(ch["finish_reason"]); f != "" {
			finish = f
		}
		msg, _ := ch["message"].(map[string]any)
		if msg == nil {
			msg, _ = ch["delta"].(map[string]any)
		}
		exp.Text += contentText(msg["content"])
		exp.Refusal += str(msg["refusal"])
		exp.Reasoning += str(msg["reasoning_content"]) + str(msg["reasoning"])
		for i, c := range list(msg["tool_calls"]) {
			idx := i
			if n, ok := path(c, "index").(float64); ok {
				idx = int(n)
			}
			if calls[idx] == nil {
				calls[idx] = &llm.ToolCall{}
				order = append(order, idx)
			}
			tc := calls[idx]
			tc.ID += str(path(c, "id"))
			tc.Name += str(path(c, "function", "name"))
			tc.Arguments += str(path(c, "function", "arguments"))
		}
	}
	sort.Ints(order)
	for _, i := range order {
		exp.Calls = append(exp.Calls, *calls[i])
	}
	switch {
	case exp.Refusal != "":
		exp.Stop = llm.StopRefusal
	case finish == "length":
		exp.Stop = llm.StopMaxTokens
	case finish == "content_filter":
		exp.Stop = llm.StopContentFilter
	case finish == "tool_calls" || len(exp.Calls) > 0:
		exp.Stop = llm.StopToolCalls
	default:
		exp.Stop = llm.StopEnd
	}
	return exp
}

// The keys chat completions accept (OpenAI's API reference, "Create chat
// completion"), and in a message and a tool.
var (
	chatKeys = []string{"model", "messages", "max_completion_tokens", "max_tokens", "temperature", "top_p", "stream",
		"stream_options", "tools", "tool_choice", "parallel_tool_calls", "response_format", "prompt_cache_key",
		"reasoning_effort", "seed", "stop", "n", "user", "metadata", "store", "service_tier", "frequency_penalty",
		"presence_penalty", "logit_bias", "logprobs", "top_logprobs", "prediction", "modalities", "audio", "web_search_options",
		"safety_identifier", "verbosity", "prompt_cache_options"}
	chatMessageKeys = map[string][]string{
		"system":    {"role", "content", "name"},
		"developer": {"role", "content", "name"},
		"user":      {"role", "content", "name"},
		"assistant": {"role", "content", "name", "tool_calls", "refusal", "audio"},
		"tool":      {"role", "content", "tool_call_id"},
	}
)

// CheckChatRequest compares a client's chat completions body with the
// recorded one, as CheckResponsesRequest does for the Responses API.
func CheckChatRequest(got, want map[string]any) []string {
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, sprintf(format, args...)) }
	if n, ok := want["max_tokens"]; ok && got["max_tokens"] == nil {
		// max_completion_tokens is OpenAI's (and Azure's) name for
		// max_tokens, which reasoning models refuse.
		want = maps.Clone(want)
		delete(want, "max_tokens")
		want["max_completion_tokens"] = n
	}
	if u := Unknown(got, chatKeys...); len(u) > 0 {
		add("keys the API rejects: %v", u)
	}
	if m := Missing(got, "model", "messages"); len(m) > 0 {
		add("required keys missing: %v", m)
	}
	for k, v := range want {
		if v == nil || defaultChatSetting(k, v) {
			continue
		}
		if _, ok := got[k]; !ok {
			add("recorded key %q (%v) not sent", k, short(v))
		}
	}
	for _, k := range []string{"model", "response_format", "max_completion_tokens", "max_tokens", "temperature", "prompt_cache_key"} {
		if want[k] != nil && !equal(compact(got[k]), compact(want[k])) {
			add("%s = %v, recorded %v", k, short(got[k]), short(want[k]))
		}
	}
	gotMsgs, wantMsgs := list(got["messages"]), list(want["messages"])
	if len(gotMsgs) != len(wantMsgs) {
		add("%d messages, recorded %d", len(gotMsgs), len(wantMsgs))
	}
	for i, v := range gotMsgs {
		role := str(path(v, "role"))
		if u := Unknown(v, chatMessageKeys[role]...); len(u) > 0 || chatMessageKeys[role] == nil {
			add("messages[%d] (%s): keys the API rejects: %v", i, role, u)
		}
		if i < len(wantMsgs) {
			if g, w := normMessage(v), normMessage(wantMsgs[i]); !equal(g, w) {
				add("messages[%d] = %v, recorded %v", i, short(g), short(w))
			}
		}
	}
	gotTools, wantTools := list(got["tools"]), list(want["tools"])
	if len(gotTools) != len(wantTools) {
		add("%d tools, recorded %d", len(gotTools), len(wantTools))
	}
	for i := range min(len(gotTools), len(wantTools)) {
		for _, k := range []string{"name", "parameters"} {
			if g, w := path(gotTools[i], "function", k), path(wantTools[i], "function", k); !equal(g, w) {
				add("tools[%d].function.%s = %v, recorded %v", i, k, short(g), short(w))
			}
		}
	}
	return bad
}

// defaultChatSetting reports whether a recorded key restates a default
// or is a setting llm.Request or the client does not have (documented):
// a tool choice, OpenRouter's provider routing and reasoning settings,
// OpenAI's prompt_cache_options.
func defaultChatSetting(k string, v any) bool {
	switch k {
	case "stream":
		return v == false
	case "tool_choice", "provider", "reasoning", "prompt_cache_options":
		return true
	}
	return false
}

// normMessage is a message as the model reads it: role, text, calls and
// the call it answers.
func normMessage(v any) map[string]any {
	out := map[string]any{"role": path(v, "role"), "text": contentText(path(v, "content"))}
	var calls []any
	for _, c := range list(path(v, "tool_calls")) {
		calls = append(calls, []any{path(c, "id"), path(c, "function", "name"), path(c, "function", "arguments")})
	}
	out["calls"], out["answers"] = calls, path(v, "tool_call_id")
	return out
}
