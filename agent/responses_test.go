package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai/responses"
	"github.com/byref/byref/run"
)

// responsesTurn is a streamed Responses API turn, in the shape OpenAI's
// recorded streams end with: a reasoning item with its encrypted_content,
// then function calls, in response.completed.
func responsesTurn(reasoningID, encrypted string, calls ...string) llmtest.Reply {
	output := `{"id":"` + reasoningID + `","type":"reasoning","encrypted_content":"` + encrypted + `","summary":[{"type":"summary_text","text":"**Plan** with ` + reasoningID + `"}]}`
	for _, c := range calls {
		output += "," + c
	}
	return llmtest.Reply{SSE: []string{
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","output_index":0,"item":{"id":"` + reasoningID + `","type":"reasoning","summary":[]}}`,
		`event: response.completed` + "\n" + `data: {"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","store":false,"output":[` + output +
			`],"usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":768},"output_tokens":120,"output_tokens_details":{"reasoning_tokens":64}}}}`,
	}}
}

// functionCall is a function_call output item.
func functionCall(id, name, args string) string {
	a, _ := json.Marshal(args)
	return `{"id":"fc_` + id + `","type":"function_call","status":"completed","call_id":"` + id + `","name":"` + name + `","arguments":` + string(a) + `}`
}

// A run on the Responses API calls an action by reference, awaits the
// user, and is restored by another runtime from its log: the restored
// run's next request sends the first turn's reasoning item back, with its
// ID, summary and encrypted_content, before the calls it led to, as
// OpenAI requires of a stateless (store false) conversation; the run then
// completes with the result by reference.
func TestResponsesRestoreSendsReasoningBack(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	open := func(srv *llmtest.Server) llm.Model {
		m, err := responses.New(responses.Options{Config: llm.Config{Model: "gpt-5-mini", APIKey: "k", BaseURL: srv.URL() + "/v1"}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := llmtest.NewServer(t, "/responses", responsesTurn("rs_1", "gAAAAAB-first-turn==",
		functionCall("call_1", "get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		functionCall("call_2", "ask_user", `{"question":"Celsius is fine?","return":null}`)))
	rt := newAgent(t, open(first), agent.Options{Store: store})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "Weather in my city?"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, 1)
	defer h.Cancel(ctx) // the first process's loop, still waiting
	if b := first.Body(0); b["store"] != false || llmtest.Path(t, b, "include", 0) != "reasoning.encrypted_content" {
		t.Errorf("the first request asked for store %v, include %v", b["store"], b["include"])
	}

	second := llmtest.NewServer(t, "/responses", responsesTurn("rs_2", "gAAAAAB-second-turn==",
		functionCall("call_3", "terminate", `{"success":true,"result":"<<var:weather>>"}`)))
	rt2 := newAgent(t, open(second), agent.Options{Store: store})
	restored, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, ok := restored.Pending()
	if !ok {
		t.Fatal("the restored run awaits nothing")
	}
	if err := restored.Resume(ctx, req.ID, run.Answer{Text: "yes"}); err != nil {
		t.Fatal(err)
	}
	o, err := restored.Wait(ctx)
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	if !strings.Contains(string(o.Result), "Paris") {
		t.Errorf("result %q, want the weather of <<var:city>> (Paris), passed by reference", o.Result)
	}
	if o.Usage.CacheReadTokens == 0 {
		t.Errorf("usage %+v: the cache reads did not reach the outcome", o.Usage)
	}

	var types []string
	var reasoning map[string]any
	for _, v := range second.Body(0)["input"].([]any) {
		it := v.(map[string]any)
		typ, _ := it["type"].(string)
		if typ == "" {
			typ = it["role"].(string)
		}
		types = append(types, typ)
		if typ == "reasoning" {
			reasoning = it
		}
	}
	if reasoning == nil || reasoning["id"] != "rs_1" || reasoning["encrypted_content"] != "gAAAAAB-first-turn==" ||
		llmtest.Path(t, reasoning, "summary", 0, "text") != "**Plan** with rs_1" {
		t.Fatalf("the restored request's reasoning item is %v (input types %v)", reasoning, types)
	}
	if got := strings.Join(types, " "); !strings.Contains(got, "reasoning function_call function_call function_call_output function_call_output") {
		t.Errorf("input types %s: the reasoning item goes before the calls it led to and their outputs", got)
	}
}

// The live run sends the reasoning items back as the restored one does:
// its second request carries the first turn's item before its call.
func TestResponsesLiveRunSendsReasoningBack(t *testing.T) {
	srv := llmtest.NewServer(t, "/responses",
		responsesTurn("rs_1", "gAAAAAB-first-turn==", functionCall("call_1", "get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`)),
		responsesTurn("rs_2", "gAAAAAB-second-turn==", functionCall("call_2", "terminate", `{"success":true,"result":"<<var:weather>>"}`)))
	m, err := responses.New(responses.Options{Config: llm.Config{Model: "gpt-5-mini", APIKey: "k", BaseURL: srv.URL() + "/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newAgent(t, m, agent.Options{}).Run(context.Background(), agent.RunOptions{Task: "Weather in my city?"})
	if err != nil || o.Status != run.StatusCompleted || !strings.Contains(string(o.Result), "Paris") {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	in := srv.Body(1)["input"].([]any)
	var types []string
	for _, v := range in {
		it := v.(map[string]any)
		if typ, ok := it["type"].(string); ok {
			types = append(types, typ)
			if typ == "reasoning" && it["encrypted_content"] != "gAAAAAB-first-turn==" {
				t.Errorf("reasoning item %v", it)
			}
		}
	}
	if got := strings.Join(types, " "); got != "reasoning function_call function_call_output" {
		t.Errorf("input item types %q", got)
	}
}
