// Async starts a run without waiting for it (Agent.Start), streams its
// event log to the terminal as progress lines while it goes (Handle.Events
// from sequence number 1: the stored events, then live ones, until the run
// ends), and then collects the outcome with Handle.Wait.
//
// It runs on llm.NewScripted, a model that plays back what a real model would
// send, so it needs no API key and no network: go run ./examples/async.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	runlog "github.com/byref/byref/run" // named apart from func run
	"github.com/byref/byref/variable"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "async:", err)
		os.Exit(1)
	}
}

// forecast is a slow action, so that the run is still going while its
// events are printed.
var forecast = action.MustNew(action.Spec{
	Name:        "forecast",
	Description: "Forecast the weather of a city for the next days.",
	Func: func(ctx context.Context, city string, days int) (string, error) {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("%s: sun for %d days, then rain", city, days), nil
	},
	Params: []action.Param{{Name: "city"}, {Name: "days"}},
})

func run(ctx context.Context, w io.Writer) error {
	// The model's turns: two forecasts in parallel, then the answer.
	// llm.Open("openai:gpt-4o-mini") would ask a real model.
	model := llm.NewScripted(
		llm.Response{Text: "Forecasting both cities at once.", ToolCalls: []llm.ToolCall{
			{Name: "forecast", Arguments: `{"city":"<<var:home>>","days":3,"return":null}`},
			{Name: "forecast", Arguments: `{"city":"Oslo","days":3,"return":null}`},
		}},
		llm.CallTool("terminate", `{"success":true,"result":"<<var:forecast_result>>"}`),
	)
	a, err := agent.New(agent.Options{
		Actions:   action.MustSet(forecast),
		Variables: []variable.Spec{{Name: "home", Value: "Lisbon"}},
		Model:     model,
	})
	if err != nil {
		return err
	}
	h, err := a.Start(ctx, agent.RunOptions{Task: "Forecast home and Oslo for 3 days.", Name: "forecasts"})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "started", h.Status())

	// Follow the log as it grows; the loop ends when the run ends.
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			return err
		}
		if line := progress(e); line != "" {
			fmt.Fprintf(w, "%3d %s\n", e.Seq, line)
		}
	}

	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s after %d steps: %s\n", o.Status, o.Steps, o.Result)
	return nil
}

// progress describes one event in a line; "" skips it.
func progress(e runlog.Event) string {
	switch d := e.Payload.(type) {
	case runlog.RunCreated:
		return "run created: " + d.Name
	case runlog.StatusChanged:
		return fmt.Sprintf("status %s -> %s", d.From, d.To)
	case runlog.PhaseChanged:
		return "phase " + string(d.To)
	case runlog.UserMessage:
		return "user: " + d.Text
	case runlog.AssistantMessage:
		return "assistant: " + d.Text
	case runlog.ToolCallScheduled:
		return fmt.Sprintf("call %s %s", d.Call.Name, d.Call.Arguments)
	case runlog.ToolCallCompleted:
		if !d.Success {
			return "call failed: " + d.Error
		}
		if len(d.Created) == 0 {
			return "call done"
		}
		var names []string
		for _, v := range d.Created {
			names = append(names, v.Name)
		}
		return "call done: created " + strings.Join(names, ", ")
	case runlog.VariableCreated:
		return fmt.Sprintf("variable %s = %s", d.Variable.Name, d.Variable.Preview)
	case runlog.Result:
		return "result " + string(d.Value)
	case runlog.Error:
		return "error: " + d.Message
	}
	return "" // usage and the rest
}
