package agent_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/variable"
)

// callingModel calls get_weather calls times, then terminate. Unlike
// llm.Scripted, it keeps no request, so that the memory a run keeps is the
// run's.
type callingModel struct{ calls, made int }

func (m *callingModel) Generate(ctx context.Context, _ llm.Request) (llm.Response, error) {
	m.made++
	if m.made > m.calls {
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "done", Name: "terminate", Arguments: `{"success":true,"result":"<<var:weather>>"}`}}}, nil
	}
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c" + strconv.Itoa(m.made), Name: "get_weather", Arguments: weatherCall}}}, nil
}

// heapAlloc is the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// recordedCalls is how many calls BenchmarkRecordedCallMemory records.
const recordedCalls = 2000

// weatherCall assigns the weather to the existing variable weather, so that
// the calls add no variables: what they leave behind is their record.
const weatherCall = `{"location":"<<var:city>>","unit":"c","return":"weather"}`

// BenchmarkRecordedCallMemory reports the memory a run or a State keeps
// per call it recorded (B/call): the live heap after recordedCalls calls,
// minus the heap before, divided by the calls, while the run or State is
// still held.
//
//   - state: a State with no run (Agent.NewState) executing one call per
//     step.
//   - run-memory: a run of one call per model step on the in-memory store,
//     which holds the log.
//   - run-sqlite: the same run on a SQLite store, which holds the log on
//     disk: what is left is what the run itself keeps.
func BenchmarkRecordedCallMemory(b *testing.B) {
	vars := []variable.Spec{{Name: "city", Value: "Paris"}, {Name: "weather", Value: ""}}
	b.Run("state", func(b *testing.B) {
		b.ReportAllocs()
		var perCall float64
		for b.Loop() {
			rt, err := agent.New(agent.Options{Actions: action.MustSet(weatherAction), Variables: vars})
			if err != nil {
				b.Fatal(err)
			}
			before := heapAlloc()
			st, _ := rt.NewState()
			step := agent.Step{Calls: []agent.ToolCall{{ID: "c", Name: "get_weather", Arguments: weatherCall}}}
			for range recordedCalls {
				if r := st.Execute(context.Background(), step); !r.Responses[0].Success {
					b.Fatal(r.Responses[0].Error)
				}
			}
			perCall = float64(int64(heapAlloc())-int64(before)) / recordedCalls
			runtime.KeepAlive(st)
		}
		b.ReportMetric(perCall, "B/call")
	})
	for _, store := range []string{"memory", "sqlite"} {
		b.Run("run-"+store, func(b *testing.B) {
			b.ReportAllocs()
			var perCall float64
			for b.Loop() {
				var s run.Store = run.NewMemoryStore()
				if store == "sqlite" {
					db, err := sqlite.Open(filepath.Join(b.TempDir(), "runs.db"), sqlite.Options{})
					if err != nil {
						b.Fatal(err)
					}
					defer db.Close()
					s = db
				}
				rt, err := agent.New(agent.Options{Actions: action.MustSet(weatherAction), Variables: vars, Model: &callingModel{calls: recordedCalls}, Store: s})
				if err != nil {
					b.Fatal(err)
				}
				before := heapAlloc()
				h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", Limits: agent.Limits{MaxSteps: recordedCalls + 1}})
				if err != nil {
					b.Fatal(err)
				}
				if o, _ := h.Wait(context.Background()); o.Status != run.StatusCompleted {
					b.Fatalf("outcome = %+v", o)
				}
				perCall = float64(int64(heapAlloc())-int64(before)) / recordedCalls
				runtime.KeepAlive(h)
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perCall, "B/call")
		})
	}
}
