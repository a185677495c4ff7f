package agent_test

import (
	"context"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// A call's progress is in the run's log as it happens, with the call's ID,
// before the call completes; in a call given a secret it is hidden.
func TestProgress(t *testing.T) {
	ctx := context.Background()
	crawl := action.MustNew(action.Spec{Name: "crawl", Description: "Crawl pages.", Func: func(ctx context.Context, site string) error {
		if err := agent.Progress(ctx, "1 of 2 pages from "+site); err != nil {
			return err
		}
		return agent.Progress(ctx, "2 of 2 pages from "+site)
	}, Params: []action.Param{{Name: "site"}}})
	if err := agent.Progress(ctx, "outside a run"); err != nil {
		t.Fatalf("Progress outside a run: %v", err)
	}
	store := run.NewMemoryStore()
	model := llm.NewScripted(
		llm.CallTool("crawl", `{"site":"example.org"}`),
		llm.CallTool("crawl", `{"site":"<<var:pw>>"}`),
		llm.CallTool("terminate", `{"success":true,"result":null}`),
	)
	rt, err := agent.New(agent.Options{Model: model, Store: store, Actions: action.MustSet(crawl),
		Variables: []variable.Spec{{Name: "pw", Value: "s3cret-pages", Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "crawl"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	events, err := store.Read(ctx, h.ID(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []run.Progress
	completed := map[string]int{}
	for i, e := range events {
		switch p := e.Payload.(type) {
		case run.Progress:
			got = append(got, p)
			if _, done := completed[p.CallID]; done {
				t.Errorf("progress of %s after the call completed", p.CallID)
			}
		case run.ToolCallCompleted:
			completed[p.CallID] = i
		}
	}
	if len(got) != 4 || got[0].Message != "1 of 2 pages from example.org" || got[1].Message != "2 of 2 pages from example.org" || got[0].CallID == "" {
		t.Fatalf("progress = %+v", got)
	}
	if got[2].Message == "1 of 2 pages from s3cret-pages" || got[2].CallID == got[0].CallID {
		t.Fatalf("the progress of a call given a secret = %+v", got[2])
	}
	snap := run.Fold(events)
	if tc := snap.ToolCalls[0]; tc.Progress != "2 of 2 pages from example.org" {
		t.Fatalf("snapshot's progress = %q", tc.Progress)
	}
}
