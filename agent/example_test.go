package agent_test

import (
	"context"
	"fmt"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Register a plain Go function as an action.
func Example_registerAction() {
	weather := action.MustNew(action.Spec{
		Name:        "get_weather",
		Description: "Get the weather for a given location.",
		Func: func(ctx context.Context, location, unit string) (string, error) {
			return "sunny in " + location, nil
		},
		Params: []action.Param{
			{Name: "location", Description: "The city."},
			{Name: "unit", Enum: []any{"c", "f"}, Default: "c"},
		},
	})
	for _, p := range weather.Params() {
		fmt.Printf("%s %s optional=%v refs=%v\n", p.Name, p.Type, p.Optional, p.Refs())
	}
	fmt.Println("returns", weather.Result())
	// Output:
	// location string optional=false refs=true
	// unit string optional=true refs=false
	// returns string
}

// Read the schemas the model sees: the location parameter takes a raw
// string or a reference to one of the string variables.
func ExampleState_Tools() {
	a, _ := agent.New(agent.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
	})
	st, _ := a.NewState()
	for _, t := range st.Tools() {
		fmt.Println(t.Name)
	}
	fmt.Println(st.Compatible("get_weather", "location"))
	fmt.Println(string(st.Tools()[0].Parameters)[:60] + "…")
	// Output:
	// get_weather
	// terminate
	// run_go
	// [city]
	// {"type":"object","properties":{"location":{"description":"Th…
}

// Execute a call exactly as a model sends it, with a reference to a
// variable; the result lands in a new variable.
func ExampleState_Execute() {
	a, _ := agent.New(agent.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
	})
	st, _ := a.NewState()
	res := st.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{{
		ID:        "call_1",
		Name:      "get_weather",
		Arguments: `{"location": "<<var:city>>", "unit": "c", "return": null}`,
	}}})
	fmt.Println(res.Responses[0].Content())
	w, _ := agent.Value[string](st, "weather")
	fmt.Println(w)
	// Output:
	// {"success":true,"variables":[{"name":"weather","type":"string","preview":"sunny, 21°C in Paris","change":"created"}]}
	// sunny, 21°C in Paris
}

// A step with a Go snippet: variables are Go identifiers of their real
// types, and new top-level variables become run variables.
func ExampleState_Execute_snippet() {
	a, _ := agent.New(agent.Options{
		Variables: []variable.Spec{{Name: "prices", Value: []float64{12.5, 7.25, 30}}},
	})
	st, _ := a.NewState()
	res := st.Execute(context.Background(), agent.Step{Snippets: []string{`
total := 0.0
for _, p := range prices {
	total += p
}
fmt.Printf("%.2f\n", total)`}})
	s := res.Snippets[0]
	fmt.Print(s.Stdout)
	fmt.Println(s.Variables[0].Name, s.Variables[0].Type, s.Variables[0].Change)
	// Output:
	// 49.75
	// total float64 created
}

// Actions are callable from a snippet as Go functions with their own
// signature, so code and JSON calls compose; a tool call of the same step
// can then pass what the snippet made by reference.
func ExampleState_Execute_actionFromCode() {
	a, _ := agent.New(agent.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "cities", Value: []string{"Paris", "Oslo"}}},
	})
	st, _ := a.NewState()
	res := st.Execute(context.Background(), agent.Step{
		Snippets: []string{`
report := ""
for _, c := range cities {
	report += get_weather(c, "c") + "; "
}`},
		Calls: []agent.ToolCall{{ID: "call_1", Name: "terminate", Arguments: `{"success":true,"result":"<<var:report>>"}`}},
	})
	fmt.Println(res.Termination.Result)
	// Output:
	// sunny, 21°C in Paris; sunny, 21°C in Oslo;
}

// Run an agent: the scripted model plays what a model would send.
func ExampleAgent_Run() {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	a, _ := agent.New(agent.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
		Model:     model,
	})
	out, _ := a.Run(context.Background(), agent.RunOptions{Task: "What is the weather in the city?"})
	fmt.Println(out.Status, string(out.Result), out.Steps)
	// Output:
	// completed "sunny, 21°C in Paris" 2
}

// A run that asks its user a question waits until Resume answers it.
func ExampleHandle_Resume() {
	model := llm.NewScripted(
		llm.CallTool("ask_user", `{"question":"Which city?","return":null}`),
		llm.CallTool("get_weather", `{"location":"<<var:ask_user_result>>","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	a, _ := agent.New(agent.Options{Actions: action.MustSet(weatherAction), Model: model})
	ctx := context.Background()
	h, _ := a.Start(ctx, agent.RunOptions{Task: "What is the weather?"})
	for e := range h.Events(ctx, 1) {
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			fmt.Println(req.Await, req.Message)
			h.Resume(ctx, req.ID, run.Answer{Text: "Oslo"})
		}
	}
	out, _ := h.Wait(ctx)
	fmt.Println(out.Status, string(out.Result))
	// Output:
	// question Which city?
	// completed "sunny, 21°C in Oslo"
}

// A run's history is a fold of its log: each call with how its arguments
// were resolved, failed ones included.
func ExampleHandle_History() {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:town>>","unit":"c","return":null}`),
		llm.Response{Text: "Look it up.", ToolCalls: []llm.ToolCall{{ID: "c2", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}}},
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	a, _ := agent.New(agent.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
		Model:     model,
	})
	ctx := context.Background()
	h, _ := a.Start(ctx, agent.RunOptions{Task: "What is the weather in the city?"})
	h.Wait(ctx)
	history, _ := h.History(ctx)
	for _, in := range history {
		switch {
		case !in.OK():
			fmt.Printf("step %d: %s failed: %.40s…\n", in.Step, in.Action, in.Err)
		case in.Return != "":
			fmt.Printf("step %d: %s(location=<<var:%s>>) -> %s, because %q\n", in.Step, in.Action, in.Args[0].Ref, in.Return, in.Reason)
		default:
			fmt.Printf("step %d: %s\n", in.Step, in.Action)
		}
	}
	// Output:
	// step 1: get_weather failed: <<var:town>> is not a variable; compatib…
	// step 2: get_weather(location=<<var:city>>) -> weather, because "Look it up."
	// step 3: terminate
}

// Order is a row of the table the chat of Example_session loads.
type Order struct {
	ID   int
	Late bool
}

// A chat of two messages in one session: the first loads a table, the
// second filters it by reference. Each message is a run; the second starts
// with the variables the first left, and with its messages as history.
func Example_session() {
	load := action.MustNew(action.Spec{Name: "load_orders", Description: "Load the orders.",
		Func: func() []Order { return []Order{{1, false}, {2, true}, {3, true}} }})
	late := action.MustNew(action.Spec{Name: "late_orders", Description: "Keep the late orders.",
		Params: []action.Param{{Name: "orders"}},
		Func: func(orders []Order) (out []Order) {
			for _, o := range orders {
				if o.Late {
					out = append(out, o)
				}
			}
			return out
		}})
	model := llm.NewScripted(
		llm.CallTool("load_orders", `{}`), llm.Text("Loaded 3 orders."), // the first message
		llm.CallTool("late_orders", `{"orders":"<<var:orders>>"}`), llm.Text("2 are late."), // the next
	)
	a, _ := agent.New(agent.Options{Actions: action.MustSet(load, late), Model: model})
	ctx := context.Background()
	for _, text := range []string{"Load the orders.", "Now only the late ones."} {
		sess, _ := a.Session(ctx, "chat-42")
		out, _ := a.Run(ctx, agent.RunOptions{Session: "chat-42", History: agent.HistoryOf(sess), Task: text})
		fmt.Println(string(out.Result))
	}
	sess, _ := a.Session(ctx, "chat-42")
	for _, v := range sess.Variables {
		fmt.Println(v.Name, v.Type, v.Preview)
	}
	// Output:
	// "Loaded 3 orders."
	// "2 are late."
	// orders []agent_test.Order 3 rows × 2 columns (ID int, Late bool); first rows: {1, false}, {2, true}, {3, true}
	// late_orders_result []agent_test.Order 2 rows × 2 columns (ID int, Late bool); first rows: {2, true}, {3, true}
}
