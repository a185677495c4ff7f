package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/variable"
)

func getWeather(location, unit string) string {
	return "sunny, 21°" + map[string]string{"c": "C", "f": "F"}[unit] + " in " + location
}

func weatherRuntime(t testing.TB) *runtime.Runtime {
	t.Helper()
	a := action.MustNew(action.Spec{
		Name:        "get_weather",
		Description: "Get the weather for a given location.",
		Func:        getWeather,
		Params: []action.Param{
			{Name: "location", Description: "The location to get the weather for."},
			{Name: "unit", Description: "The unit of the weather.", Enum: []any{"c", "f"}},
		},
	})
	rt, err := runtime.New(runtime.Options{
		Actions: action.MustSet(a),
		Variables: []variable.Spec{
			{Name: "language", Value: "French"},
			{Name: "location", Value: "Paris"},
			{Name: "country_of_origin", Value: "France"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestWeatherSmoke(t *testing.T) {
	rt := weatherRuntime(t)
	for _, tool := range rt.Tools() {
		var v any
		if err := json.Unmarshal(tool.Parameters, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		t.Logf("%s: %s", tool.Name, b)
	}
	res := rt.Execute(context.Background(), runtime.Step{Calls: []runtime.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:location>>","unit":"c","return":null}`}}})
	t.Logf("%+v %s", res, res.Responses[0].Content())
}
