package eval_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
)

// TestTokenBudget: once the trials have spent the budget, no more start,
// and the report says why.
func TestTokenBudget(t *testing.T) {
	set := manyCases(4)
	r, err := eval.Run(context.Background(), set, eval.Options{Model: goodModel(), Parallel: 1, TokenBudget: 500})
	if err != nil {
		t.Fatal(err)
	}
	// Each trial spends 240 tokens: two start, the third finds 480 spent
	// and runs (480 < 500), the fourth does not.
	last := r.Cases[3].Trials[0]
	if last.Passed || !strings.Contains(last.Error, "token budget (500) was spent") || last.RunID != "" {
		t.Fatalf("the fourth trial: %+v", last)
	}
	if r.Cases[0].Trials[0].Error != "" {
		t.Fatalf("the first trial did not run: %s", r.Cases[0].Trials[0].Error)
	}
}

// blocking is a model that waits until its context is done: a run that
// would go on for ever.
type blocking struct{ started chan struct{} }

func (b blocking) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

// TestStopped: a run still going when the eval's context is done is
// canceled, and trials not started are not run. The time budget works the
// same way through a deadline; here the caller cancels once the first run
// has started, so the test does not depend on the clock.
func TestStopped(t *testing.T) {
	set := manyCases(3)
	b := blocking{started: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.started
		cancel()
	}()
	r, err := eval.Run(ctx, set, eval.Options{Model: b, Parallel: 1, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	first, rest := r.Cases[0].Trials[0], r.Cases[2].Trials[0]
	if first.Status != "canceled" || !strings.Contains(first.Error, "the eval was stopped (context canceled) while the run went on; it was canceled") {
		t.Fatalf("the running trial: %s %s", first.Status, first.Error)
	}
	if !strings.Contains(rest.Error, "not run") || rest.RunID != "" {
		t.Fatalf("a trial after the budget: %+v", rest)
	}
}

// counting counts how many calls are in flight at once.
type counting struct {
	in, most atomic.Int32
	model    llm.Model
}

func (c *counting) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := c.in.Add(1)
	defer c.in.Add(-1)
	for {
		m := c.most.Load()
		if n <= m || c.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(time.Millisecond) // give other trials the chance to overlap
	return c.model.Generate(ctx, req)
}

// TestParallelLimit: no more than Options.Parallel trials run at once.
func TestParallelLimit(t *testing.T) {
	m := &counting{model: goodModel()}
	r, err := eval.Run(context.Background(), manyCases(12), eval.Options{Model: m, Parallel: 3, Repetitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.most.Load(); got > 3 {
		t.Fatalf("%d model calls at once with Parallel 3", got)
	}
	if len(r.Cases) != 12 || len(r.Cases[11].Trials) != 2 {
		t.Fatal("trials missing")
	}
}

// TestTimeBudget: with a budget already spent (a deadline in the past, so
// no clock decides), no trial runs and each says which budget.
func TestTimeBudget(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	r, err := eval.Run(ctx, manyCases(2), eval.Options{Model: goodModel(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if tr := r.Cases[1].Trials[0]; !strings.Contains(tr.Error, "not run: the time budget (1m0s) was spent") {
		t.Fatalf("%+v", tr)
	}
}
