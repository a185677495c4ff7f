package azure_test

import (
	"encoding/json"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/azure"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

var (
	secretAction = action.MustNew(action.Spec{
		Name: "secret_retrieval_tool", Description: "A tool that requires a password to retrieve a secret.",
		Func: func(password string) string {
			return map[string]string{"mellon": "Welcome to Moria!", "radiance": "Life before Death"}[password]
		},
		Params: []action.Param{{Name: "password", Description: "The password."}},
	})
	capitalAction = action.MustNew(action.Spec{
		Name: "get_capital", Description: "Get the capital of a country.",
		Func:   func(country string) string { return map[string]string{"France": "Paris"}[country] },
		Params: []action.Param{{Name: "country", Description: "The country name."}},
	})
)

// generateOnly hides a model's Stream, so that the run makes the
// non-streamed calls whose recorded JSON the tests replay.
type generateOnly struct{ llm.Model }

// recordings returns the recorded Azure exchanges by name.
func recordings(t *testing.T) map[string]*recorded.Recording {
	recs := map[string]*recorded.Recording{}
	for _, r := range recorded.Load(t, "azure-openai") {
		recs[r.Name] = r
	}
	return recs
}

// body decodes a recorded response body.
func body(t *testing.T, r *recorded.Recording) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Response.Body), &m); err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	return m
}

// reply is a decoded body as a server's JSON reply.
func reply(v any) llmtest.Reply {
	b, _ := json.Marshal(v)
	return llmtest.Reply{Body: string(b)}
}

// chatUsage is the input and output tokens of a recorded chat completion.
func chatUsage(t *testing.T, b map[string]any) (in, out int) {
	return int(llmtest.Path(t, b, "usage", "prompt_tokens").(float64)), int(llmtest.Path(t, b, "usage", "completion_tokens").(float64))
}

// A run on an Azure deployment's chat completions, opened by name with an
// api-version as a user would, against a server replaying the recorded
// turns (the recorded parallel calls, the first pointed at the run's
// variable), calls secret_retrieval_tool by reference and by value and
// completes with the recorded answer: every request goes to the
// deployment URL with the api-version and carries the api-key header, and
// the outcome's usage is the recorded turns'.
func TestChatRunCallsByReference(t *testing.T) {
	recs := recordings(t)
	calls, text := body(t, recs["deployments-chat-tool-call"]), body(t, recs["deployments-chat-text"])
	args := llmtest.Path(t, calls, "choices", 0, "message", "tool_calls", 0, "function").(map[string]any)
	args["arguments"] = `{"password": "<<var:password>>"}`
	srv := llmtest.NewServer(t, "/chat/completions", reply(calls), reply(text))

	env := map[string]string{"AZURE_OPENAI_API_VERSION": "2024-10-21"}
	m, err := llm.OpenWith("azure:gpt-4o-mini", llm.Config{APIKey: "azure-key", BaseURL: srv.URL(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := agent.New(agent.Options{Model: generateOnly{m}, Actions: action.MustSet(secretAction), DisableSnippets: true,
		Variables: []variable.Spec{{Name: "password", Value: "mellon"}}})
	if err != nil {
		t.Fatal(err)
	}
	o, snap := recorded.Run(t, rt, "Retrieve the secrets of the password and of radiance.")
	if len(snap.ToolCalls) != 2 {
		t.Fatalf("tool calls %+v; want the two recorded", snap.ToolCalls)
	}
	if c := snap.ToolCalls[0]; c.Resolution == nil || c.Resolution.Args[0].Ref != "password" || !c.Success {
		t.Errorf("the first call was not made by reference: %+v", c)
	}
	if c := snap.ToolCalls[1]; !c.Success || c.Call.Name != "secret_retrieval_tool" {
		t.Errorf("the second call: %+v", c)
	}
	results := map[string]bool{}
	for _, v := range srv.Body(1)["messages"].([]any) {
		if msg := v.(map[string]any); msg["role"] == "tool" {
			content, _ := msg["content"].(string)
			results[content] = true
		}
	}
	if len(results) != 2 {
		t.Errorf("the second request's tool results: %v", results)
	}
	for i := range 2 {
		if p := srv.Path(i); p != recs["deployments-chat-tool-call"].Request.Path {
			t.Errorf("request %d went to %s; want the deployment URL with the api-version, %s", i, p, recs["deployments-chat-tool-call"].Request.Path)
		}
		if h := srv.Header(i); h.Get("api-key") != "azure-key" || h.Get("Authorization") != "" {
			t.Errorf("request %d: api-key %q, Authorization %q", i, h.Get("api-key"), h.Get("Authorization"))
		}
	}
	in1, out1 := chatUsage(t, calls)
	in2, out2 := chatUsage(t, text)
	if o.Usage.InputTokens != in1+in2 || o.Usage.OutputTokens != out1+out2 {
		t.Errorf("outcome usage %+v; want the recorded turns' %d in, %d out", o.Usage, in1+in2, out1+out2)
	}
}

// A run on Azure's Responses API (the v1 endpoint), against a server
// replaying the recorded turn with its reasoning item (the first turn's
// message replaced by calls, one of them by reference to the run's
// variable), asks its user, is restored from its log by a second process
// in the middle of its await, and completes with the recorded answer: the
// request after the restore sends the reasoning item back with its
// encrypted_content before the calls it led to, as a stateless
// conversation requires; every request carries the api-key header; the
// reasoning tokens of both turns reach the outcome over the restore.
func TestResponsesRunRestoredKeepsReasoning(t *testing.T) {
	rec := recordings(t)["v1-responses-reasoning-encrypted"]
	first := body(t, rec)
	items := first["output"].([]any)
	reasoning := items[0].(map[string]any)
	first["output"] = []any{reasoning,
		map[string]any{"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "get_capital", "arguments": `{"country":"<<var:country>>"}`},
		map[string]any{"id": "fc_2", "type": "function_call", "status": "completed", "call_id": "call_2", "name": action.AskUserName, "arguments": `{"question":"In which language?"}`},
	}

	store := run.NewMemoryStore()
	ag := func(s *llmtest.Server) *agent.Agent {
		m, err := azure.NewResponses(azure.Options{Config: llm.Config{Model: "gpt-5.5", APIKey: "azure-key", BaseURL: s.URL()}})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := agent.New(agent.Options{Model: generateOnly{m}, Store: store, Actions: action.MustSet(capitalAction), DisableSnippets: true,
			Variables: []variable.Spec{{Name: "country", Value: "France"}}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	s1 := llmtest.NewServer(t, "/responses", reply(first))
	s2 := llmtest.NewServer(t, "/responses", rec.Reply(t))
	o, snap := recorded.RunRestored(t, ag(s1), ag(s2), "What is the capital of the country?", "English")
	if len(snap.ToolCalls) == 0 || snap.ToolCalls[0].Resolution == nil || snap.ToolCalls[0].Resolution.Args[0].Ref != "country" || !snap.ToolCalls[0].Success {
		t.Fatalf("get_capital was not called by reference: %+v", snap.ToolCalls)
	}

	var types []string
	var sent map[string]any
	for _, v := range s2.Body(0)["input"].([]any) {
		it := v.(map[string]any)
		typ, _ := it["type"].(string)
		if typ == "" {
			typ, _ = it["role"].(string)
		}
		types = append(types, typ)
		if typ == "reasoning" {
			sent = it
		}
	}
	if sent == nil || sent["id"] != reasoning["id"] || sent["encrypted_content"] != reasoning["encrypted_content"] {
		t.Fatalf("the restored request's reasoning item is %v (input types %v); want the recorded one", sent, types)
	}
	if i := index(types, "reasoning"); i < 0 || i+1 >= len(types) || types[i+1] != "function_call" {
		t.Errorf("input types %v: the reasoning item goes right before the calls it led to", types)
	}
	for i, s := range []*llmtest.Server{s1, s2} {
		if p := s.Path(0); p != rec.Request.Path {
			t.Errorf("request %d went to %s; want %s", i, p, rec.Request.Path)
		}
		if h := s.Header(0); h.Get("api-key") != "azure-key" || h.Get("Authorization") != "" {
			t.Errorf("request %d: api-key %q, Authorization %q", i, h.Get("api-key"), h.Get("Authorization"))
		}
	}
	in := int(llmtest.Path(t, first, "usage", "input_tokens").(float64))
	thought := int(llmtest.Path(t, first, "usage", "output_tokens_details", "reasoning_tokens").(float64))
	if o.Usage.InputTokens != 2*in || o.Usage.ReasoningTokens != 2*thought {
		t.Errorf("outcome usage %+v; want both recorded turns' %d input and %d reasoning tokens", o.Usage, 2*in, 2*thought)
	}
}

// index returns the position of s in list, or -1.
func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
