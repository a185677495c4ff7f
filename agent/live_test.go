package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// gated holds each model call until its gate is opened: gates[i] for call
// i (none past the end).
type gated struct {
	llm.Model
	mu    sync.Mutex
	n     int
	gates []chan struct{}
}

func (g *gated) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	g.mu.Lock()
	var gate chan struct{}
	if g.n < len(g.gates) {
		gate = g.gates[g.n]
	}
	g.n++
	g.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
	return g.Model.Generate(ctx, req)
}

// follow collects h's events in a goroutine; subscribed is closed once the
// follower is subscribed (its first event came), done when it ends.
type follower struct {
	mu         sync.Mutex
	events     []run.Event
	subscribed chan struct{}
	done       chan struct{}
}

func follow(h *agent.Handle, from int64) *follower {
	f := &follower{subscribed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		once := sync.Once{}
		for e, err := range h.Events(context.Background(), from) {
			if err != nil {
				return
			}
			f.mu.Lock()
			f.events = append(f.events, e)
			f.mu.Unlock()
			once.Do(func() { close(f.subscribed) })
		}
	}()
	return f
}

// deltas returns the text of the deltas of a kind and step, joined.
func deltas(evs []run.Event, what run.DeltaKind, step int) string {
	var b strings.Builder
	for _, e := range evs {
		if d, ok := e.Payload.(run.Delta); ok && d.What == what && d.Step == step {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// indexOf returns the index of the first event for which ok holds, or -1.
func indexOf(evs []run.Event, ok func(run.Event) bool) int {
	for i, e := range evs {
		if ok(e) {
			return i
		}
	}
	return -1
}

const snippetStep = "Let me count.\n```go\nfor i := 1; i <= 3; i++ {\n\tfmt.Println(\"line\", i)\n}\nn := 3\n```"

// TestDeltasReachEvents: a streaming model's text, reasoning, tool-call
// arguments and a snippet's output lines reach Handle.Events as deltas, tagged with
// their step and call and their place in their message, each before the
// completed message the log keeps; the log holds no delta.
func TestDeltasReachEvents(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	gate := make(chan struct{})
	script := llm.NewScripted(
		llm.Response{Text: snippetStep, Reasoning: "Counting is printing."},
		llm.CallTool("note", `{"text":"the count","return":null}`),
		llm.Text("There are 3 lines."),
	)
	model := llm.Chunked(&gated{Model: script, gates: []chan struct{}{gate}}, 4, 0)
	note := action.MustNew(action.Spec{Name: "note", Description: "Note.", Func: func(text string) string { return text }, Params: []action.Param{{Name: "text"}}})
	rt, err := agent.New(agent.Options{Model: model, Store: store, Actions: action.MustSet(note)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "count"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(h, 1)
	<-f.subscribed
	close(gate)
	if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	<-f.done
	evs := f.events
	if got := deltas(evs, run.DeltaText, 1); got != snippetStep {
		t.Errorf("step 1 text deltas %q", got)
	}
	if got := deltas(evs, run.DeltaReasoning, 1); got != "Counting is printing." {
		t.Errorf("step 1 reasoning deltas %q", got)
	}
	if got := deltas(evs, run.DeltaOutput, 1); got != "line 1\nline 2\nline 3\n" {
		t.Errorf("step 1 output deltas %q", got)
	}
	if got := deltas(evs, run.DeltaToolCall, 2); got != `{"text":"the count","return":null}` {
		t.Errorf("step 2 call deltas %q", got)
	}
	if got := deltas(evs, run.DeltaText, 3); got != "There are 3 lines." {
		t.Errorf("step 3 text deltas %q", got)
	}
	offset := map[int64]int64{} // the Offset of the next delta of each message
	for i, e := range evs {
		d, ok := e.Payload.(run.Delta)
		if !ok {
			continue
		}
		if e.Seq != 0 {
			t.Errorf("delta %d has sequence number %d", i, e.Seq)
		}
		// The deltas of a message (after the same event) follow each
		// other from Offset 0.
		if d.Offset != offset[d.After] {
			t.Errorf("delta %d (%+v) at Offset %d, want %d", i, d, d.Offset, offset[d.After])
		}
		offset[d.After] = d.Offset + d.Len()
		// Every delta comes before the completed message of its kind.
		var done int
		switch d.What {
		case run.DeltaText, run.DeltaReasoning:
			done = indexOf(evs, func(e run.Event) bool { m, ok := e.Payload.(run.AssistantMessage); return ok && m.Step == d.Step })
		case run.DeltaOutput:
			done = indexOf(evs, func(e run.Event) bool { m, ok := e.Payload.(run.SnippetExecuted); return ok && m.Step == d.Step })
			if !strings.HasPrefix(d.CallID, "snippet") {
				t.Errorf("output delta of call %q", d.CallID)
			}
		case run.DeltaToolCall:
			done = indexOf(evs, func(e run.Event) bool { m, ok := e.Payload.(run.ToolCallScheduled); return ok && m.Step == d.Step })
			if d.CallID == "" {
				t.Errorf("call delta without a call: %+v", d)
			}
		}
		if done < i {
			t.Errorf("delta %d (%+v) comes after its completed message (%d)", i, d, done)
		}
	}
	first := indexOf(evs, func(e run.Event) bool { d, ok := e.Payload.(run.Delta); return ok && d.What == run.DeltaToolCall })
	if d := evs[first].Payload.(run.Delta); d.Name != "note" {
		t.Errorf("the first piece of the call does not name the tool: %+v", d)
	}
	logged, err := store.Read(ctx, h.ID(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range logged {
		if e.Type().Live() {
			t.Fatalf("the log holds a delta: %+v", e)
		}
	}
	if n := len(evs) - countDeltas(evs); n != len(logged) {
		t.Errorf("the follower saw %d log events, the log has %d", n, len(logged))
	}
}

func countDeltas(evs []run.Event) int {
	n := 0
	for _, e := range evs {
		if e.Type().Live() {
			n++
		}
	}
	return n
}

// TestLogSizeWithStreaming: a run's log has the same events with
// streaming as without; its size is within 5%.
func TestLogSizeWithStreaming(t *testing.T) {
	size := func(stream bool) int {
		ctx := context.Background()
		store := run.NewMemoryStore()
		var model llm.Model = llm.NewScripted(llm.Response{Text: snippetStep}, llm.Text(strings.Repeat("All counted. ", 200)))
		if stream {
			model = llm.Chunked(model, 3, 0)
		}
		rt, err := agent.New(agent.Options{Model: model, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		h, err := rt.Start(ctx, agent.RunOptions{Task: "count", ID: "01a2c3d4-0000-7000-8000-000000000001"})
		if err != nil {
			t.Fatal(err)
		}
		f := follow(h, 1)
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		<-f.done
		logged, _ := store.Read(ctx, h.ID(), 1, 0)
		n := 0
		for _, e := range logged {
			b, _ := json.Marshal(e)
			n += len(b)
		}
		return n
	}
	plain, streamed := size(false), size(true)
	if d := float64(streamed-plain) / float64(plain); d > 0.05 || d < -0.05 {
		t.Fatalf("the log is %d bytes streamed, %d without: %.1f%% apart", streamed, plain, 100*d)
	}
}

// TestLateFollower: a follower that joins after a step gets that step's
// completed message from the log, then the deltas of the next.
func TestLateFollower(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	second := make(chan struct{})
	script := llm.NewScripted(llm.CallTool("note", `{"text":"a","return":null}`), llm.Text("Second answer."))
	model := llm.Chunked(&gated{Model: script, gates: []chan struct{}{nil, second}}, 2, 0)
	note := action.MustNew(action.Spec{Name: "note", Description: "Note.", Func: func(text string) string { return text }, Params: []action.Param{{Name: "text"}}})
	rt, _ := agent.New(agent.Options{Model: model, Store: store, Actions: action.MustSet(note)})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "two steps"})
	if err != nil {
		t.Fatal(err)
	}
	// Wait (on the log) for the first step's call to complete.
	for e, err := range store.Events(ctx, h.ID(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.Payload.(run.ToolCallCompleted); ok {
			break
		}
	}
	late := follow(h, 1)
	<-late.subscribed
	close(second)
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	<-late.done
	evs := late.events
	if deltas(evs, run.DeltaToolCall, 1) != "" {
		t.Error("the late follower got deltas from before it joined")
	}
	if indexOf(evs, func(e run.Event) bool { _, ok := e.Payload.(run.ToolCallScheduled); return ok }) < 0 {
		t.Error("the late follower did not get the first step's call from the log")
	}
	if got := deltas(evs, run.DeltaText, 2); got != "Second answer." {
		t.Errorf("the late follower's deltas of step 2: %q", got)
	}
}

// TestStalledFollower: a follower that stops taking events slows neither
// the run nor another follower; what is held for it stays within
// MaxLiveBuffer, and once it goes on it gets the completed message in
// place of the deltas it missed.
func TestStalledFollower(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	gate := make(chan struct{})
	text := strings.Repeat("0123456789", 60_000) // 600 KB, past MaxLiveBuffer
	model := llm.Chunked(&gated{Model: llm.NewScripted(llm.Text(text)), gates: []chan struct{}{gate}}, 100, 0)
	rt, _ := agent.New(agent.Options{Model: model, Store: store})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	subscribed := make(chan struct{})
	stalled := make(chan []run.Event)
	go func() {
		var got []run.Event
		first := true
		for e, err := range h.Events(ctx, 1) {
			if err != nil {
				break
			}
			got = append(got, e)
			if first {
				first = false
				close(subscribed)
				<-release // stalled until the run has ended
			}
		}
		stalled <- got
	}()
	<-subscribed
	active := follow(h, 1)
	<-active.subscribed
	close(gate)
	if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	for _, n := range agent.LiveBuffered(h) {
		if n > agent.MaxLiveBuffer {
			t.Errorf("%d bytes held for a follower, over MaxLiveBuffer", n)
		}
	}
	close(release)
	got := <-stalled
	<-active.done
	// The other follower is not held up by the stalled one: it got to the
	// end (its own pace decides whether it took every delta).
	if indexOf(active.events, func(e run.Event) bool { m, ok := e.Payload.(run.AssistantMessage); return ok && m.Text == text }) < 0 {
		t.Error("the active follower did not get the completed message")
	}
	if got := deltas(active.events, run.DeltaText, 1); !strings.HasPrefix(text, got) {
		t.Error("the active follower's deltas are not the text's beginning")
	}
	part := deltas(got, run.DeltaText, 1)
	if len(part) >= len(text) || !strings.HasPrefix(text, part) {
		t.Errorf("the stalled follower got %d of %d bytes of deltas; want a prefix, not all", len(part), len(text))
	}
	if indexOf(got, func(e run.Event) bool { m, ok := e.Payload.(run.AssistantMessage); return ok && m.Text == text }) < 0 {
		t.Error("the stalled follower did not get the completed message")
	}
}

// TestOutputDeltasWithoutAStreamingModel: a snippet's output reaches the
// followers line by line even when the model does not stream.
func TestOutputDeltasWithoutAStreamingModel(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	script := llm.NewScripted(llm.Response{Text: snippetStep}, llm.Text("Counted."))
	rt, _ := agent.New(agent.Options{Model: &gated{Model: struct{ llm.Model }{script}, gates: []chan struct{}{gate}}})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "count"})
	if err != nil {
		t.Fatal(err)
	}
	f := follow(h, 1)
	<-f.subscribed
	close(gate)
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	<-f.done
	if got := deltas(f.events, run.DeltaOutput, 1); got != "line 1\nline 2\nline 3\n" {
		t.Errorf("output deltas %q", got)
	}
	if got := deltas(f.events, run.DeltaText, 1); got != "" {
		t.Errorf("text deltas from a model that does not stream: %q", got)
	}
}
