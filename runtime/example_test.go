package runtime_test

import (
	"context"
	"fmt"

	"github.com/byref/byref/action"
	"github.com/byref/byref/runtime"
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
func ExampleRuntime_Tools() {
	rt, _ := runtime.New(runtime.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
	})
	for _, t := range rt.Tools() {
		fmt.Println(t.Name)
	}
	fmt.Println(rt.Compatible("get_weather", "location"))
	fmt.Println(string(rt.Tools()[0].Parameters)[:60] + "…")
	// Output:
	// get_weather
	// terminate
	// run_go
	// [city]
	// {"type":"object","description":"Get the weather for a given …
}

// Execute a call exactly as a model sends it, with a reference to a
// variable; the result lands in a new variable.
func ExampleRuntime_Execute() {
	rt, _ := runtime.New(runtime.Options{
		Actions:   action.MustSet(weatherAction),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
	})
	res := rt.Execute(context.Background(), runtime.Step{Calls: []runtime.ToolCall{{
		ID:        "call_1",
		Name:      "get_weather",
		Arguments: `{"location": "<<var:city>>", "unit": "c", "return": null}`,
	}}})
	fmt.Println(res.Responses[0].Content())
	w, _ := runtime.Value[string](rt, "weather")
	fmt.Println(w)
	// Output:
	// {"success":true,"variables":[{"name":"weather","type":"string","preview":"\"sunny, 21°C in Paris\"","change":"created"}]}
	// sunny, 21°C in Paris
}
