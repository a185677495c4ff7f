package recorded

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// This file reads the Anthropic Messages recordings (anthropic/), which
// show prompt-cache accounting, as responses.go reads the Responses API's.

// AnthropicRequest returns the llm.Request a recorded Messages request
// carries: its system blocks as one system message, its messages' text.
func AnthropicRequest(t *testing.T, r *Recording) (llm.Request, bool) {
	t.Helper()
	body := r.RequestBody(t)
	var req llm.Request
	if sys := body["system"]; sys != nil {
		req.Messages = append(req.Messages, llm.SystemMessage(contentText(sys)))
	}
	for _, v := range list(body["messages"]) {
		text := contentText(path(v, "content"))
		if path(v, "role") == "assistant" {
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Text: text})
		} else {
			req.Messages = append(req.Messages, llm.UserMessage(text))
		}
	}
	if n, ok := body["max_tokens"].(float64); ok {
		req.MaxTokens = int(n)
	}
	stream, _ := body["stream"].(bool)
	return req, stream || r.Streamed()
}

// AnthropicExpected reads a recorded Messages answer: the text blocks,
// the stop reason, and the usage with cache reads and writes counted in
// the input (byref's llm.Usage), summed over the iterations of a message
// the server compacted first. A stream's usage is message_start's, with
// message_delta's counts over it.
func AnthropicExpected(t *testing.T, r *Recording) Expected {
	t.Helper()
	exp := Expected{Status: r.Response.Status}
	var msg map[string]any
	if !r.Streamed() {
		if err := json.Unmarshal([]byte(r.Response.Body), &msg); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
	}
	for _, line := range strings.Split(r.Response.Body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		var ev map[string]any
		if !ok || json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		switch ev["type"] {
		case "message_start":
			msg, _ = ev["message"].(map[string]any)
		case "content_block_delta":
			if path(ev, "delta", "type") == "text_delta" {
				exp.Text += str(path(ev, "delta", "text"))
			}
		case "message_delta":
			msg["stop_reason"] = path(ev, "delta", "stop_reason")
			u := msg["usage"].(map[string]any)
			for k, v := range ev["usage"].(map[string]any) {
				if k == "output_tokens" || k == "iterations" || k == "input_tokens" && num(v) > 0 {
					u[k] = v
				}
			}
		}
	}
	if exp.Status >= 300 {
		exp.Message = str(path(msg, "error", "message"))
		return exp
	}
	for _, b := range list(msg["content"]) {
		if path(b, "type") == "text" {
			exp.Text += str(path(b, "text"))
		}
	}
	usage := func(u any) llm.Usage {
		read, write := num(path(u, "cache_read_input_tokens")), num(path(u, "cache_creation_input_tokens"))
		return llm.Usage{InputTokens: num(path(u, "input_tokens")) + read + write, OutputTokens: num(path(u, "output_tokens")), CacheReadTokens: read, CacheWriteTokens: write}
	}
	if its := list(path(msg, "usage", "iterations")); len(its) > 0 {
		for _, it := range its {
			exp.Usage = exp.Usage.Add(usage(it))
		}
	} else {
		exp.Usage = usage(msg["usage"])
	}
	switch msg["stop_reason"] {
	case "end_turn", "stop_sequence":
		exp.Stop = llm.StopEnd
	case "max_tokens":
		exp.Stop = llm.StopMaxTokens
	case "tool_use":
		exp.Stop = llm.StopToolCalls
	default:
		exp.Stop = llm.StopReason(str(msg["stop_reason"]))
	}
	return exp
}

// anthropicKeys are the keys the Messages API accepts in a request.
var anthropicKeys = []string{"model", "messages", "max_tokens", "system", "tools", "tool_choice", "temperature", "top_p", "top_k",
	"stream", "stop_sequences", "metadata", "thinking", "cache_control", "context_management", "service_tier", "container", "mcp_servers"}

// CheckAnthropicRequest compares a client's Messages body with the
// recorded one: no key the API rejects, the required keys present, the
// same model and the same text in the system prompt and each message.
func CheckAnthropicRequest(got, want map[string]any) []string {
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, sprintf(format, args...)) }
	if u := Unknown(got, anthropicKeys...); len(u) > 0 {
		add("keys the API rejects: %v", u)
	}
	if m := Missing(got, "model", "messages", "max_tokens"); len(m) > 0 {
		add("required keys missing: %v", m)
	}
	if got["model"] != want["model"] || got["max_tokens"] != want["max_tokens"] {
		add("model %v, max_tokens %v; recorded %v, %v", got["model"], got["max_tokens"], want["model"], want["max_tokens"])
	}
	if g, w := contentText(got["system"]), contentText(want["system"]); g != w {
		add("system = %v, recorded %v", short(g), short(w))
	}
	gotMsgs, wantMsgs := list(got["messages"]), list(want["messages"])
	if len(gotMsgs) != len(wantMsgs) {
		add("%d messages, recorded %d", len(gotMsgs), len(wantMsgs))
	}
	for i := range min(len(gotMsgs), len(wantMsgs)) {
		if g, w := contentText(path(gotMsgs[i], "content")), contentText(path(wantMsgs[i], "content")); g != w || path(gotMsgs[i], "role") != path(wantMsgs[i], "role") {
			add("messages[%d] = %v, recorded %v", i, short(gotMsgs[i]), short(wantMsgs[i]))
		}
	}
	return bad
}
