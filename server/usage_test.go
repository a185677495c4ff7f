package server_test

import (
	"encoding/json"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
)

// Before run.completed, an ACP stream gives the run's tokens in a generic
// event, with what the provider's prompt cache read and wrote.
func TestACPUsageWithCache(t *testing.T) {
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.Text("done")
		r.Usage = llm.Usage{InputTokens: 1000, OutputTokens: 7, CacheReadTokens: 900, CacheWriteTokens: 60}
		return r, nil
	})
	ag := server.Agent{Name: "cached", Agent: must(agent.New(agent.Options{Model: model, DisableSnippets: true}))}
	_, ts := startServer(t, server.Options{Agents: []server.Agent{ag}})
	c := client{t: t, base: ts.URL}
	evs := c.sse("POST", "/runs", create("cached", "Hello!", "stream"))
	var types []string
	var usage struct {
		Generic struct {
			Type string
			Data map[string]int
		}
	}
	for i, e := range evs {
		var ev struct{ Type string }
		_ = json.Unmarshal(e, &ev)
		types = append(types, ev.Type)
		if ev.Type == "generic" && i == len(evs)-2 {
			_ = json.Unmarshal(e, &usage)
		}
	}
	if types[len(types)-1] != "run.completed" || usage.Generic.Type != "usage" {
		t.Fatalf("events %v: no usage event before run.completed", types)
	}
	if d := usage.Generic.Data; d["input_tokens"] != 1000 || d["cache_read_tokens"] != 900 || d["cache_write_tokens"] != 60 || d["output_tokens"] != 7 {
		t.Fatalf("usage %v", d)
	}
}
