package agent_test

import (
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// The seed's example: three string variables, get_weather(location, unit).
func TestWeatherSchemaMatchesSeedShape(t *testing.T) {
	st := weatherState(t)
	tools := st.Tools()
	if len(tools) != 3 || tools[0].Name != "get_weather" || tools[1].Name != "terminate" || tools[2].Name != "run_go" {
		t.Fatalf("tools = %v, want get_weather, then the built-ins terminate and run_go", names(tools))
	}
	golden(t, "get_weather.schema.json", indent(t, tools[0].Parameters))
	golden(t, "terminate.schema.json", indent(t, tools[1].Parameters))
	for _, tool := range tools {
		if err := schema.CheckOpenAIStrict(tool); err != nil {
			t.Errorf("OpenAI strict: %v", err)
		}
		if err := schema.CheckAnthropic(tool); err != nil {
			t.Errorf("Anthropic: %v", err)
		}
	}
}

func TestWeatherCallCreatesVariable(t *testing.T) {
	st := weatherState(t)
	resp := call(st, "get_weather", `{"location":"<<var:location>>","unit":"c","return":null}`)
	if !resp.Success {
		t.Fatalf("call failed: %s", resp.Error)
	}
	if len(resp.Variables) != 1 || resp.Variables[0].Name != "weather" || resp.Variables[0].Change != "created" {
		t.Fatalf("variables = %+v, want weather created", resp.Variables)
	}
	got, err := agent.Value[string](st, "weather")
	if err != nil || got != "sunny, 21°C in Paris" {
		t.Fatalf("weather = %q, %v", got, err)
	}
	v, _ := st.Variable("weather")
	if h := v.History; len(h) != 1 || h[0].Step != 1 || h[0].Kind != variable.Created || h[0].By != "get_weather" {
		t.Fatalf("history = %+v", h)
	}
	want := `{"success":true,"variables":[{"name":"weather","type":"string","preview":"sunny, 21°C in Paris","change":"created"}]}`
	if resp.Content() != want {
		t.Fatalf("content = %s\nwant %s", resp.Content(), want)
	}
	hist := st.History()
	if len(hist) != 1 || hist[0].Args[0].Ref != "location" || string(hist[0].Args[1].Raw) != `"c"` || hist[0].Return != "weather" || !hist[0].ReturnCreated {
		t.Fatalf("history = %+v", hist)
	}
}

func TestReturnIntoExistingVariable(t *testing.T) {
	st := weatherState(t)
	resp := call(st, "get_weather", `{"location":"Lyon","unit":"f","return":"country_of_origin"}`)
	if !resp.Success || resp.Variables[0].Change != "assigned" {
		t.Fatalf("resp = %+v", resp)
	}
	got, _ := agent.Value[string](st, "country_of_origin")
	if got != "sunny, 21°F in Lyon" {
		t.Fatalf("country_of_origin = %q", got)
	}
	// A second call's result gets a fresh, readable name.
	call(st, "get_weather", `{"location":"Nice","unit":"c","return":null}`)
	call(st, "get_weather", `{"location":"Nice","unit":"c","return":null}`)
	if _, ok := st.Variable("weather_2"); !ok {
		t.Fatal("the second new result should be weather_2")
	}
}

func names(tools []schema.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}
