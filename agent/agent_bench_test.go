package agent_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

var noop = action.MustNew(action.Spec{Name: "noop", Func: func(x int) int { return x }, Params: []action.Param{{Name: "x"}}})

// stepModel calls noop steps times, then terminates, deciding from the
// conversation so that it keeps no state and records nothing.
type stepModel struct{ steps int }

var (
	noopCall      = llm.CallTool("noop", `{"x":"<<var:n>>","return":"n"}`)
	terminateCall = llm.CallTool("terminate", `{"success":true,"result":null}`)
)

func (m stepModel) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	if (len(req.Messages)-2)/2 >= m.steps {
		return terminateCall, nil
	}
	r := noopCall
	r.ToolCalls = []llm.ToolCall{{ID: "c" + strconv.Itoa(len(req.Messages)), Name: "noop", Arguments: noopCall.ToolCalls[0].Arguments}}
	return r, nil
}

// stepRuntimes returns a maker of runtimes whose model calls noop steps
// times, then terminates, all recording into one memory store.
func stepRuntimes(b *testing.B, steps int) func() *agent.Agent {
	actions := action.MustSet(noop)
	store := run.NewMemoryStore()
	return func() *agent.Agent {
		rt, err := agent.New(agent.Options{Actions: actions, Model: stepModel{steps}, Store: store, DisableSnippets: true,
			Variables: []variable.Spec{{Name: "n", Value: 1}}})
		if err != nil {
			b.Fatal(err)
		}
		return rt
	}
}

// BenchmarkLoopStep: the loop's overhead per step (a model call, a tool
// call, its events in the memory store), with a model and an action that
// do nothing. Each iteration is a run of 10 steps and a terminate; ns/step
// is the figure to read.
func BenchmarkLoopStep(b *testing.B) {
	const steps = 10
	newRuntime := stepRuntimes(b, steps)
	b.ReportAllocs()
	for b.Loop() {
		rt := newRuntime()
		o, err := rt.Run(context.Background(), agent.RunOptions{Task: "loop"})
		if err != nil || o.Status != run.StatusCompleted || o.Steps != steps+1 {
			b.Fatalf("%+v %v", o, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(steps+1)), "ns/step")
}

// blockingModel waits until released: a run waiting on its model.
type blockingModel struct{ release chan struct{} }

func (m blockingModel) Generate(ctx context.Context, _ llm.Request) (llm.Response, error) {
	select {
	case <-m.release:
		return llm.CallTool("terminate", `{"success":true,"result":null}`), nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// BenchmarkWaitingRunMemory reports the memory held by each of 10,000
// concurrent runs while they wait on their model: heap and goroutine stacks,
// after a GC, divided by the number of runs.
func BenchmarkWaitingRunMemory(b *testing.B) {
	const runs = 10_000
	for b.Loop() {
		b.StopTimer()
		model := blockingModel{release: make(chan struct{})}
		store := run.NewMemoryStore()
		actions := action.MustSet(weatherAction)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		handles := make([]*agent.Handle, 0, runs)
		for i := 0; i < runs; i++ {
			rt, err := agent.New(agent.Options{Actions: actions, Model: model, Store: store,
				Variables: []variable.Spec{{Name: "city", Value: fmt.Sprintf("city%d", i)}}})
			if err != nil {
				b.Fatal(err)
			}
			h, err := rt.Start(context.Background(), agent.RunOptions{Task: "what is the weather in the city?"})
			if err != nil {
				b.Fatal(err)
			}
			handles = append(handles, h)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRun := float64((after.HeapInuse+after.StackInuse)-(before.HeapInuse+before.StackInuse)) / runs
		b.ReportMetric(perRun, "bytes/run")
		close(model.release)
		for _, h := range handles {
			h.Wait(context.Background())
		}
		b.StartTimer()
	}
}

// BenchmarkDrivenLoopStep: BenchmarkLoopStep with the run driven, as an
// engine drives it (package temporal): every model call and step waits for
// Advance, and the pauses carry the events. The difference between the
// two ns/step is the cost of the rendezvous.
func BenchmarkDrivenLoopStep(b *testing.B) {
	const steps = 10
	newRuntime := stepRuntimes(b, steps)
	b.ReportAllocs()
	for b.Loop() {
		h, err := newRuntime().Start(context.Background(), agent.RunOptions{Task: "loop", Driven: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			p, err := h.Advance(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if p.Kind == agent.PauseEnded {
				if p.Outcome.Status != run.StatusCompleted || p.Outcome.Steps != steps+1 {
					b.Fatalf("%+v", p.Outcome)
				}
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(steps+1)), "ns/step")
}
