package economy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/openai"
	"github.com/byref/byref/run"
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

// sonnet is an example price, Claude Sonnet's published one in dollars per
// million tokens: input, output, cache reads (0.1×) and writes (1.25×).
var sonnet = llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}

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

// learn records the variables a tool result or snippet result announced,
// or a compaction's summary names, in order, each once.
func (a *agentScript) learn(text string) {
	add := func(name string) {
		if !slices.Contains(a.created, name) {
			a.created = append(a.created, name)
		}
	}
	for _, part := range strings.Split(text, "\n") {
		var c struct {
			Variables []struct {
				Name   string `json:"name"`
				Change string `json:"change"`
			} `json:"variables"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(part)), &c) != nil {
			for _, m := range summaryMade.FindAllStringSubmatch(part, -1) {
				add(m[1])
			}
			continue
		}
		for _, v := range c.Variables {
			if v.Change == "created" {
				add(v.Name)
			}
		}
	}
}

// summaryMade finds the variables a compaction's summary says a step made.
var summaryMade = regexp.MustCompile(`made <<var:([A-Za-z_][A-Za-z0-9_]*)>>`)

// since returns the texts of the messages after the last assistant one.
func since(msgs []llm.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != llm.RoleAssistant; i-- {
		out = append([]string{msgs[i].Text}, out...)
	}
	return out
}

// driveScenario runs the scenario on model: it approves the publish call
// and sends the follow-up once the run completes. It returns the last
// outcome and the run's snapshot.
func driveScenario(t *testing.T, model llm.Model, size int, plain bool) (agent.Outcome, run.Snapshot) {
	t.Helper()
	rt, err := agent.New(agent.Options{Model: model, Actions: cacheActions(size), HideFromAI: plain, Prices: map[string]llm.Price{"": sonnet}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := rt.Start(ctx, agent.RunOptions{Task: cacheTask})
	if err != nil {
		t.Fatal(err)
	}
	approved := false
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			if req.Await != run.AwaitApproval {
				t.Fatalf("awaiting without an approval: %+v", req)
			}
			approved = true
			if err := h.Resume(ctx, req.ID, run.Answer{Decision: run.Approved}); err != nil {
				t.Fatal(err)
			}
			break
		}
		if s, ok := e.Payload.(run.StatusChanged); ok && s.To.Terminal() {
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
	o, err := h.Wait(ctx)
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("follow-up: %+v %v", o, err)
	}
	snap, err := h.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return o, snap
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

// commonPrefix is the length of the longest common prefix of a and b,
// found by halving with bytes.Equal: long runs compare megabytes.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	if bytes.Equal(a[:n], b[:n]) {
		return n
	}
	lo, hi := 0, n // a[:lo] == b[:lo], a[:hi] != b[:hi]
	for hi-lo > 64 {
		mid := (lo + hi) / 2
		if bytes.Equal(a[:mid], b[:mid]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for lo < hi && a[lo] == b[lo] {
		lo++
	}
	return lo
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

// wire is an httptest server speaking one provider's API: it records the
// bodies it receives, answers them with the scenario's model, and reports
// as cached the part of each body that begins with the previous one.
type wire struct {
	mu     sync.Mutex
	bodies [][]byte
	script *agentScript
	anth   bool
	usage  llm.Usage // what it reported, summed
}

func (w *wire) serve(rw http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	body := raw
	if w.anth {
		body = unmarked(raw)
	}
	cached := 0
	if n := len(w.bodies); n > 0 {
		cached = commonPrefix(w.bodies[n-1], body) / 4
	}
	w.bodies = append(w.bodies, body)
	in := len(body) / 4
	resp := w.script.answer(w.since(raw))
	w.usage = w.usage.Add(llm.Usage{InputTokens: in, OutputTokens: 10, CacheReadTokens: cached})
	if w.anth {
		w.usage.CacheWriteTokens += in - cached
	}
	rw.Header().Set("Content-Type", "application/json")
	if w.anth {
		var content []map[string]any
		if resp.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": resp.Text})
		}
		for _, c := range resp.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
		}
		_ = json.NewEncoder(rw).Encode(map[string]any{"id": "msg", "type": "message", "role": "assistant", "content": content, "stop_reason": stop(resp, "tool_use", "end_turn"),
			"usage": map[string]int{"input_tokens": 0, "cache_read_input_tokens": cached, "cache_creation_input_tokens": in - cached, "output_tokens": 10}})
		return
	}
	msg := map[string]any{"role": "assistant", "content": resp.Text}
	var calls []map[string]any
	for _, c := range resp.ToolCalls {
		calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]string{"name": c.Name, "arguments": c.Arguments}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	_ = json.NewEncoder(rw).Encode(map[string]any{"id": "c", "object": "chat.completion",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": stop(resp, "tool_calls", "stop")}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": 10, "prompt_tokens_details": map[string]int{"cached_tokens": cached}}})
}

func stop(r llm.Response, calls, end string) string {
	if len(r.ToolCalls) > 0 {
		return calls
	}
	return end
}

// since reads the texts after the last assistant message of a body.
func (w *wire) since(raw []byte) []string {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &b)
	var out []string
	for i := len(b.Messages) - 1; i >= 0 && b.Messages[i].Role != "assistant"; i-- {
		var text string
		if json.Unmarshal(b.Messages[i].Content, &text) != nil {
			var blocks []struct {
				Text    string `json:"text"`
				Content string `json:"content"`
			}
			_ = json.Unmarshal(b.Messages[i].Content, &blocks)
			for _, bl := range blocks {
				text += bl.Text + bl.Content + "\n"
			}
		}
		out = append([]string{text}, out...)
	}
	return out
}

// unmarked is an Anthropic body without its cache_control breakpoints:
// they mark where the cache ends and are not part of what it holds (the
// one on the last message moves with every request).
func unmarked(raw []byte) []byte {
	return bytes.ReplaceAll(raw, []byte(`,"cache_control":{"type":"ephemeral"}`), nil)
}

// wireScenario runs the scenario through a real provider client against a
// recording server and returns the bodies it sent and the run's usage.
func wireScenario(t *testing.T, provider string, size int, plain bool) (*wire, agent.Outcome, run.Snapshot) {
	t.Helper()
	w := &wire{script: &agentScript{plain: plain, size: size}, anth: provider == "anthropic"}
	srv := httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(srv.Close)
	var model llm.Model
	var err error
	if w.anth {
		model, err = anthropic.New(anthropic.Options{Config: llm.Config{Model: "claude-test", APIKey: "k", BaseURL: srv.URL}})
	} else {
		model, err = openai.New(openai.Options{Config: llm.Config{Model: "gpt-test", APIKey: "k", BaseURL: srv.URL}})
	}
	if err != nil {
		t.Fatal(err)
	}
	// Generate only: what is measured is the request, not how the answer
	// arrives.
	o, snap := driveScenario(t, struct{ llm.Model }{model}, size, plain)
	return w, o, snap
}

// The goals of a cacheable run, on the runtime's requests and on the
// bodies the OpenAI and Anthropic clients send, in reference and plain
// mode: each request begins with the previous one (mean ≥ 99%, every step
// ≥ 95%), and the run's input priced with a prompt cache costs at most
// 1.1× an ideal append-only context's.
func TestPrefixKept(t *testing.T) {
	for _, plain := range []bool{false, true} {
		mode := map[bool]string{false: "reference", true: "plain"}[plain]
		check := func(what string, bodies [][]byte) {
			t.Helper()
			if len(bodies) < 20 {
				t.Fatalf("%s, %s mode: %d requests, want 20 or more", what, mode, len(bodies))
			}
			f := measure(bodies)
			t.Logf("%s, %s mode: %d requests, prefix kept mean %.2f%%, min %.2f%%; cache-priced %.3f× ideal", what, mode, f.requests, 100*f.prefixMean, 100*f.prefixMin, f.ratio())
			if f.prefixMean < 0.99 || f.prefixMin < 0.95 {
				t.Errorf("%s, %s mode: each request keeps %.1f%% of the previous one on average, %.1f%% at least; the goals are 99%% and 95%%", what, mode, 100*f.prefixMean, 100*f.prefixMin)
			}
			if r := f.ratio(); r > 1.1 {
				t.Errorf("%s, %s mode: cache-priced input is %.2f× an append-only context's; the goal is 1.1×", what, mode, r)
			}
		}
		check("llm.Requests", renderAll(scriptedScenario(t, 20<<10, plain)))
		for _, p := range []string{"openai", "anthropic"} {
			w, o, snap := wireScenario(t, p, 20<<10, plain)
			check(p+" bodies", w.bodies)
			// The cache's reads and writes as the provider reported them
			// reach the outcome and the snapshot.
			if o.Usage != w.usage {
				t.Errorf("%s, %s mode: outcome usage %+v, the provider reported %+v", p, mode, o.Usage, w.usage)
			}
			if want := sonnet.Cost(w.usage); math.Abs(o.Cost-want) > 1e-12 || o.Cost == 0 {
				t.Errorf("%s, %s mode: the run cost $%f, its usage at the price $%f", p, mode, o.Cost, want)
			}
			if snap.Usage.CacheReadTokens != int64(w.usage.CacheReadTokens) || snap.Usage.CacheWriteTokens != int64(w.usage.CacheWriteTokens) || w.usage.CacheReadTokens == 0 {
				t.Errorf("%s, %s mode: snapshot usage %+v, the provider reported %+v", p, mode, snap.Usage, w.usage)
			}
		}
	}
}

// Against a by-value tool loop written here, itself append-only: at 20 KB
// pages byref's cache-priced input is at least 3× lower, and its requests
// at least 10× smaller.
func TestCachePricedAgainstPlainLoop(t *testing.T) {
	loop := measure(plainLoop(20 << 10))
	b := measure(renderAll(scriptedScenario(t, 20<<10, false)))
	if r := loop.priced / b.priced; r < 3 {
		t.Errorf("byref's cache-priced input is %.1f× lower than the plain loop's; the goal is 3×", r)
	}
	if r := float64(loop.meanRequest) / float64(b.meanRequest); r < 10 {
		t.Errorf("byref's requests are %.1f× smaller than the plain loop's; the goal is 10×", r)
	}
}

// A run restored from its log while it awaits the approval sends, as its
// next request, the bytes of the last request it sent before, followed by
// what came after: the cache it had is still good. In reference and plain
// mode, with and without compactions before the restore.
func TestRestoreKeepsThePrefix(t *testing.T) {
	for _, c := range []struct {
		plain     bool
		compactAt int
	}{{false, 0}, {true, 0}, {false, 1200}, {true, 20000}} {
		plain := c.plain
		ctx := context.Background()
		store := run.NewMemoryStore()
		script := &agentScript{plain: plain, size: 20 << 10}
		answer := func(req llm.Request) (llm.Response, error) { return script.answer(since(req.Messages)), nil }
		before := llm.NewScriptedFunc(answer)
		rt, err := agent.New(agent.Options{Model: before, Store: store, Actions: cacheActions(20 << 10), HideFromAI: plain})
		if err != nil {
			t.Fatal(err)
		}
		h, err := rt.Start(ctx, agent.RunOptions{Task: cacheTask, Limits: agent.Limits{CompactAt: c.compactAt}})
		if err != nil {
			t.Fatal(err)
		}
		var await run.AwaitRequested
		for e, err := range h.Events(ctx, 1) {
			if err != nil {
				t.Fatal(err)
			}
			if req, ok := e.Payload.(run.AwaitRequested); ok {
				await = req
				break
			}
		}
		if err := rt.Close(ctx); err != nil {
			t.Fatal(err)
		}

		after := llm.NewScriptedFunc(answer)
		rt2, err := agent.New(agent.Options{Model: after, Store: store, Actions: cacheActions(20 << 10), HideFromAI: plain})
		if err != nil {
			t.Fatal(err)
		}
		h2, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := h2.Resume(ctx, await.ID, run.Answer{Decision: run.Approved}); err != nil {
			t.Fatal(err)
		}
		if o, err := h2.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
			t.Fatalf("restored run: %+v %v", o, err)
		}
		if snap, _ := h2.Snapshot(ctx); (snap.Compactions > 0) != (c.compactAt > 0) {
			t.Errorf("plain=%v, compact at %d: %d compactions", plain, c.compactAt, snap.Compactions)
		}
		reqs := before.Requests()
		last, next := render(reqs[len(reqs)-1]), render(after.Requests()[0])
		if kept := commonPrefix(last, next); kept != len(last) {
			t.Errorf("plain=%v, compact at %d: the restored run's first request keeps %d of the %d bytes sent before; they differ at:\nbefore: %.300q\nafter:  %.300q",
				plain, c.compactAt, kept, len(last), last[kept:], next[kept:])
		}
		_ = rt2.Close(ctx)
	}
}

// cacheSection writes the cache-priced figures of docs/model-economy.md:
// the cache scenario at three page sizes, with references, in plain mode
// and as a plain loop, and the long run.
func cacheSection(t *testing.T, doc *strings.Builder) {
	fmt.Fprintf(doc, "\n## Priced with a prompt cache\n\n")
	fmt.Fprintf(doc, "Scenario: %d pages fetched, each summarized and counted, two Go snippets, a call that needs approval, the answer, and a follow-up of two steps (%d requests).\n", cachePages, 3*cachePages+6)
	fmt.Fprintf(doc, "Each request is priced as a prompt cache bills it: the part that begins with the previous request is read (0.1× the input price), the rest written (1.25×); units are input bytes at the full price.\n")
	fmt.Fprintf(doc, "Prefix kept is the mean share of each request that repeats the previous one; \"vs ideal\" is the run's price against the same requests priced as an ideal append-only context.\n\n")
	fmt.Fprintf(doc, "| page | byref | byref, plain mode | plain loop | plain loop ÷ byref | bytes per request, loop ÷ byref |\n|---|---|---|---|---|---|\n")
	for _, size := range []int{2 << 10, 20 << 10, 200 << 10} {
		b := measure(renderAll(scriptedScenario(t, size, false)))
		p := measure(renderAll(scriptedScenario(t, size, true)))
		l := measure(plainLoop(size))
		cell := func(f cacheFigures) string {
			return fmt.Sprintf("%s (prefix kept %.1f%%, %.2f× ideal)", human(int(f.priced)), 100*f.prefixMean, f.ratio())
		}
		fmt.Fprintf(doc, "| %s | %s | %s | %s | %.1f× | %.1f× |\n", human(size), cell(b), cell(p), cell(l), l.priced/b.priced, float64(l.meanRequest)/float64(b.meanRequest))
	}
	f := longRunOnce(t)
	fmt.Fprintf(doc, "\nLong run: %d steps, %.1f MB of tool results, a %d-token window (compaction at %.0f%% of it): %d compactions, the largest request %d tokens (bytes ÷ 4), each request keeps %.2f%% of the previous one on average and every request that follows no compaction keeps %.2f%%; at step %d the model passes the variable of step 3 by reference.\n",
		f.steps, float64(f.resultBytes)/(1<<20), longWindow, 100*agent.DefaultContextShare, f.compactions, f.maxTokens, 100*f.prefixMean, 100*f.prefixMin, longSteps-1)
}
