package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// megabyte is the value every path below tries to push into a message.
var megabyte = strings.Repeat("abcdefghij", 100_000)

var bigActions = action.MustSet(
	action.MustNew(action.Spec{Name: "dump", Description: "Print a lot.",
		Func: func(ctx context.Context) { _, _ = action.Stdout(ctx).Write([]byte(megabyte)) }}),
	action.MustNew(action.Spec{Name: "big", Description: "Return a lot.", Func: func() string { return megabyte }}),
	action.MustNew(action.Spec{Name: "echo", Description: "Return the text.", Func: func(s string) string { return s }, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "fails", Description: "Fail quoting the text.", Func: func(s string) error { return &quoteErr{s} }, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "guarded", Description: "Needs approval.", NeedsApproval: true, Func: func() {}}),
)

type quoteErr struct{ s string }

func (e *quoteErr) Error() string { return "cannot use " + e.s }

// checkBounded fails when any message of any request to the model is
// longer than the bound, and returns the largest.
func checkBounded(t *testing.T, model *llm.Scripted) int {
	t.Helper()
	largest := 0
	for i, req := range model.Requests() {
		for j, m := range req.Messages {
			largest = max(largest, len(m.Text))
			if len(m.Text) > agent.DefaultMaxMessage {
				t.Errorf("request %d, message %d (%s) is %d bytes, over the bound of %d", i+1, j, m.Role, len(m.Text), agent.DefaultMaxMessage)
			}
			if strings.Contains(m.Text, megabyte[:agent.DefaultMaxMessage]) {
				t.Errorf("request %d, message %d carries the value whole", i+1, j)
			}
		}
	}
	return largest
}

func startRun(t *testing.T, rt *agent.Agent, ro agent.RunOptions) *agent.Handle {
	t.Helper()
	h, err := rt.Start(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func waitAwait(t *testing.T, h *agent.Handle) run.AwaitRequested {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p, ok := h.Pending(); ok {
			return p
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no await; status %s", h.Status())
	return run.AwaitRequested{}
}

// No message to the model exceeds Options.MaxMessage, whatever path a
// 1 MB value takes.
func TestNothingUnbounded(t *testing.T) {
	ctx := context.Background()
	newAgent := func(t *testing.T, model llm.Model, store run.Store) *agent.Agent {
		t.Helper()
		rt, err := agent.New(agent.Options{Model: model, Actions: bigActions, Store: store, MaxOutput: 2 << 20,
			Variables: []variable.Spec{{Name: "blob", Value: megabyte}}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}

	t.Run("result schema error", func(t *testing.T) {
		model := llm.NewScripted(
			llm.CallTool("terminate", `{"success":true,"result":"<<var:blob>>"}`),
			llm.CallTool("terminate", `{"success":true,"result":"`+megabyte+`"}`),
			llm.CallTool("terminate", `{"success":true,"result":7}`),
		)
		h := startRun(t, newAgent(t, model, nil), agent.RunOptions{Task: "a number", ResultSchema: json.RawMessage(`{"type":"integer","maximum":5}`)})
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkBounded(t, model)
	})

	t.Run("tool output, stdout and snippet output", func(t *testing.T) {
		model := llm.NewScripted(
			llm.CallTool("dump", `{}`),
			llm.CallTool("big", `{}`),
			llm.Text("```go\nfmt.Print(blob)\n```"),
			llm.CallTool("terminate", `{"success":true,"result":null}`),
		)
		h := startRun(t, newAgent(t, model, nil), agent.RunOptions{Task: "dump"})
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkBounded(t, model)
	})

	t.Run("restored tool results", func(t *testing.T) {
		store := run.NewMemoryStore()
		model := llm.NewScripted(
			llm.CallTool("dump", `{}`),
			llm.Text("```go\nfmt.Print(blob)\n```"),
			llm.CallTool("guarded", `{}`),
		)
		rt := newAgent(t, model, store)
		h := startRun(t, rt, agent.RunOptions{Task: "dump, then wait"})
		waitAwait(t, h)
		if err := rt.Close(ctx); err != nil {
			t.Fatal(err)
		}
		// After a restart: the run comes back from its log alone.
		again := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":null}`))
		rt2 := newAgent(t, again, store)
		// Values of more than 64 KB are not in the log: the host hands
		// them in again.
		h2, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{Variables: []variable.Spec{
			{Name: "blob", Value: megabyte}, {Name: "dump_output", Value: "x"}, {Name: "snippet_output", Value: "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		p := waitAwait(t, h2)
		if err := h2.Resume(ctx, p.ID, run.Answer{Decision: run.Approved}); err != nil {
			t.Fatal(err)
		}
		if o, err := h2.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
			t.Fatalf("restored run: %+v %v", o, err)
		}
		if len(again.Requests()) == 0 {
			t.Fatal("the restored run did not call the model")
		}
		checkBounded(t, again)
		// As the live run first sent them: cut to the large-result size.
		for _, m := range again.Requests()[0].Messages {
			if (m.Role == llm.RoleTool || strings.HasPrefix(m.Text, "Results of your Go code")) && len(m.Text) > agent.DefaultLargeResult+500 {
				t.Errorf("a restored result is %d bytes: %.200s", len(m.Text), m.Text)
			}
		}
	})

	t.Run("structured input", func(t *testing.T) {
		input, _ := json.Marshal(map[string]string{"document": megabyte})
		model := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":null}`))
		rt := newAgent(t, model, nil)
		h := startRun(t, rt, agent.RunOptions{Task: "read the input", Input: input})
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkBounded(t, model)
		task := model.Requests()[0].Messages[1].Text
		if len(task) > 1000 || !strings.Contains(task, "the variable input") {
			t.Errorf("the task does not name the variable input: %.200s", task)
		}
		if v, ok := h.State().Variable("input"); !ok || len(v.Value.(map[string]any)["document"].(string)) != len(megabyte) {
			t.Error("the input variable does not hold the whole input")
		}
	})

	t.Run("errors quoting arguments", func(t *testing.T) {
		model := llm.NewScripted(
			llm.CallTool("echo", `{"text":"<<var:`+megabyte+`"}`),
			llm.CallTool("fails", `{"text":"`+megabyte+`"}`),
			llm.CallTool("echo", `{"text":"x","text":"`+megabyte+`"}`),
			llm.CallTool("nope_"+megabyte[:100], `{"a":"`+megabyte+`"}`),
			llm.CallTool("terminate", `{"success":true,"result":null}`),
		)
		h := startRun(t, newAgent(t, model, nil), agent.RunOptions{Task: "err"})
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkBounded(t, model)
	})

	t.Run("approvals and questions", func(t *testing.T) {
		model := llm.NewScripted(
			llm.CallTool("guarded", `{}`),
			llm.CallTool("ask_user", `{"question":"what now?"}`),
			llm.CallTool("terminate", `{"success":true,"result":null}`),
		)
		h := startRun(t, newAgent(t, model, nil), agent.RunOptions{Task: "ask"})
		p := waitAwait(t, h)
		if err := h.Resume(ctx, p.ID, run.Answer{Decision: run.Denied, Reason: megabyte}); err != nil {
			t.Fatal(err)
		}
		for {
			q := waitAwait(t, h)
			if q.ID == p.ID {
				continue
			}
			if err := h.Resume(ctx, q.ID, run.Answer{Text: megabyte}); err != nil {
				t.Fatal(err)
			}
			break
		}
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkBounded(t, model)
	})

	t.Run("follow-ups", func(t *testing.T) {
		model := llm.NewScripted(
			llm.CallTool("terminate", `{"success":true,"result":null}`),
			llm.CallTool("terminate", `{"success":true,"result":null}`),
		)
		h := startRun(t, newAgent(t, model, nil), agent.RunOptions{Task: "first"})
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.FollowUp(ctx, megabyte); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if len(model.Requests()) != 2 {
			t.Fatalf("%d requests", len(model.Requests()))
		}
		checkBounded(t, model)
	})
}

// The system prompt stays bounded however many variables there are: the
// latest are shown with previews, the others by name.
func TestSystemPromptGrowsSlowly(t *testing.T) {
	size := func(n int) int {
		vars := make([]variable.Spec, n)
		for i := range vars {
			vars[i] = variable.Spec{Name: fmt.Sprintf("v%04d", i), Value: strings.Repeat("long value ", 40)}
		}
		model := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":null}`))
		rt, err := agent.New(agent.Options{Model: model, Variables: vars, DisableSnippets: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Run(context.Background(), agent.RunOptions{Task: "t"}); err != nil {
			t.Fatal(err)
		}
		return len(model.Requests()[0].Messages[0].Text)
	}
	one, hundred, thousand := size(1), size(100), size(1000)
	if thousand-hundred > 40 || hundred > 4<<10 {
		t.Fatalf("the system prompt is %d bytes with 1 variable, %d with 100, %d with 1,000", one, hundred, thousand)
	}
}

// A string preview is the text, escaped once by JSON, not a Go literal
// escaped again: 300 characters with 20 quotes cost 322 bytes in a
// tool message, not 364.
func TestPreviewEscapedOnce(t *testing.T) {
	text := strings.Repeat(`say "hi" `, 10) + strings.Repeat("x", 210)
	st, err := newState(agent.Options{Actions: action.MustSet(action.MustNew(action.Spec{Name: "quote", Description: "Quote.", Func: func() string { return text }}))})
	if err != nil {
		t.Fatal(err)
	}
	resp := call(st, "quote", `{}`)
	var content struct {
		Variables []struct {
			Preview string `json:"preview"`
		} `json:"variables"`
	}
	if err := json.Unmarshal([]byte(resp.Content()), &content); err != nil || len(content.Variables) != 1 {
		t.Fatalf("content %s: %v", resp.Content(), err)
	}
	encoded, _ := json.Marshal(content.Variables[0].Preview)
	if content.Variables[0].Preview != text || len(encoded) > len(text)+strings.Count(text, `"`)+2 {
		t.Fatalf("the preview of %d characters costs %d bytes: %s", len(text), len(encoded), encoded)
	}
}

// In plain mode a result too large for the conversation reaches the model
// as valid JSON: its start, and a note with the number of bytes cut (not
// the whole size).
func TestPlainCutIsValidAndCounted(t *testing.T) {
	page := strings.Repeat(`a "quoted" word é `, 1200) // 21.6 KB, escaping and multi-byte runes
	dump := action.MustNew(action.Spec{Name: "page", Description: "A page.", Func: func() string { return page }})
	model := llm.NewScripted(llm.CallTool("page", `{}`), llm.CallTool("terminate", `{"success":true,"result":null}`))
	rt, err := agent.New(agent.Options{Model: model, Actions: action.MustSet(dump), HideFromAI: true, DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Run(context.Background(), agent.RunOptions{Task: "t", NonInteractive: true}); err != nil {
		t.Fatal(err)
	}
	msgs := model.Requests()[1].Messages
	text := msgs[len(msgs)-1].Text
	var cut struct{ Note, Start string }
	if err := json.Unmarshal([]byte(text), &cut); err != nil || len(text) > agent.DefaultLargeResult {
		t.Fatalf("the cut result is %d bytes, JSON error %v: %.200s", len(text), err, text)
	}
	var was, cutN, bound int
	if _, err := fmt.Sscanf(cut.Note, "the result was %d bytes and is cut to its start: %d bytes cut, as messages to the model are bounded to %d bytes", &was, &cutN, &bound); err != nil {
		t.Fatalf("note %q: %v", cut.Note, err)
	}
	if !strings.HasPrefix(cut.Start, `{"success":true`) || was < len(page) || cutN != was-len(cut.Start) || bound != agent.DefaultLargeResult {
		t.Fatalf("the result was %d bytes, %d kept, and the note says %d cut: %q", was, len(cut.Start), cutN, cut.Note)
	}
}

// clip's note counts the bytes it cut.
func TestClipCountsWhatItCuts(t *testing.T) {
	s := strings.Repeat("é", 10000) // 20,000 bytes
	got := agent.Clip(s, 8000)
	kept := strings.Index(got, " […")
	if len(got) > 8000 || kept < 0 || !strings.Contains(got, fmt.Sprintf("…%d more bytes cut", len(s)-kept)) {
		t.Fatalf("clip kept %d bytes of %d and says: %s", kept, len(s), got[max(kept, 0):])
	}
}
