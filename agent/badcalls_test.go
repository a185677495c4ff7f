package agent_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

// state captures what a failed call must leave untouched.
type state struct {
	vars []variable.Variable
	fps  map[string]uint64
}

func capture(f *fixture) state {
	s := state{vars: f.st.Variables(), fps: map[string]uint64{}}
	for _, v := range s.vars {
		s.fps[v.Name] = variable.Fingerprint(v.Value)
	}
	return s
}

func (s state) equal(t *testing.T, o state) {
	t.Helper()
	if len(s.vars) != len(o.vars) {
		t.Fatalf("variables changed: %d before, %d after", len(s.vars), len(o.vars))
	}
	for i := range s.vars {
		a, b := s.vars[i], o.vars[i]
		if a.Name != b.Name || a.Type != b.Type || !reflect.DeepEqual(a.History, b.History) || s.fps[a.Name] != o.fps[b.Name] {
			t.Fatalf("variable %s changed:\nbefore %+v\nafter  %+v", a.Name, a, b)
		}
	}
}

func TestBadCalls(t *testing.T) {
	cases := []struct {
		name, action, args string
		// want are substrings of the error: what is wrong and the fix.
		want []string
	}{
		{"malformed JSON", "get_weather", `{"location":`, []string{"not a JSON object", `"unit": "c"`}},
		{"JSON array", "get_weather", `[1,2]`, []string{"not a JSON object"}},
		{"JSON null", "get_weather", `null`, []string{"not a JSON object", "it is null"}},
		{"JSON string", "get_weather", `"Paris"`, []string{"not a JSON object"}},
		{"unknown action, near miss", "get_wether", `{}`, []string{`unknown action "get_wether"`, "did you mean get_weather?", "available actions:"}},
		{"unknown action", "launch_rocket", `{}`, []string{"unknown action", "get_weather", "terminate"}},
		{"empty action name", "", `{}`, []string{"unknown action", "available actions"}},
		{"missing argument", "get_weather", `{"location":"Paris"}`, []string{`needs parameter "unit"`, `one of "c", "f"`, "missing"}},
		{"null for required", "get_weather", `{"location":"Paris","unit":null}`, []string{`needs parameter "unit"`, "it was null"}},
		{"extra argument", "get_weather", `{"location":"Paris","unit":"c","units":"c"}`, []string{`no parameter "units"`, "its parameters are: location, unit, return"}},
		{"unknown and extra", "double", `{"m":1}`, []string{`no parameter "m"`, "n, return"}},
		{"number for string", "get_weather", `{"location":5,"unit":"c"}`, []string{`parameter "location"`, "expected a JSON string", "<<var:language>>"}},
		{"number for enum", "get_weather", `{"location":"Paris","unit":3}`, []string{`parameter "unit"`, `one of "c", "f"`}},
		{"value outside enum", "get_weather", `{"location":"Paris","unit":"k"}`, []string{`parameter "unit"`, `one of "c", "f"`}},
		{"float for int", "double", `{"n":1.5}`, []string{`parameter "n"`, "int"}},
		{"string for int", "double", `{"n":"3"}`, []string{`parameter "n"`, "int"}},
		{"int overflow", "double", `{"n":99999999999999999999999}`, []string{`parameter "n"`}},
		{"object for int", "double", `{"n":{"v":1}}`, []string{`parameter "n"`}},
		{"reference to unknown variable", "get_weather", `{"location":"<<var:locaton>>","unit":"c"}`, []string{"<<var:locaton>> is not a variable", "compatible variables for \"location\" are: <<var:language>>, <<var:location>>"}},
		{"reference to incompatible variable", "get_weather", `{"location":"<<var:n>>","unit":"c"}`, []string{"variable n is a int", `cannot be passed as "location" (string)`, "<<var:location>>"}},
		{"reference with spaces", "get_weather", `{"location":"<<var: location >>","unit":"c"}`, []string{"is not a reference", "exactly <<var:NAME>>"}},
		{"reference with trailing text", "get_weather", `{"location":"<<var:location>> please","unit":"c"}`, []string{"is not a reference", "text around it"}},
		{"reference with leading text", "get_weather", `{"location":"in <<var:location>>","unit":"c"}`, []string{"is not a reference"}},
		{"reference in raw-only parameter", "terminate", `{"success":"<<var:flag>>","result":null}`, []string{`parameter "success"`, "takes a raw value, not a reference"}},
		{"reference in enum parameter", "get_weather", `{"location":"Paris","unit":"<<var:language>>"}`, []string{`parameter "unit"`, `one of "c", "f", not a reference`}},
		{"raw value for ref-only parameter", "move", `{"thing":{"Name":"box"},"dx":1}`, []string{`parameter "thing"`, "takes a reference only", "<<var:thing>>"}},
		{"string for ref-only parameter", "describe", `{"thing":"box"}`, []string{"takes a reference only", "<<var:thing>>"}},
		{"return incompatible variable", "get_weather", `{"location":"Paris","unit":"c","return":"n"}`, []string{`"return": variable n is a int`, "pass null", "language, location"}},
		{"return not an identifier", "get_weather", `{"location":"Paris","unit":"c","return":"my var"}`, []string{`"my var" is not a variable name`, "pass null"}},
		{"return unknown variable", "get_weather", `{"location":"Paris","unit":"c","return":"forecast"}`, []string{"there is no variable forecast", "pass null to create a new variable"}},
		{"return a number", "get_weather", `{"location":"Paris","unit":"c","return":5}`, []string{`"return" must be the name of a variable`}},
		{"return for an action without result", "move", `{"thing":"<<var:thing>>","dx":1,"return":"thing"}`, []string{"move returns no value", `"return" must be null`}},
		{"unavailable action", "switch_on", `{"gadget":"<<var:thing>>"}`, []string{"not available now", "needs a *agent_test.Gadget variable"}},
		{"missing ref-only argument", "describe", `{}`, []string{`needs parameter "thing"`, "<<var:thing>>"}},
		{"action panics", "boom", `{}`, []string{"boom panicked: kaboom"}},
		{"action returns an error", "fails", `{}`, []string{"fails failed: the backend is down"}},
		{"action error after a mutation check", "move", `{"thing":"<<var:thing>>","dx":0}`, []string{"move failed: dx must not be 0"}},
		{"action ignores its context", "hang", `{}`, []string{"hang did not return before its deadline", "abandoned"}},
		{"terminate without success", "terminate", `{"result":"done"}`, []string{`needs parameter "success"`}},
		{"reference to a secret where incompatible", "double", `{"n":"<<var:api_key>>"}`, []string{"variable api_key is a string", `cannot be passed as "n" (int)`}},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	f := newFixture(t, optsDefault())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := capture(f)
			histBefore := len(f.st.History())
			resp := call(f.st, c.action, c.args)
			if resp.Success {
				t.Fatalf("call succeeded; want an error containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(resp.Error, w) {
					t.Errorf("error %q\ndoes not contain %q", resp.Error, w)
				}
			}
			if !strings.Contains(resp.Content(), `"success":false`) {
				t.Errorf("content %s does not say success false", resp.Content())
			}
			capture(f).equal(t, before)
			h := f.st.History()
			if len(h) != histBefore+1 || h[len(h)-1].OK() || h[len(h)-1].Err != resp.Error {
				t.Errorf("the failure should be recorded once in the step history with its message")
			}
			// The runtime keeps working.
			if ok := call(f.st, "double", `{"n":"<<var:n>>","return":"n"}`); !ok.Success {
				t.Fatalf("a good call failed afterwards: %s", ok.Error)
			}
			if ok := call(f.st, "double", `{"n":1,"return":null}`); !ok.Success {
				t.Fatalf("a good call failed afterwards: %s", ok.Error)
			}
			f.st.Delete("double_result")
		})
	}
}
