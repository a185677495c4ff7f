// Command a2a shows byref and Agent2Agent (A2A) in both directions, on
// scripted models (no API key, no network beyond 127.0.0.1):
//
//  1. serving: a byref agent, "weather", is served over A2A beside ACP.
//     It asks which city (the task goes input-required), and its typed
//     result comes back as an artifact with its JSON Schema. An A2A
//     client (the official Go SDK's) streams the task and answers.
//
//  2. calling: a byref run imports that agent as an action
//     (a2a.Import). The remote question becomes the run's own await; the
//     answer is passed through; the remote artifact becomes a variable,
//     which a local action then takes by reference.
//
//     go run ./examples/a2a
//
// The agent stays up with -serve, for other clients (byref a2a call
// http://127.0.0.1:8321 "weather please", or the JavaScript SDK):
//
//	go run ./examples/a2a -serve 127.0.0.1:8321
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// Weather is the agent's typed result.
type Weather struct {
	City    string `json:"city"`
	Celsius int    `json:"celsius"`
}

// weatherModel plays the remote agent's model: it asks which city, then
// terminates with the weather in the city it was told.
var weatherModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	for _, m := range req.Messages {
		if m.Role != llm.RoleTool {
			continue
		}
		// The tool response names the variable holding the answer, with a
		// preview: the city.
		var resp struct {
			Variables []struct{ Preview string } `json:"variables"`
		}
		city := "Paris"
		if json.Unmarshal([]byte(m.Text), &resp) == nil && len(resp.Variables) > 0 {
			city = resp.Variables[0].Preview
			_ = json.Unmarshal([]byte(city), &city) // a quoted preview
		}
		b, _ := json.Marshal(Weather{City: city, Celsius: 21})
		return llm.CallTool(action.TerminateName, `{"success":true,"result":`+string(b)+`}`), nil
	}
	return llm.CallTool(action.AskUserName, `{"question":"Which city?"}`), nil
})

// callerModel plays the local agent's model: it asks the remote agent,
// then passes its artifact by reference to report.
var callerModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	tools := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			tools++
		}
	}
	switch tools {
	case 0:
		return llm.CallTool("weather", `{"task":"What is the weather?","return":null}`), nil
	case 1:
		return llm.CallTool("report", `{"forecast":"<<var:weather_result>>","return":null}`), nil
	}
	return llm.Text("Reported."), nil
})

// report is a local action that takes the remote artifact by reference.
var report = action.MustNew(action.Spec{
	Name: "report", Description: "Write a forecast into the report.",
	Func: func(forecast json.RawMessage) (string, error) {
		var w Weather
		if err := json.Unmarshal(forecast, &w); err != nil {
			return "", err
		}
		return fmt.Sprintf("Report: %d°C in %s", w.Celsius, w.City), nil
	},
	Params: []action.Param{{Name: "forecast"}},
})

func main() {
	addr := flag.String("serve", "", "keep serving the weather agent on this loopback address after the walk-through")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := walk(ctx, os.Stdout, *addr); err != nil {
		log.Fatal(err)
	}
}

// walk serves the weather agent, walks through both directions, and, with
// addr set, serves until ctx is done.
func walk(ctx context.Context, out io.Writer, addr string) error {
	remote, err := agent.New(agent.Options{Model: weatherModel, DisableSnippets: true})
	if err != nil {
		return err
	}
	srv, err := server.New(server.Options{Agents: []server.Agent{{
		Name: "weather", Description: "Says the weather in a city; asks which city.", Agent: remote,
		Run: agent.RunOptions{ResultSchema: agent.ResultSchemaFor[Weather]()},
	}}})
	if err != nil {
		return err
	}
	defer srv.Close()
	if _, err := a2a.Mount(srv, a2a.Options{}); err != nil {
		return err
	}
	keep := addr != ""
	if !keep {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	sctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	url := "http://" + ln.Addr().String() + "/a2a/weather"

	fmt.Fprintf(out, "== 1. byref serves A2A: card %s/.well-known/agent-card.json\n", url)
	if err := serveDirection(ctx, out, url); err != nil {
		return err
	}
	fmt.Fprintln(out, "== 2. byref calls an A2A agent as an action")
	if err := callDirection(ctx, out, url); err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(out, "serving %s until Ctrl-C\n", url)
		<-ctx.Done()
	}
	stopServing()
	return <-served
}

// serveDirection streams a task with the Go SDK's client and answers its
// question.
func serveDirection(ctx context.Context, out io.Writer, url string) error {
	c, card, err := a2a.NewClient(ctx, url, a2a.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Destroy()
	fmt.Fprintf(out, "card: %s, skills %d, streaming %v\n", card.Name, len(card.Skills), card.Capabilities.Streaming)
	var task *sdk.Task
	for ev, err := range c.SendStreamingMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("What is the weather?"))}) {
		if err != nil {
			return err
		}
		switch e := ev.(type) {
		case *sdk.Task:
			task = e
			fmt.Fprintf(out, "task: %s\n", state(e.Status))
		case *sdk.TaskStatusUpdateEvent:
			fmt.Fprintf(out, "status: %s\n", state(e.Status))
		}
	}
	res, err := c.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("Paris"))})
	if err != nil {
		return err
	}
	done := res.(*sdk.Task)
	fmt.Fprintf(out, "answered \"Paris\" on the same task: %s\n", state(done.Status))
	for _, a := range done.Artifacts {
		b, _ := json.Marshal(a.Parts[0].Data())
		_, typed := a.Metadata["schema"]
		fmt.Fprintf(out, "artifact %s: %s (with its JSON Schema: %v)\n", a.Name, b, typed)
	}
	return nil
}

// callDirection runs a local agent that imports the weather agent.
func callDirection(ctx context.Context, out io.Writer, url string) error {
	weather, err := a2a.Import(ctx, url, a2a.ImportOptions{Name: "weather"})
	if err != nil {
		return err
	}
	a, err := agent.New(agent.Options{Model: callerModel, Actions: action.MustSet(weather, report), DisableSnippets: true})
	if err != nil {
		return err
	}
	h, err := a.Start(ctx, agent.RunOptions{Task: "Put the weather in the report."})
	if err != nil {
		return err
	}
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			return err
		}
		switch d := e.Payload.(type) {
		case run.ToolCallScheduled:
			fmt.Fprintf(out, "call: %s %s\n", d.Call.Name, d.Call.Arguments)
		case run.VariableCreated:
			fmt.Fprintf(out, "variable %s (%s) = %s\n", d.Variable.Name, d.Variable.Type, d.Variable.Preview)
		case run.AwaitRequested:
			// The remote question is this run's await; a person would
			// answer it (the inspector, byref run, an ACP or A2A client).
			fmt.Fprintf(out, "the run awaits %s: %s; answering \"Lyon\"\n", d.Await, d.Message)
			answer := run.Answer{Input: json.RawMessage(`"Lyon"`)}
			if err := h.Resume(ctx, d.ID, answer); err != nil {
				return err
			}
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
			break
		}
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	v, _ := h.State().Variable("report_result")
	fmt.Fprintf(out, "run %s: %v\n", o.Status, v.Value)
	return nil
}

func state(s sdk.TaskStatus) string {
	name := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s.State), "TASK_STATE_")), "_", "-")
	if s.Message != nil && len(s.Message.Parts) > 0 && s.Message.Parts[0].Text() != "" {
		return name + " (" + strings.SplitN(s.Message.Parts[0].Text(), "\n", 2)[0] + ")"
	}
	return name
}
