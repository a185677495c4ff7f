// Quickstart runs the weather task: the model passes the variable city to
// get_weather by reference (<<var:city>>), the result becomes the variable
// weather, and the model returns it by reference too.
//
// It runs on llm.NewScripted, a model that plays back what a real model would
// send, so it needs no API key and no network: go run ./examples/quickstart.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	weather := action.MustNew(action.Spec{
		Name:        "get_weather",
		Description: "Get the weather for a given location.",
		Func: func(location, unit string) string {
			return "sunny, 21°" + unit + " in " + location
		},
		Params: []action.Param{
			{Name: "location", Description: "The city."},
			{Name: "unit", Enum: []any{"C", "F"}},
		},
	})
	// To ask a real model instead (it reads OPENAI_API_KEY), register the
	// providers with import _ "github.com/byref/byref/llm/providers", then:
	//
	//	model, err := llm.Open("openai:gpt-4o-mini")
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"C","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	a, err := agent.New(agent.Options{
		Actions:   action.MustSet(weather),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
		Model:     model,
	})
	if err != nil {
		return err
	}
	h, err := a.Start(ctx, agent.RunOptions{Task: "What is the weather in the city?"})
	if err != nil {
		return err
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	// The run's own state: its history and variables.
	for _, in := range h.State().History() {
		fmt.Fprintf(w, "step %d: %s %s\n", in.Step, in.Action, in.Arguments)
	}
	weatherVar, _ := h.State().Variable("weather")
	fmt.Fprintf(w, "variable weather = %s\n", weatherVar.Preview(80))
	fmt.Fprintf(w, "%s after %d steps: %s\n", o.Status, o.Steps, o.Result)
	return nil
}
