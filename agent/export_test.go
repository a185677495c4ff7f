package agent

import (
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// SchemaBuilds returns how many tool schemas st has built, for tests of the
// schema cache.
func SchemaBuilds(st *State) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.schemas.builds
}

// SelectTools exposes relevance selection to benchmarks.
var SelectTools = func(st *State, tools []schema.Tool, k int, query string) []schema.Tool {
	return st.selectTools(tools, k, query, true)
}

// LiveBuffered returns the bytes held for each follower of h's deltas, for
// tests of the bound.
func LiveBuffered(h *Handle) []int {
	l := h.liveHub.Load()
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for f := range l.subs {
		f.mu.Lock()
		out = append(out, f.size)
		f.mu.Unlock()
	}
	return out
}

// Clip exposes clip to tests of its note.
var Clip = clip

// FoldLog folds a run's events as its conversation does (with the
// session's history and the run's Limits.LargeResult) and returns what
// the next request would send.
func FoldLog(events []run.Event, history []llm.Message, large int) []llm.Message {
	c := newConversation(history, large)
	c.fold(events)
	msgs, _ := c.sent()
	return msgs
}

// Live reports whether the run id's turn is going on in rt.
func Live(rt *Agent, id run.ID) bool {
	_, ok := rt.live(id)
	return ok
}
