// Evals checks a weather agent with an eval set: three cases, one of which
// fails on purpose, recorded once on a model into cassettes, then replayed
// with no model at all, as CI would run them without a key.
//
// The "real" model here is llm.NewScriptedFunc, so the example needs no key
// either: go run ./examples/evals. Record on a provider's model by passing
// it as Options.Model with Options.Record, then commit the set directory.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

func main() {
	dir, err := os.MkdirTemp("", "byref-evals-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "evals:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), os.Stdout, dir); err != nil {
		fmt.Fprintln(os.Stderr, "evals:", err)
		os.Exit(1)
	}
}

// Forecast is what the agent's action returns.
type Forecast struct {
	City    string
	Celsius int
	Sky     string
}

// agent is the agent under test: one action, and the user's profile as a
// variable, with a secret the model must never see.
func newAgent() agent.Options {
	return agent.Options{
		Actions: action.MustSet(action.MustNew(action.Spec{
			Name: "forecast", Description: "Tomorrow's forecast for a city.",
			Func:   func(city string) Forecast { return Forecast{City: city, Celsius: 21, Sky: "sunny"} },
			Params: []action.Param{{Name: "city"}},
		})),
		Variables: []variable.Spec{
			{Name: "home", Value: "Lyon", Description: "the user's home town"},
			{Name: "api_key", Value: "wx-7f3a9c21e0", Secret: true},
		},
		DisableSnippets: true,
	}
}

// cases are what the agent must do.
func cases() []*eval.Case {
	return []*eval.Case{
		{Name: "home-forecast", Task: "Will it be sunny at home tomorrow?", Expect: []eval.Expectation{
			eval.Status("completed"),
			eval.MatchesSchema([]byte(`{"type":"object","required":["City","Celsius","Sky"]}`)),
			eval.Predicate("sunny", func(t *eval.Trial) error {
				if !strings.Contains(string(t.Result), "sunny") {
					return fmt.Errorf("the result %s does not say sunny", t.Result)
				}
				return nil
			}),
			eval.CalledExactly(eval.Call("forecast", "city", "<<var:home>>")),
			eval.GotRef("forecast", "city", "home"),
			eval.NoCopies(), eval.NoSecrets(), eval.MaxSteps(2),
		}},
		{Name: "paris", Task: "How warm will Paris be tomorrow?", Expect: []eval.Expectation{
			eval.Equal(Forecast{City: "Paris", Celsius: 21, Sky: "sunny"}),
			eval.Called(eval.Call("forecast", "city", "Paris")),
		}},
		{Name: "no-guessing", FailsOnPurpose: "the model answers from memory instead of calling forecast",
			Task: "Will it rain in Oslo tomorrow?", Expect: []eval.Expectation{eval.Called(eval.Call("forecast"))}},
	}
}

// model plays what a model would send for each task.
func model() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		task, last := req.Messages[1].Text, req.Messages[len(req.Messages)-1]
		switch {
		case strings.Contains(task, "Oslo"):
			return llm.Text("Probably not."), nil
		case last.Role == llm.RoleTool:
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "terminate", Arguments: `{"success":true,"result":"<<var:forecast_result>>"}`}}}, nil
		case strings.Contains(task, "Paris"):
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "forecast", Arguments: `{"city":"Paris"}`}}}, nil
		}
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "forecast", Arguments: `{"city":"<<var:home>>"}`}}}, nil
	})
}

func run(ctx context.Context, w io.Writer, dir string) error {
	// Once, with the model: record every exchange, and keep the set.
	set := &eval.Set{Name: "weather", Agent: newAgent(), Cases: cases()}
	if _, err := eval.Run(ctx, set, eval.Options{Model: model(), ModelName: "scripted", Record: true}); err != nil {
		return err
	}
	setDir := filepath.Join(dir, "weather")
	if err := set.Save(setDir); err != nil {
		return err
	}

	// In CI, with no model: load the set and replay its cassettes, three
	// times each.
	loaded, err := eval.Load(setDir)
	if err != nil {
		return err
	}
	loaded.Agent = newAgent()
	loaded.Predicates = map[string]func(*eval.Trial) error{"sunny": cases()[0].Expect[2].Func()}
	report, err := eval.Run(ctx, loaded, eval.Options{Repetitions: 3})
	if err != nil {
		return err
	}
	if err := report.WriteTable(w); err != nil {
		return err
	}
	page, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	defer page.Close()
	if err := report.WriteHTML(page); err != nil {
		return err
	}
	fmt.Fprintf(w, "all as they should be: %v\n", report.OK())
	return nil
}
