package recorded

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// This file reads the Responses API's recordings (openai-responses/ and
// Azure's v1 Responses): the llm.Request a recorded request carries, the
// result a recorded answer says, and the checks of a client's request
// against the recorded one. It walks the JSON as maps, apart from the
// client's own decoding, so that it checks the client rather than repeat it.

// ResponsesSetup is what a recorded Responses request asks of a client
// beyond its llm.Request: the reasoning parameters, and whether it asks for
// encrypted reasoning and streams.
type ResponsesSetup struct {
	Effort, Summary string
	Encrypted       bool
	Stream          bool
}

// ResponsesRequest returns the llm.Request a recorded Responses request
// carries, and its setup: instructions become a system message; a run of
// reasoning, assistant message and function_call items one assistant
// message (reasoning items as llm.Thinking blocks, one per summary part,
// the encrypted_content on the first); function_call_output a tool
// message.
func ResponsesRequest(t *testing.T, r *Recording) (llm.Request, ResponsesSetup) {
	t.Helper()
	body := r.RequestBody(t)
	var req llm.Request
	setup := ResponsesSetup{Stream: r.Streamed()}
	if body == nil {
		req.Messages = []llm.Message{llm.UserMessage("(the recording kept no request)")}
		setup.Encrypted = strings.Contains(r.Response.Body, `"encrypted_content"`)
		return req, setup
	}
	if s, _ := body["instructions"].(string); s != "" {
		req.Messages = append(req.Messages, llm.SystemMessage(s))
	}
	var cur *llm.Message
	flush := func() {
		if cur != nil {
			req.Messages = append(req.Messages, *cur)
			cur = nil
		}
	}
	assistant := func() *llm.Message {
		if cur == nil {
			cur = &llm.Message{Role: llm.RoleAssistant}
		}
		return cur
	}
	for _, v := range list(body["input"]) {
		it := v.(map[string]any)
		switch itemType(it) {
		case "message":
			role := str(it["role"])
			if role == "assistant" {
				assistant().Text += contentText(it["content"])
				continue
			}
			flush()
			switch role {
			case "system", "developer":
				req.Messages = append(req.Messages, llm.SystemMessage(contentText(it["content"])))
			default:
				req.Messages = append(req.Messages, llm.UserMessage(contentText(it["content"])))
			}
		case "reasoning":
			a := assistant()
			parts := summaryTexts(it)
			n := max(len(parts), 1)
			for i := range n {
				b := llm.Thinking{Provider: "openai-responses", ID: str(it["id"])}
				if i < len(parts) {
					b.Text = parts[i]
				}
				if i == 0 {
					b.Signature = str(it["encrypted_content"])
				}
				a.Thinking = append(a.Thinking, b)
			}
		case "function_call":
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: str(it["call_id"]), Name: str(it["name"]), Arguments: str(it["arguments"])})
		case "function_call_output":
			flush()
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: str(it["call_id"]), Text: str(it["output"])})
		default:
			t.Fatalf("%s: input item of type %q", r.Name, itemType(it))
		}
	}
	flush()
	for _, v := range list(body["tools"]) {
		tl := v.(map[string]any)
		params, _ := json.Marshal(tl["parameters"])
		strict, _ := tl["strict"].(bool)
		req.Tools = append(req.Tools, llm.Tool{Name: str(tl["name"]), Description: str(tl["description"]), Parameters: params, Strict: strict})
	}
	if f, ok := path(body, "text", "format").(map[string]any); ok && f["type"] == "json_schema" {
		schema, _ := json.Marshal(f["schema"])
		strict, _ := f["strict"].(bool)
		req.ResponseFormat = &llm.ResponseFormat{Name: str(f["name"]), Description: str(f["description"]), Schema: schema, Strict: strict}
	}
	if n, ok := body["max_output_tokens"].(float64); ok {
		req.MaxTokens = int(n)
	}
	if v, ok := body["temperature"].(float64); ok {
		req.Temperature = &v
	}
	if v, ok := body["top_p"].(float64); ok {
		req.TopP = &v
	}
	req.CacheKey = str(body["prompt_cache_key"])
	setup.Effort, setup.Summary = str(path(body, "reasoning", "effort")), str(path(body, "reasoning", "summary"))
	for _, v := range list(body["include"]) {
		setup.Encrypted = setup.Encrypted || v == "reasoning.encrypted_content"
	}
	if s, ok := body["stream"].(bool); ok {
		setup.Stream = s
	}
	return req, setup
}

// Expected is what a recorded answer says the client's result is.
type Expected struct {
	// Status is the answer's HTTP status; an error when it is not 2xx.
	Status    int
	Text      string
	Refusal   string
	Reasoning string
	Calls     []llm.ToolCall
	Usage     llm.Usage
	Stop      llm.StopReason
	// Thinking counts the reasoning items, and Encrypted those of them
	// with encrypted_content.
	Thinking, Encrypted int
	// Message is the provider's error message, for an error.
	Message string
}

// ResponsesExpected reads a recorded Responses answer: the response object
// of a JSON body, or of the stream's response.completed (or .incomplete)
// event.
func ResponsesExpected(t *testing.T, r *Recording) Expected {
	t.Helper()
	exp := Expected{Status: r.Response.Status}
	var obj map[string]any
	if r.Streamed() {
		for _, line := range strings.Split(r.Response.Body, "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var ev map[string]any
			if json.Unmarshal([]byte(data), &ev) == nil && (ev["type"] == "response.completed" || ev["type"] == "response.incomplete") {
				obj, _ = ev["response"].(map[string]any)
			}
		}
	} else if err := json.Unmarshal([]byte(r.Response.Body), &obj); err != nil {
		t.Fatalf("%s: response body: %v", r.Name, err)
	}
	if exp.Status >= 300 {
		exp.Message = str(path(obj, "error", "message"))
		return exp
	}
	if obj == nil {
		t.Fatalf("%s: no response object in the recorded answer", r.Name)
	}
	var summary []string
	for _, v := range list(obj["output"]) {
		it := v.(map[string]any)
		switch itemType(it) {
		case "message":
			for _, p := range list(it["content"]) {
				pm := p.(map[string]any)
				exp.Text += str(pm["text"])
				exp.Refusal += str(pm["refusal"])
			}
		case "reasoning":
			exp.Thinking++
			if str(it["encrypted_content"]) != "" {
				exp.Encrypted++
			}
			summary = append(summary, summaryTexts(it)...)
		case "function_call":
			exp.Calls = append(exp.Calls, llm.ToolCall{ID: str(it["call_id"]), Name: str(it["name"]), Arguments: str(it["arguments"])})
		}
	}
	exp.Reasoning = strings.Join(summary, "\n\n")
	exp.Usage = llm.Usage{
		InputTokens: num(path(obj, "usage", "input_tokens")), OutputTokens: num(path(obj, "usage", "output_tokens")),
		CacheReadTokens: num(path(obj, "usage", "input_tokens_details", "cached_tokens")),
		ReasoningTokens: num(path(obj, "usage", "output_tokens_details", "reasoning_tokens")),
	}
	switch {
	case obj["status"] == "incomplete" && path(obj, "incomplete_details", "reason") == "max_output_tokens":
		exp.Stop = llm.StopMaxTokens
	case exp.Refusal != "":
		exp.Stop = llm.StopRefusal
	case len(exp.Calls) > 0:
		exp.Stop = llm.StopToolCalls
	default:
		exp.Stop = llm.StopEnd
	}
	return exp
}

// The keys the Responses API accepts in a request, and in each kind of
// input item and tool (OpenAI's API reference, "Create a model response").
var (
	responsesKeys = []string{"model", "input", "instructions", "store", "include", "prompt_cache_key", "max_output_tokens",
		"temperature", "top_p", "reasoning", "text", "stream", "stream_options", "tools", "tool_choice", "parallel_tool_calls",
		"previous_response_id", "conversation", "service_tier", "metadata", "user", "safety_identifier", "truncation",
		"background", "max_tool_calls", "top_logprobs", "prompt", "prompt_cache_retention"}
	responsesItemKeys = map[string][]string{
		"message":              {"type", "id", "role", "content", "status"},
		"reasoning":            {"type", "id", "summary", "encrypted_content", "content", "status"},
		"function_call":        {"type", "id", "call_id", "name", "arguments", "status"},
		"function_call_output": {"type", "id", "call_id", "output", "status"},
	}
	responsesItemRequired = map[string][]string{
		"message":              {"role", "content"},
		"reasoning":            {"id", "summary"},
		"function_call":        {"call_id", "name", "arguments"},
		"function_call_output": {"call_id", "output"},
	}
	responsesToolKeys = []string{"type", "name", "description", "parameters", "strict"}
)

// CheckResponsesRequest compares the body a client sent (got) with the
// recorded request (want): no key the API does not accept, the required
// keys present, every recorded setting the client was asked for sent
// alike, and the same input items (by type, role, text, call IDs,
// arguments, outputs, reasoning IDs, summaries and encrypted_content) and
// tools. It returns the differences, none when the shapes agree.
func CheckResponsesRequest(got, want map[string]any) []string {
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, sprintf(format, args...)) }
	if u := Unknown(got, responsesKeys...); len(u) > 0 {
		add("keys the API rejects: %v", u)
	}
	if m := Missing(got, "model", "input"); len(m) > 0 {
		add("required keys missing: %v", m)
	}
	if got["store"] == false && path(got, "include") == nil {
		for _, v := range list(got["input"]) {
			if itemType(v.(map[string]any)) == "reasoning" {
				add("a reasoning item is sent with store false but include asks for no encrypted_content")
				break
			}
		}
	}
	if want == nil {
		return bad
	}
	if r, ok := want["reasoning"].(map[string]any); ok {
		// The clients set reasoning.effort and .summary; other members
		// (Azure's recorded "context") are not supported: documented.
		want = maps.Clone(want)
		set := compact(map[string]any{"effort": r["effort"], "summary": r["summary"]}).(map[string]any)
		want["reasoning"] = set
		if len(set) == 0 {
			delete(want, "reasoning")
		}
	}
	for k, v := range want {
		if v == nil || defaultSetting(k, v) {
			continue
		}
		if _, ok := got[k]; !ok {
			add("recorded key %q (%v) not sent", k, short(v))
		}
	}
	for _, k := range []string{"model", "include", "reasoning", "text", "max_output_tokens", "temperature", "top_p", "prompt_cache_key"} {
		if want[k] != nil && !equal(compact(got[k]), compact(want[k])) {
			add("%s = %v, recorded %v", k, short(got[k]), short(want[k]))
		}
	}
	if s, _ := want["instructions"].(string); s != "" && got["instructions"] != s {
		add("instructions = %v, recorded %v", short(got["instructions"]), short(s))
	}
	gotItems, wantItems := list(got["input"]), list(want["input"])
	if len(gotItems) != len(wantItems) {
		add("%d input items, recorded %d", len(gotItems), len(wantItems))
	}
	for i, v := range gotItems {
		it := v.(map[string]any)
		typ := itemType(it)
		if u := Unknown(it, responsesItemKeys[typ]...); len(u) > 0 || responsesItemKeys[typ] == nil {
			add("input[%d] (%s): keys the API rejects: %v", i, typ, u)
		}
		if m := Missing(it, responsesItemRequired[typ]...); len(m) > 0 {
			add("input[%d] (%s): required keys missing: %v", i, typ, m)
		}
		if i < len(wantItems) {
			if g, w := normItem(it), normItem(wantItems[i].(map[string]any)); !equal(g, w) {
				add("input[%d] = %v, recorded %v", i, short(g), short(w))
			}
		}
	}
	gotTools, wantTools := list(got["tools"]), list(want["tools"])
	if len(gotTools) != len(wantTools) {
		add("%d tools, recorded %d", len(gotTools), len(wantTools))
	}
	for i, v := range gotTools {
		if u := Unknown(v, responsesToolKeys...); len(u) > 0 {
			add("tools[%d]: keys the API rejects: %v", i, u)
		}
		if m := Missing(v, "type", "name", "parameters", "strict"); len(m) > 0 {
			add("tools[%d]: required keys missing: %v", i, m)
		}
		if i < len(wantTools) {
			for _, k := range []string{"type", "name", "parameters", "strict"} {
				if g, w := path(v, k), path(wantTools[i], k); !equal(g, w) {
					add("tools[%d].%s = %v, recorded %v", i, k, short(g), short(w))
				}
			}
		}
	}
	return bad
}

// defaultSetting reports whether a recorded key only restates the API's
// default, which a client need not send: stream false, tool_choice auto,
// empty instructions; and the settings llm.Request does not have (a tool
// choice) or the clients do not send (service tier, previous response).
func defaultSetting(k string, v any) bool {
	switch k {
	case "stream":
		return v == false
	case "tool_choice":
		return true // llm.Request sets no tool choice (auto, the default): documented
	case "instructions":
		return v == ""
	case "service_tier", "previous_response_id":
		return true // not supported: documented
	}
	return false
}

// normItem is an input item as the model reads it: its type, role and
// text (a string or parts alike), call, output, reasoning ID, summary and
// encrypted_content.
func normItem(it map[string]any) map[string]any {
	typ := itemType(it)
	out := map[string]any{"type": typ}
	switch typ {
	case "message":
		out["role"], out["text"] = it["role"], contentText(it["content"])
	case "reasoning":
		out["id"], out["encrypted_content"], out["summary"] = it["id"], it["encrypted_content"], strings.Join(summaryTexts(it), "\x00")
	case "function_call":
		out["call_id"], out["name"], out["arguments"] = it["call_id"], it["name"], it["arguments"]
	case "function_call_output":
		out["call_id"], out["output"] = it["call_id"], it["output"]
	}
	return out
}

func itemType(it map[string]any) string {
	if t := str(it["type"]); t != "" {
		return t
	}
	if it["role"] != nil {
		return "message"
	}
	return ""
}

func summaryTexts(it map[string]any) []string {
	var out []string
	for _, p := range list(it["summary"]) {
		out = append(out, str(path(p, "text")))
	}
	return out
}
