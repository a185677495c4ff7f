// Snippets shows a snippet-driven task: instead of one tool call per step,
// the model writes Go code in a fenced block. The code sees the variable
// sales as a real []Row, names the host's type as the prompt shows it
// (main.Row), loops over it, calls the action notify as a plain Go
// function, and its new top-level variables (totals, best, biggest) become
// run variables that the model then returns by reference.
//
// It runs on llm.NewScripted, a model that plays back what a real model would
// send, so it needs no API key and no network: go run ./examples/snippets.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "snippets:", err)
		os.Exit(1)
	}
}

// Row is one sale.
type Row struct {
	Region string
	Amount float64
}

// code is what the scripted model writes: plain Go over the variables.
const code = "I will total the sales by region in Go and tell the team.\n```go\n" + `totals := map[string]float64{}
for _, r := range sales {
	totals[r.Region] += r.Amount
}
best := ""
for _, region := range []string{"APAC", "EU", "US"} {
	if best == "" || totals[region] > totals[best] {
		best = region
	}
}
biggest := main.Row{}
for _, r := range sales {
	if r.Amount > biggest.Amount {
		biggest = r
	}
}
if _, err := notify("sales", fmt.Sprintf("best region: %s with %.2f", best, totals[best])); err != nil {
	panic(err)
}
fmt.Printf("%d sales, best region %s, biggest sale %v\n", len(sales), best, biggest)
` + "```"

func run(ctx context.Context, w io.Writer) error {
	var sent []string // what notify delivered
	notify := action.MustNew(action.Spec{
		Name:        "notify",
		Description: "Post a message to a team channel.",
		Func: func(channel, text string) (string, error) {
			sent = append(sent, "#"+channel+": "+text)
			return "posted to #" + channel, nil
		},
		Params: []action.Param{{Name: "channel"}, {Name: "text"}},
	})
	sales := []Row{{"EU", 120.5}, {"US", 99}, {"EU", 30}, {"APAC", 200}, {"US", 80.25}, {"APAC", 12}}

	// The model's turns; llm.Open("openai:gpt-4o-mini") would ask a real one.
	model := llm.NewScripted(
		llm.Text(code),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:best>>"}`),
	)
	a, err := agent.New(agent.Options{
		Actions:   action.MustSet(notify),
		Variables: []variable.Spec{{Name: "sales", Value: sales, Description: "this week's sales"}},
		Model:     model,
	})
	if err != nil {
		return err
	}
	h, err := a.Start(ctx, agent.RunOptions{Task: "Which region sold the most this week? Tell the sales team."})
	if err != nil {
		return err
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	for _, in := range h.State().History() {
		if in.Kind == agent.KindSnippet {
			fmt.Fprintf(w, "step %d: a snippet of %d lines read %s and created %s\n",
				in.Step, strings.Count(in.Code, "\n")+1, strings.Join(in.Reads, ", "), strings.Join(in.Created, ", "))
		}
	}
	for _, s := range sent {
		fmt.Fprintln(w, "notify:", s)
	}
	totals, err := agent.Value[map[string]float64](h.State(), "totals")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "totals: APAC %.2f, EU %.2f, US %.2f\n", totals["APAC"], totals["EU"], totals["US"])
	fmt.Fprintf(w, "%s after %d steps: %s\n", o.Status, o.Steps, o.Result)
	// What the model read back after its code ran.
	reqs := model.Requests()
	msgs := reqs[len(reqs)-1].Messages
	fmt.Fprintf(w, "the model was told: %s\n", msgs[len(msgs)-1].Text)
	return nil
}
