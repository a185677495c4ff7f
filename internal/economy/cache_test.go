package economy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/openai"
	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
)

// The cache scenario: six pages fetched, each summarized and counted by
// reference, two Go snippets, a call that needs a person's approval, the
// answer, then a follow-up that takes two more steps. Every step creates a
// variable. In plain mode the model copies values instead.
const (
	cachePages = 6
	cacheTask  = "Fetch the six council pages, summarize and count each, total the counts, publish the first summary, and answer the total."
	followUp   = "Now count the words of the third summary."
)

func pageURLOf(i int) string { return fmt.Sprintf("https://news.example/council/%d", i) }

// cacheActions are the scenario's actions: fetch_page returns a page of
// size bytes; publish needs approval.
func cacheActions(size int) *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{Name: "fetch_page", Description: "Fetch a web page and return its text.",
			Func: func(url string) string { return article(size) }, Params: []action.Param{{Name: "url", Description: "The page's address."}}}),
		action.MustNew(action.Spec{Name: "summarize", Description: "Summarize a text in one sentence.",
			Func: summarize, Params: []action.Param{{Name: "text", Description: "The text to summarize."}}}),
		action.MustNew(action.Spec{Name: "count_words", Description: "Count the words of a text.",
			Func: countWords, Params: []action.Param{{Name: "text", Description: "The text."}}}),
		action.MustNew(action.Spec{Name: "publish", Description: "Publish a text on the council's site; returns its address.", NeedsApproval: true,
			Func: func(text string) string { return "https://news.example/published/1" }, Params: []action.Param{{Name: "text", Description: "The text to publish."}}}),
	)
}

// agentScript is the model of the scenario: it answers from the messages
// that followed its previous answer, learning the names of the variables
// the runtime announced there.
type agentScript struct {
	plain   bool
	size    int
	n       int      // answers given
	created []string // variables announced, in order
	ids     int
}

// script is one scenario step: what the model answers given the names it
// learned (by step index in creation order).
func (a *agentScript) answer(newTexts []string) llm.Response {
	for _, t := range newTexts {
		a.learn(t)
	}
	i := a.n
	a.n++
	ref := func(k int) string {
		if a.plain {
			return "" // unused
		}
		return "<<var:" + a.created[k] + ">>"
	}
	text := func(k int) string {
		// The value a plain model copies into a call: the page, or the
		// summary it was shown.
		if k < cachePages {
			b, _ := json.Marshal(article(a.size))
			return string(b)
		}
		b, _ := json.Marshal(summarize(article(a.size)))
		return string(b)
	}
	arg := func(k int) string {
		if a.plain {
			return text(k)
		}
		return `"` + ref(k) + `"`
	}
	call := func(name, args string) llm.Response {
		a.ids++
		return llm.CallTools(llm.ToolCall{ID: fmt.Sprintf("call_%d", a.ids), Name: name, Arguments: args})
	}
	switch {
	case i < cachePages:
		return call("fetch_page", `{"url":"`+pageURLOf(i+1)+`"}`)
	case i < 2*cachePages:
		return call("summarize", `{"text":`+arg(i-cachePages)+`}`)
	case i < 3*cachePages:
		return call("count_words", `{"text":`+arg(i-2*cachePages)+`}`)
	case i == 3*cachePages:
		if a.plain {
			return llm.Text("Adding the counts.\n```go\ntotal := 0\nfor _, n := range []int{1, 2, 3, 4, 5, 6} {\n\ttotal += n\n}\nfmt.Println(total)\n```")
		}
		sum := make([]string, cachePages)
		for k := range sum {
			sum[k] = a.created[2*cachePages+k]
		}
		return llm.Text("Adding the counts.\n```go\ntotal := " + strings.Join(sum, " + ") + "\nfmt.Println(total)\n```")
	case i == 3*cachePages+1:
		if a.plain {
			return llm.Text("```go\naverage := float64(21) / 6\nfmt.Println(average)\n```")
		}
		return llm.Text("```go\naverage := float64(total) / " + fmt.Sprint(cachePages) + "\nfmt.Println(average)\n```")
	case i == 3*cachePages+2:
		return call("publish", `{"text":`+arg(cachePages)+`}`)
	case i == 3*cachePages+3:
		if a.plain {
			return call("terminate", `{"success":true,"result":"21"}`)
		}
		return call("terminate", `{"success":true,"result":"<<var:total>>"}`)
	case i == 3*cachePages+4: // the follow-up
		return call("count_words", `{"text":`+arg(cachePages+2)+`}`)
	default:
		return call("terminate", `{"success":true,"result":"done"}`)
	}
}

// learn records the variables a tool result or snippet result announced.
func (a *agentScript) learn(text string) {
	for _, part := range strings.Split(text, "\n") {
		var c struct {
			Variables []struct {
				Name   string `json:"name"`
				Change string `json:"change"`
			} `json:"variables"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(part)), &c) != nil {
			continue
		}
		for _, v := range c.Variables {
			if v.Change == "created" {
				a.created = append(a.created, v.Name)
			}
		}
	}
}

// since returns the texts of the messages after the last assistant one.
func since(msgs []llm.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != llm.RoleAssistant; i-- {
		out = append([]string{msgs[i].Text}, out...)
	}
	return out
}

// driveScenario runs the scenario on model: it approves the publish call
// and sends the follow-up once the run completes.
func driveScenario(t *testing.T, model llm.Model, size int, plain bool) {
	t.Helper()
	rt, err := runtime.New(runtime.Options{Model: model, Actions: cacheActions(size), HideFromAI: plain})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := rt.Start(ctx, runtime.RunOptions{Task: cacheTask})
	if err != nil {
		t.Fatal(err)
	}
	approved := false
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Data.(run.AwaitRequested); ok {
			if req.Await != run.AwaitApproval {
				t.Fatalf("awaiting without an approval: %+v", req)
			}
			approved = true
			if err := h.Resume(ctx, req.ID, run.Answer{Decision: run.Approved}); err != nil {
				t.Fatal(err)
			}
			break
		}
		if s, ok := e.Data.(run.StatusChanged); ok && s.To.Terminal() {
			break
		}
	}
	if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("the run ended %+v %v", o, err)
	}
	if !approved {
		t.Fatal("the scenario asked for no approval")
	}
	if err := h.FollowUp(ctx, followUp); err != nil {
		t.Fatal(err)
	}
	if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("follow-up: %+v %v", o, err)
	}
}

// scriptedScenario runs the scenario on a scripted model and returns its
// requests.
func scriptedScenario(t *testing.T, size int, plain bool) []llm.Request {
	a := &agentScript{plain: plain, size: size}
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		return a.answer(since(req.Messages)), nil
	})
	driveScenario(t, model, size, plain)
	return model.Requests()
}

// render writes a request in the order a provider's cache reads it: tools,
// then messages (system first), each field in a fixed order.
func render(req llm.Request) []byte {
	var b bytes.Buffer
	for _, tool := range req.Tools {
		fmt.Fprintf(&b, "tool %s\n%s\n%s\n", tool.Name, tool.Description, tool.Parameters)
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s %s\n%s\n", m.Role, m.ToolCallID, m.Text)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "call %s %s %s\n", c.ID, c.Name, c.Arguments)
		}
	}
	return b.Bytes()
}

// cacheFigures are a run's requests measured as a prompt cache sees them.
type cacheFigures struct {
	requests    int
	prefixMean  float64 // mean share of the previous request that begins each request
	prefixMin   float64
	prefixLast  float64
	priced      float64 // input priced with a cache: reads 0.1, writes 1.25, in bytes
	ideal       float64 // the same requests priced as an ideal append-only context
	bytes       int     // all bytes sent
	meanRequest int
}

func (f cacheFigures) ratio() float64 { return f.priced / f.ideal }

// measure prices bodies as a prompt cache would: the part of a request that
// begins with the previous request is read (0.1), the rest written (1.25).
// The ideal is each request priced as if it extended the previous one.
func measure(bodies [][]byte) cacheFigures {
	f := cacheFigures{requests: len(bodies), prefixMin: 1}
	for i, cur := range bodies {
		f.bytes += len(cur)
		if i == 0 {
			f.priced += 1.25 * float64(len(cur))
			f.ideal += 1.25 * float64(len(cur))
			continue
		}
		prev := bodies[i-1]
		kept := commonPrefix(prev, cur)
		share := float64(kept) / float64(len(prev))
		f.prefixMean += share
		f.prefixMin = min(f.prefixMin, share)
		f.prefixLast = share
		f.priced += 0.1*float64(kept) + 1.25*float64(len(cur)-kept)
		reused := min(len(prev), len(cur))
		f.ideal += 0.1*float64(reused) + 1.25*float64(len(cur)-reused)
	}
	if len(bodies) > 1 {
		f.prefixMean /= float64(len(bodies) - 1)
	}
	if len(bodies) > 0 {
		f.meanRequest = f.bytes / len(bodies)
	}
	return f
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func renderAll(reqs []llm.Request) [][]byte {
	out := make([][]byte, len(reqs))
	for i, r := range reqs {
		out[i] = render(r)
	}
	return out
}

// plainLoop is the scenario as a by-value tool loop written by hand,
// append-only: every result goes back whole and the model copies values.
func plainLoop(size int) [][]byte {
	a := &agentScript{plain: true, size: size}
	tools := plainTools()
	tools = append(tools, llm.Tool{Name: "publish", Description: "Publish a text on the council's site; returns its address.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to publish."}},"required":["text"]}`)})
	messages := []llm.Message{llm.SystemMessage(systemPlain), llm.UserMessage(cacheTask)}
	var bodies [][]byte
	page := article(size)
	results := func(name string) string {
		switch name {
		case "fetch_page":
			return page
		case "summarize":
			return summarize(page)
		case "count_words":
			return fmt.Sprint(countWords(page))
		case "publish":
			return "https://news.example/published/1"
		}
		return "21"
	}
	for a.n < 3*cachePages+6 {
		req := llm.Request{Messages: messages, Tools: tools}
		bodies = append(bodies, render(req))
		resp := a.answer(nil)
		messages = append(messages, resp.Message())
		for _, c := range resp.ToolCalls {
			if c.Name == "terminate" {
				continue
			}
			messages = append(messages, llm.ToolResultMessage(c, results(c.Name)))
		}
		if len(resp.ToolCalls) == 0 {
			messages = append(messages, llm.UserMessage("Output: 21"))
		}
		if a.n == 3*cachePages+4 {
			messages = append(messages, llm.UserMessage(followUp))
		}
	}
	return bodies
}

// TestCacheToday reports the cache figures of the scenario (a measurement,
// logged).
func TestCacheFigures(t *testing.T) {
	for _, plain := range []bool{false, true} {
		reqs := scriptedScenario(t, 20<<10, plain)
		f := measure(renderAll(reqs))
		t.Logf("plain=%v: %d requests, prefix kept mean %.1f%% min %.1f%% last %.1f%%, cache-priced %.2f× ideal, %d B/request",
			plain, f.requests, 100*f.prefixMean, 100*f.prefixMin, 100*f.prefixLast, f.ratio(), f.meanRequest)
	}
	loop := measure(plainLoop(20 << 10))
	t.Logf("plain loop: %d requests, prefix mean %.1f%%, priced %.0f, %d B/request", loop.requests, 100*loop.prefixMean, loop.priced, loop.meanRequest)
	b := measure(renderAll(scriptedScenario(t, 20<<10, false)))
	t.Logf("byref priced %.0f: plain loop / byref = %.2f×; bytes per request %.1f×", b.priced, loop.priced/b.priced, float64(loop.meanRequest)/float64(b.meanRequest))
}

var _ = io.EOF
var _ = http.MethodPost
var _ = httptest.NewServer
var _ sync.Mutex
var _ = anthropic.New
var _ = openai.New
