package gemini_test

import (
	"encoding/json"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/gemini"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

var capitalAction = action.MustNew(action.Spec{
	Name: "get_capital", Description: "Get the capital of a country.",
	Func:   func(country string) string { return map[string]string{"France": "Paris"}[country] },
	Params: []action.Param{{Name: "country", Description: "The country name."}},
})

// turn is a recorded response turned into a one-chunk stream, with the
// first part's function call renamed and given new arguments (a reference
// to a run's variable), its thought signature kept.
func turn(t *testing.T, rec *recorded.Recording, name string, args any) llmtest.Reply {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(rec.Response.Body), &body); err != nil {
		t.Fatal(err)
	}
	if name != "" {
		fc := llmtest.Path(t, body, "candidates", 0, "content", "parts", 0, "functionCall").(map[string]any)
		fc["name"], fc["args"] = name, args
	}
	b, _ := json.Marshal(body)
	return llmtest.Reply{SSE: []string{"data: " + string(b)}}
}

// A run on Gemini, against a server replaying recorded turns (their
// function calls pointed at the run's variables), calls get_capital by
// reference, asks its user, is restored from its log by a second process
// in the middle of its await, and goes on: the request after the restore
// carries every function call with the thought signature Gemini gave it,
// and the cached tokens reach the outcome's usage.
func TestRunRestoredKeepsThoughtSignatures(t *testing.T) {
	recs := map[string]*recorded.Recording{}
	for _, r := range recorded.Load(t, "gemini") {
		recs[r.Name] = r
	}
	first, second, last := recs["function-call-thought-signature"], recs["function-response-followup"], recs["cached-content-explicit"]
	sig1 := llmtest.Path(t, decode(t, []byte(first.Response.Body)), "candidates", 0, "content", "parts", 0, "thoughtSignature")
	sig2 := llmtest.Path(t, decode(t, []byte(second.Response.Body)), "candidates", 0, "content", "parts", 0, "thoughtSignature")

	store := run.NewMemoryStore()
	ag := func(s *llmtest.Server) *agent.Agent {
		m, err := gemini.New(gemini.Options{Config: llm.Config{Model: "gemini-2.5-pro", APIKey: "k", BaseURL: s.URL()}})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: action.MustSet(capitalAction),
			Variables: []variable.Spec{{Name: "country", Value: "France"}}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	s1 := llmtest.NewServer(t, "", turn(t, first, "get_capital", map[string]any{"country": "<<var:country>>"}),
		turn(t, second, action.AskUserName, map[string]any{"question": "In which language?"}))
	s2 := llmtest.NewServer(t, "", turn(t, last, "", nil))
	o, snap := recorded.RunRestored(t, ag(s1), ag(s2), "What is the capital of the country?", "English")
	// The usage of the three recorded turns, thoughts counted as output
	// and the last one's cached tokens as cache reads, reaches the outcome
	// over the restore.
	if o.Usage.InputTokens != 57+109+3520 || o.Usage.OutputTokens != 139+215+44 || o.Usage.CacheReadTokens != 3512 {
		t.Errorf("outcome usage %+v", o.Usage)
	}
	if len(snap.ToolCalls) == 0 || snap.ToolCalls[0].Resolution == nil || snap.ToolCalls[0].Resolution.Args[0].Ref != "country" || !snap.ToolCalls[0].Success {
		t.Fatalf("get_capital was not called by reference: %+v", snap.ToolCalls)
	}
	var sent []any
	for _, c := range s2.Body(0)["contents"].([]any) {
		for _, p := range c.(map[string]any)["parts"].([]any) {
			if fc, ok := p.(map[string]any)["functionCall"]; ok {
				sent = append(sent, fc.(map[string]any)["name"], p.(map[string]any)["thoughtSignature"])
			}
		}
	}
	want := []any{"get_capital", sig1, action.AskUserName, sig2}
	if len(sent) != len(want) {
		t.Fatalf("function calls sent after the restore: %v; want %v", sent, want)
	}
	for i := range want {
		if sent[i] != want[i] {
			t.Errorf("function calls sent after the restore: %v; want %v", sent, want)
			break
		}
	}
	if p := s2.Path(0); p != "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" {
		t.Errorf("path %s; the run streams", p)
	}
}
