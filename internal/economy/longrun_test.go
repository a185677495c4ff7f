package economy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// The long run: 500 steps, 498 of them fetching a 106 KB record (50 MB of
// tool results in all), with previews of 2,000 characters so that the
// conversation outgrows a 128k-token window several times over; at step
// 499 the model passes, by reference, the record it fetched at step 3.
const (
	longSteps   = 500
	recordSize  = 106_000 // 498 of them: 50 MB
	longWindow  = 128_000
	longPreview = 2000
)

// made finds the variables a tool result announces, or a summary names.
var made = regexp.MustCompile(`(?:"name":"|made <<var:)([A-Za-z_][A-Za-z0-9_]*)`)

// longFigures are the long run's measurements.
type longFigures struct {
	steps, compactions int
	resultBytes        int
	maxTokens          int     // the largest request, in bytes / 4
	prefixMean         float64 // over every request after the first
	prefixMin          float64 // over the requests that follow no compaction
}

// record returns the n-th record: a header that makes it unique, then text.
func record(n int, body string) string {
	return fmt.Sprintf("record %d: ", n) + body[:recordSize-len(fmt.Sprintf("record %d: ", n))]
}

func longRun(t testing.TB) longFigures {
	body := article(recordSize)
	var f longFigures
	fetch := action.MustNew(action.Spec{Name: "fetch_record", Description: "Fetch a record by number.",
		Func: func(n int) string {
			r := record(n, body)
			f.resultBytes += len(r)
			return r
		}, Params: []action.Param{{Name: "n", Description: "The record's number."}}})
	count := action.MustNew(action.Spec{Name: "count_words", Description: "Count the words of a text.",
		Func: countWords, Params: []action.Param{{Name: "text", Description: "The text."}}})

	script := &agentScript{} // learns the names the runtime announces
	var prev []byte
	var third string
	shares, n, calls := 0.0, 0, 0
	f.prefixMin = 1
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		cur := render(req)
		f.maxTokens = max(f.maxTokens, len(cur)/4)
		if prev != nil {
			share := float64(commonPrefix(prev, cur)) / float64(len(prev))
			shares += share
			n++
			if !strings.Contains(req.Messages[len(req.Messages)-1].Text, "were compacted") {
				f.prefixMin = min(f.prefixMin, share)
			}
		}
		prev = cur
		calls++
		step := calls
		last := ""
		for _, text := range since(req.Messages) {
			script.learn(text)
			// The variable the latest step made, from its announcement or,
			// after a compaction, from the summary.
			if m := made.FindAllStringSubmatch(text, -1); len(m) > 0 {
				last = m[len(m)-1][1]
			}
		}
		if len(script.created) >= 3 && third == "" {
			third = script.created[2]
		}
		id := fmt.Sprintf("call_%d", step)
		switch {
		case step < longSteps-1:
			return llm.CallTools(llm.ToolCall{ID: id, Name: "fetch_record", Arguments: fmt.Sprintf(`{"n":%d}`, step)}), nil
		case step == longSteps-1:
			if !strings.Contains(string(cur), "<<var:"+third+">>") {
				t.Errorf("at step %d the request does not name %s, the record of step 3", step, third)
			}
			return llm.CallTools(llm.ToolCall{ID: id, Name: "count_words", Arguments: `{"text":"<<var:` + third + `>>"}`}), nil
		default:
			return llm.CallTools(llm.ToolCall{ID: id, Name: "terminate", Arguments: `{"success":true,"result":"<<var:` + last + `>>"}`}), nil
		}
	})
	rt, err := agent.New(agent.Options{Model: model, Actions: action.MustSet(fetch, count), PreviewLimit: longPreview, DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := rt.Start(ctx, agent.RunOptions{
		Task: "Fetch the records one by one, then count the words of the third.", NonInteractive: true, Limits: agent.Limits{MaxSteps: longSteps, ContextWindow: longWindow},
	})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(countWords(record(3, body))); o.Status != run.StatusCompleted || string(o.Result) != string(want) {
		t.Fatalf("the run ended %s with %s (%s); want the word count of record 3, %s", o.Status, o.Result, o.Reason, want)
	}
	snap, err := h.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.steps, f.compactions = o.Steps, snap.Compactions
	f.prefixMean = shares / float64(n)
	return f
}

var (
	longOnce sync.Once
	longOf   longFigures
)

// longRunOnce is longRun, run once for every test that reads its figures.
func longRunOnce(t testing.TB) longFigures {
	longOnce.Do(func() { longOf = longRun(t) })
	return longOf
}

// TestLongRun: 500 steps with 50 MB of tool results stay within a
// 128k-token window (no request passes it; the run never fails for lack of
// window), each request keeps on average 90% or more of the previous one,
// and at step 499 the model passes a variable of step 3 by reference.
func TestLongRun(t *testing.T) {
	f := longRunOnce(t)
	t.Logf("%d steps, %.1f MB of results, %d compactions, largest request %d tokens, prefix kept mean %.2f%%, min between compactions %.2f%%",
		f.steps, float64(f.resultBytes)/(1<<20), f.compactions, f.maxTokens, 100*f.prefixMean, 100*f.prefixMin)
	if f.steps != longSteps || f.resultBytes < 50<<20 {
		t.Errorf("%d steps and %d bytes of results; the scenario is %d steps and 50 MB", f.steps, f.resultBytes, longSteps)
	}
	if f.compactions == 0 {
		t.Error("the run never compacted: the scenario does not outgrow the window")
	}
	if f.maxTokens > longWindow {
		t.Errorf("a request of %d tokens passes the %d-token window", f.maxTokens, longWindow)
	}
	if f.prefixMean < 0.9 {
		t.Errorf("each request keeps %.1f%% of the previous one on average; the goal is 90%%", 100*f.prefixMean)
	}
	if f.prefixMin < 0.95 {
		t.Errorf("a request that follows no compaction keeps only %.1f%% of the previous one; the goal is 95%%", 100*f.prefixMin)
	}
}
