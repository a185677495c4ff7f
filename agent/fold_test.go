package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// foldStore is a store that remembers where each of its appends ended:
// the event boundaries a process could stop at.
type foldStore struct {
	run.Store
	mu      sync.Mutex
	id      run.ID
	batches []int64
}

func (s *foldStore) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	sum, created, err := s.Store.Create(ctx, e)
	if created {
		s.mu.Lock()
		s.id, s.batches = e.RunID, append(s.batches, sum.LastSeq)
		s.mu.Unlock()
	}
	return sum, created, err
}

func (s *foldStore) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	n, err := s.Store.Append(ctx, id, last, events...)
	if err == nil {
		s.mu.Lock()
		s.batches = append(s.batches, n)
		s.mu.Unlock()
	}
	return n, err
}

func (s *foldStore) events() []run.Event {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	events, _ := s.Store.Read(context.Background(), id, 1, 0)
	return events
}

// foldStep is one answer of a generated model, and what the person
// answers to the awaits it causes.
type foldStep struct {
	resp   llm.Response
	deny   bool // approvals of this step are denied
	cancel bool // the run is cancelled at this step's first await
	done   bool // the answer ends the turn
}

// foldModel answers with script[n], n the number of model calls in the
// run's log (a function of the log, so that a restored run's model goes
// on where the first one stopped), and keeps each request with the last
// sequence number of the log when it was sent.
type foldModel struct {
	store  *foldStore
	script []foldStep
	mu     sync.Mutex
	sent   []sentRequest
	called chan struct{} // gets a value at each call, if not full
}

type sentRequest struct {
	req llm.Request
	seq int64
}

func (m *foldModel) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	events := m.store.events()
	m.mu.Lock()
	m.sent = append(m.sent, sentRequest{req, events[len(events)-1].Seq})
	m.mu.Unlock()
	if m.called != nil {
		select {
		case m.called <- struct{}{}:
		default:
		}
	}
	return m.script[min(modelCalls(events), len(m.script)-1)].resp, nil
}

func modelCalls(events []run.Event) int {
	n := 0
	for _, e := range events {
		if _, ok := e.Payload.(run.Usage); ok {
			n++
		}
	}
	return n
}

// foldScript writes a run of n answers mixing calls, snippets, refused
// calls (an unknown action, a reference to no variable), calls that need
// approval (approved or denied), questions, invalid results and turns
// that end (a follow-up starts the next), and maybe a cancel.
func foldScript(r *rand.Rand, n int) []foldStep {
	call := func(i int, name, args string) llm.ToolCall {
		return llm.ToolCall{ID: fmt.Sprintf("c%d_%s", i, name), Name: name, Arguments: args}
	}
	weather := func(i int) llm.ToolCall {
		return call(i, "get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`)
	}
	var script []foldStep
	cancelled := false
	for i := range n {
		var s foldStep
		switch r.IntN(9) {
		case 0:
			s.resp = llm.CallTools(weather(i))
		case 1:
			s.resp = llm.Text(fmt.Sprintf("Step %d.\n```go\nfmt.Println(len(city) + %d)\n```", i, i))
		case 2:
			s.resp = llm.CallTools(call(i, "get_wether", `{"location":"Oslo"}`))
		case 3:
			s.resp = llm.CallTools(call(i, "get_weather", `{"location":"<<var:nowhere>>","unit":"c","return":null}`))
		case 4:
			s.resp = llm.CallTools(call(i, "pay", fmt.Sprintf(`{"amount":%d}`, i)), weather(i))
		case 5:
			s.resp = llm.CallTools(call(i, "ask_user", `{"question":"Which unit?","return":null}`))
		case 6:
			s.resp = llm.CallTools(call(i, "terminate", `{"success":true,"result":"three"}`))
		case 7:
			s.resp = llm.Response{Text: "Both.\n```go\nfmt.Println(city)\n```", ToolCalls: []llm.ToolCall{weather(i)}, StopReason: llm.StopToolCalls}
		case 8:
			s.resp, s.done = llm.CallTools(call(i, "terminate", fmt.Sprintf(`{"success":true,"result":%d}`, i))), true
		}
		s.deny = r.IntN(3) == 0
		if !cancelled && r.IntN(12) == 0 {
			s.cancel, cancelled = true, true
		}
		script = append(script, s)
	}
	last := len(script)
	script = append(script, foldStep{resp: llm.CallTools(call(last, "terminate", `{"success":true,"result":0}`)), done: true})
	return script
}

// foldAgent is an agent of the generated runs: get_weather, pay (which
// needs approval), snippets, the given store and model.
func foldAgent(t *testing.T, store run.Store, model llm.Model) *agent.Agent {
	t.Helper()
	pay := action.MustNew(action.Spec{Name: "pay", Func: func(amount int) string { return fmt.Sprintf("paid %d", amount) }, Params: []action.Param{{Name: "amount"}}, NeedsApproval: true})
	return newAgent(t, model, agent.Options{Store: store, Actions: action.MustSet(weatherAction, pay)})
}

// answerFor is the person's answer to await a of the step the log's last
// model call made; cancel says the person cancels instead.
func answerFor(script []foldStep, events []run.Event, a run.AwaitRequested) (ans run.Answer, cancel bool) {
	s := script[min(max(modelCalls(events)-1, 0), len(script)-1)]
	if s.cancel {
		return run.Answer{}, true
	}
	switch {
	case a.Await == run.AwaitQuestion:
		return run.Answer{Text: "c"}, false
	case s.deny:
		return run.Answer{Decision: run.Denied, Reason: "not now"}, false
	}
	return run.Answer{Decision: run.Approved}, false
}

// TestConversationIsTheFoldOfTheLog generates runs and checks, at every
// model call, that the request sent is byte for byte the fold of the log
// up to that point (conversation.apply, through agent.FoldLog), and
// that a run restored at any event boundary sends the same next request
// as the run did.
func TestConversationIsTheFoldOfTheLog(t *testing.T) {
	seen := map[string]int{}
	defer func() {
		// The runs generated have every kind of event the fold applies.
		for _, k := range []string{"snippet", "call", "refused call", "denied", "approved", "question", "invalid result", "follow-up", "host variable", "compaction", "cancel", "plan"} {
			if seen[k] == 0 && !t.Failed() {
				t.Errorf("no generated run had a %s", k)
			}
		}
	}()
	for seed := range uint64(64) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 35))
			script := foldScript(r, 6+r.IntN(8))
			opts := agent.RunOptions{Task: "t", ResultSchema: []byte(`{"type":"integer"}`)}
			opts.Approval = []agent.Approval{agent.ApproveNone, agent.ApproveNone, agent.ApproveOnToolCall, agent.ApproveOnStart}[r.IntN(4)]
			opts.CompactAt = []int{0, 0, 900, 1400}[r.IntN(4)]
			store := &foldStore{Store: run.NewMemoryStore()}
			model := &foldModel{store: store, script: script}
			rt := foldAgent(t, store, model)
			t.Cleanup(func() { _ = rt.Close(context.Background()) })
			h, err := rt.Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			followUps := driveFold(t, h, store, script, 0)
			events := store.events()
			count(seen, events)
			if len(model.sent) == 0 {
				t.Fatalf("%d model calls", len(model.sent))
			}
			for i, s := range model.sent {
				assertSameMessages(t, fmt.Sprintf("request %d (log at %d)", i, s.seq), s.req.Messages, foldAt(events, s.seq))
			}
			t.Logf("%d requests, %d events, %d follow-ups, approval %s, compact at %d", len(model.sent), len(events), followUps, opts.Approval, opts.CompactAt)
			restoreAtEveryBoundary(t, store, model, events, script)
		})
	}
}

// foldAt is the fold of events up to seq, with the system prompt the log
// records with the first model call: a run that has not called its model
// has not recorded the prompt it is about to send.
func foldAt(events []run.Event, seq int64) []llm.Message {
	upTo := slices.IndexFunc(events, func(e run.Event) bool { return e.Seq > seq })
	if upTo < 0 {
		upTo = len(events)
	}
	msgs := agent.FoldLog(events[:upTo], nil, agent.DefaultLargeResult)
	if msgs[0].Text == "" {
		for _, e := range events {
			if u, ok := e.Payload.(run.Usage); ok && u.System != "" {
				msgs[0] = llm.SystemMessage(u.System)
				break
			}
		}
	}
	return msgs
}

func assertSameMessages(t *testing.T, what string, got, want []llm.Message) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s is not the fold of the log:\nsent: %s\nfold: %s", what, g, w)
	}
}

// driveFold plays the person of a run: it answers its awaits as the
// script says, and follows up each completed turn while the script has
// answers left (sometimes defining a host variable first), until the run
// ends or, with stopAt > 0, until stopAt model calls were made. It
// returns the number of follow-ups.
func driveFold(t *testing.T, h *agent.Handle, store *foldStore, script []foldStep, stopAt int) int {
	t.Helper()
	ctx := context.Background()
	followUps, from := 0, int64(1)
	for {
		for e, err := range h.Events(ctx, from) {
			if err != nil {
				t.Fatal(err)
			}
			from = e.Seq + 1
			a, ok := e.Payload.(run.AwaitRequested)
			if !ok {
				continue
			}
			ans, cancel := answerFor(script, store.events(), a)
			if cancel {
				if err := h.Cancel(ctx); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := h.Resume(ctx, a.ID, ans); err != nil {
				t.Fatalf("resume %s: %v", a.ID, err)
			}
		}
		o, err := h.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		events := store.events()
		if o.Status != run.StatusCompleted || modelCalls(events) >= len(script) {
			return followUps
		}
		followUps++
		if followUps%2 == 1 {
			if err := h.State().Set(fmt.Sprintf("note%d", followUps), fmt.Sprintf("from the host, turn %d", followUps)); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.FollowUp(ctx, fmt.Sprintf("and now turn %d", followUps)); err != nil {
			t.Fatal(err)
		}
	}
}

// restoreAtEveryBoundary restores the run at each boundary of its log
// where it had not ended, on a new agent over a copy of the log up to
// there, and checks that the restored run's first request is the one the
// run sent next. The person answers the restored run as the script says;
// a run restored after a turn ended gets the run's follow-up (and the
// host variable defined with it).
func restoreAtEveryBoundary(t *testing.T, store *foldStore, model *foldModel, events []run.Event, script []foldStep) {
	t.Helper()
	ctx := context.Background()
	restored := 0
	for _, b := range store.batches {
		prefix := events[:b]
		snap := run.Fold(prefix)
		if snap.Status.Final() || snap.Status == run.StatusCreated || snap.Status == run.StatusCancelling {
			continue
		}
		next := slices.IndexFunc(model.sent, func(s sentRequest) bool { return s.seq >= b })
		if next < 0 {
			continue
		}
		if endsTurnUnrecorded(prefix) {
			// The step that called terminate is recorded, the turn's end
			// is not: the restored run asks its model again, with the
			// fold of the log, where the run ended its turn.
			continue
		}
		copyStore := &foldStore{Store: run.NewMemoryStore()}
		if _, _, err := copyStore.Create(ctx, prefix[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := copyStore.Append(ctx, prefix[0].RunID, 1, prefix[1:]...); err != nil {
			t.Fatal(err)
		}
		again := &foldModel{store: copyStore, script: script, called: make(chan struct{}, 1)}
		rt2 := foldAgent(t, copyStore, again)
		h2, err := rt2.Restore(ctx, prefix[0].RunID, agent.RestoreOptions{})
		if err != nil {
			t.Fatalf("boundary %d: %v", b, err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			replayPerson(t, h2, copyStore, events, b, script, again.called)
		}()
		<-done
		_ = rt2.Close(ctx)
		if len(again.sent) == 0 {
			t.Fatalf("boundary %d (%s): the restored run sent no request", b, snap.Status)
		}
		want, _ := json.Marshal(model.sent[next].req)
		got, _ := json.Marshal(again.sent[0].req)
		if string(got) != string(want) {
			var kinds []string
			for _, e := range prefix[max(0, len(prefix)-8):] {
				kinds = append(kinds, string(e.Type()))
			}
			t.Fatalf("boundary %d (%s, log ends %v): the restored run's next request differs:\n%s", b, snap.Status, kinds, firstDiff(model.sent[next].req.Messages, again.sent[0].req.Messages))
		}
		restored++
	}
	t.Logf("restored at %d boundaries", restored)
}

// endsTurnUnrecorded reports whether the log ends with a step whose
// terminate call completed and no turn end after it.
func endsTurnUnrecorded(events []run.Event) bool {
	for i := len(events) - 1; i >= 0; i-- {
		switch p := events[i].Payload.(type) {
		case run.ToolCallCompleted:
			return p.Success && isTerminate(events, p.CallID)
		case run.Usage, run.StatusChanged, run.Error:
			return false
		}
	}
	return false
}

func isTerminate(events []run.Event, id string) bool {
	for _, e := range events {
		if s, ok := e.Payload.(run.ToolCallScheduled); ok && s.Call.ID == id {
			return s.Call.Name == "terminate"
		}
	}
	return false
}

// replayPerson answers a restored run until its first model call: its
// awaits as the script says, and a completed turn with the follow-up the
// run got after boundary b, with the host variables the follow-up
// announced.
func replayPerson(t *testing.T, h *agent.Handle, store *foldStore, events []run.Event, b int64, script []foldStep, called <-chan struct{}) {
	ctx := context.Background()
	from := b + 1
	answered := map[string]bool{}
	answer := func(a run.AwaitRequested) bool {
		if answered[a.ID] {
			return true
		}
		answered[a.ID] = true
		ans, cancel := answerFor(script, store.events(), a)
		if cancel && modelCalls(store.events()) > modelCalls(events[:b]) {
			return false // the model was called: the request is in
		}
		if cancel {
			var kinds []string
			for _, e := range events[max(0, b-6):min(len(events), int(b)+6)] {
				kinds = append(kinds, fmt.Sprintf("%d:%s", e.Seq, e.Type()))
			}
			t.Errorf("boundary %d: the restored run awaits %s %s %+v, where the run was cancelled, before its next request: %v", b, a.Await, a.ID, a, kinds)
			return false
		}
		if err := h.Resume(ctx, a.ID, ans); err != nil {
			t.Errorf("resume: %v", err)
			return false
		}
		return true
	}
	if a, ok := h.Pending(); ok && !answer(a) {
		return
	}
	// Each round ends with a turn: one follow-up (the run's) starts the
	// next; a restored run calls its model within two.
	for round := range 3 {
		select {
		case <-called:
			return
		default:
		}
		if round > 0 {
			if round > 1 {
				break
			}
			followUp(t, h, events, b)
		}
		for e, err := range h.Events(ctx, from) {
			if err != nil {
				t.Error(err)
				return
			}
			from = e.Seq + 1
			if a, ok := e.Payload.(run.AwaitRequested); ok && !answer(a) {
				return
			}
			if _, ok := e.Payload.(run.Usage); ok {
				return
			}
		}
		if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
			select {
			case <-called:
			default:
				t.Errorf("the restored run ended %s before calling its model (%v)", o.Status, err)
			}
			return
		}
	}
	select {
	case <-called:
	default:
		t.Errorf("boundary %d: the restored run's turns ended without a model call", b)
	}
}

// followUp sends the restored run h the follow-up the run got after b.
func followUp(t *testing.T, h *agent.Handle, events []run.Event, b int64) {
	for i := b; i < int64(len(events)); i++ {
		m, ok := events[i].Payload.(run.UserMessage)
		if !ok {
			continue
		}
		for _, e := range events[i+1:] {
			c, ok := e.Payload.(run.VariableCreated)
			if !ok || !strings.HasPrefix(c.Variable.Name, "note") {
				break
			}
			var v string
			_ = json.Unmarshal(c.Value, &v)
			if err := h.State().Set(c.Variable.Name, v); err != nil {
				t.Error(err)
			}
		}
		if err := h.FollowUp(context.Background(), m.Text); err != nil {
			t.Error(err)
		}
		return
	}
}

// firstDiff says where two lists of messages part.
func firstDiff(want, got []llm.Message) string {
	for i := range max(len(want), len(got)) {
		var w, g []byte
		if i < len(want) {
			w, _ = json.Marshal(want[i])
		}
		if i < len(got) {
			g, _ = json.Marshal(got[i])
		}
		if string(w) != string(g) {
			return fmt.Sprintf("message %d of %d/%d:\nrun:      %s\nrestored: %s", i, len(want), len(got), w, g)
		}
	}
	return "the messages are the same; the tools or the cache key differ"
}

// count counts the kinds of event of a run's log that the fold applies.
func count(seen map[string]int, events []run.Event) {
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.SnippetExecuted:
			seen["snippet"]++
		case run.ToolCallCompleted:
			seen["call"]++
			if !p.Success {
				seen["refused call"]++
			}
		case run.AwaitRequested:
			if p.Await == run.AwaitQuestion {
				seen["question"]++
			}
			if p.Await == run.AwaitApproval && p.Call == nil && p.Snippet == nil {
				seen["plan"]++
			}
		case run.AwaitResolved:
			if p.Answer.Decision == run.Denied {
				seen["denied"]++
			} else if p.Answer.Decision == run.Approved {
				seen["approved"]++
			}
		case run.Error:
			if strings.HasPrefix(p.Message, "invalid result") {
				seen["invalid result"]++
			}
		case run.UserMessage:
			if p.Sent != "" {
				seen["host variable"]++
			}
		case run.StatusChanged:
			if p.Reason == "follow-up" {
				seen["follow-up"]++
			}
			if p.To == run.StatusCanceled {
				seen["cancel"]++
			}
		case run.ContextCompacted:
			seen["compaction"]++
		}
	}
}
