package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/schema"
)

type Address struct {
	Street string `json:"street"`
	City   string `json:"city,omitempty"`
	Zip    *int   `json:"zip"`
}

type Order struct {
	ID       int         `json:"id"`
	Items    []Address   `json:"items"`
	Ship     *Address    `json:"ship,omitempty"`
	Placed   time.Time   `json:"placed"`
	Notes    []string    `json:"notes,omitempty"`
	Matrix   [][]float64 `json:"matrix"`
	Priority [2]bool     `json:"priority"`
}

// corpus returns a parameter of each kind BuildTool must handle.
func corpus(t testing.TB) []schema.Param {
	enum := json.RawMessage(`{"enum":["fast","exact"],"type":"string"}`)
	ps := []schema.Param{
		{Name: "s", TypeName: "string", Raw: rawFor(t, "")},
		{Name: "i", TypeName: "int", Raw: rawFor(t, 0)},
		{Name: "f", TypeName: "float64", Raw: rawFor(t, 0.0)},
		{Name: "b", TypeName: "bool", Raw: rawFor(t, false)},
		{Name: "strs", TypeName: "[]string", Raw: rawFor(t, []string{})},
		{Name: "addr", TypeName: "Address", Raw: rawFor(t, Address{})},
		{Name: "paddr", TypeName: "*Address", Raw: rawFor(t, &Address{})},
		{Name: "addrs", TypeName: "[]Address", Raw: rawFor(t, []Address{})},
		{Name: "order", TypeName: "Order", Raw: rawFor(t, Order{})},
		{Name: "when", TypeName: "time.Time", Raw: rawFor(t, time.Time{})},
		{Name: "dur", TypeName: "time.Duration", Raw: rawFor(t, time.Duration(0))},
		{Name: "bytes", TypeName: "[]byte", Raw: rawFor(t, []byte{})},
		{Name: "mode", TypeName: "string", Raw: enum},
		{Name: "opt", TypeName: "int", Raw: rawFor(t, 0), Optional: true, Default: "3"},
		{Name: "optaddr", TypeName: "*Address", Raw: rawFor(t, &Address{}), Optional: true},
		{Name: "ref", TypeName: "*browser.Browser"},
	}
	return ps
}

func TestProviderChecksAcceptBuildTool(t *testing.T) {
	for _, withRefs := range []bool{false, true} {
		for _, withReturn := range []bool{false, true} {
			all := corpus(t)
			for i := range all {
				if withRefs || all[i].Raw == nil {
					all[i].Refs = []string{"v1", "v2_" + all[i].Name}
				}
			}
			var ret *schema.Return
			if withReturn {
				ret = &schema.Return{TypeName: "string"}
				if withRefs {
					ret.Targets = []string{"out"}
				}
			}
			// Each parameter alone, then all together.
			specs := []schema.ToolSpec{{Name: "all_params", Description: "Everything.", Params: all, Return: ret}}
			for _, p := range all {
				specs = append(specs, schema.ToolSpec{Name: "only_" + p.Name, Params: []schema.Param{p}, Return: ret})
			}
			for _, spec := range specs {
				for _, tool := range []schema.Tool{schema.BuildTool(spec), schema.BuildPlainTool(spec)} {
					if !json.Valid(tool.Parameters) {
						t.Fatalf("%s: invalid JSON %s", spec.Name, tool.Parameters)
					}
					if err := schema.CheckOpenAIStrict(tool); err != nil {
						t.Errorf("refs=%v return=%v %s: CheckOpenAIStrict: %v\n%s", withRefs, withReturn, spec.Name, err, tool.Parameters)
					}
					if err := schema.CheckAnthropic(tool); err != nil {
						t.Errorf("refs=%v return=%v %s: CheckAnthropic: %v", withRefs, withReturn, spec.Name, err)
					}
					// The schema compiles for validation.
					if _, err := schema.Compile(tool.Parameters); err != nil {
						t.Errorf("%s: Compile: %v", spec.Name, err)
					}
				}
			}
		}
	}
}

// The arguments a model would send validate against the tool schema.
func TestBuildToolValidatesArguments(t *testing.T) {
	ps := corpus(t)
	for i := range ps {
		ps[i].Refs = []string{"v1"}
	}
	tool := schema.BuildTool(schema.ToolSpec{Name: "t", Params: ps, Return: &schema.Return{TypeName: "int", Targets: []string{"n"}}})
	v, err := schema.Compile(tool.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	// What a model writes: every property present, null for "none".
	var args map[string]any
	if err := json.Unmarshal([]byte(`{
		"s": "x", "i": 1, "f": 1.5, "b": true, "strs": ["a"],
		"addr": {"street": "s", "city": null, "zip": 1},
		"paddr": "<<var:v1>>", "addrs": [],
		"order": {"id": 1, "items": [{"street": "s", "city": "c", "zip": 2}], "ship": null,
			"placed": "2024-01-01T00:00:00Z", "notes": null, "matrix": [[1]], "priority": [true, false]},
		"when": "2024-01-01T00:00:00Z", "dur": 1000, "bytes": "aGk=",
		"mode": "fast", "opt": null, "optaddr": null, "ref": "<<var:v1>>"
	}`), &args); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(b); err != nil {
		t.Errorf("valid arguments refused: %v\n%s", err, b)
	}
	bad := []struct {
		key string
		val any
	}{
		// "<<var:nope>>" has the shape of a reference: the schema takes it
		// and the runtime refuses it, naming the compatible variables.
		{"ref", "<<var:no pe>>"},
		{"ref", map[string]any{}},
		{"mode", "slow"},
		{"i", 1.5},
		{"s", nil},
	}
	for _, c := range bad {
		mutated := map[string]any{}
		for k, v := range args {
			mutated[k] = v
		}
		mutated[c.key] = c.val
		b, _ := json.Marshal(mutated)
		if err := v.Validate(b); err == nil || !strings.Contains(err.Error(), "/"+c.key) {
			t.Errorf("%s=%v: Validate = %v, want an error at /%s", c.key, c.val, err, c.key)
		}
	}
	delete(args, "opt")
	b, _ = json.Marshal(args)
	if err := v.Validate(b); err == nil {
		t.Error("a missing optional parameter is accepted, but strict schemas require it (as null)")
	}
}

func TestCheckOpenAIStrictRefuses(t *testing.T) {
	deep := `{"type":"string"}`
	for range 12 {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	}
	manyEnum := make([]string, 1001)
	for i := range manyEnum {
		manyEnum[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
	}
	// 300 values of 60 characters: 18,000 characters, above 15,000.
	longEnum := make([]string, 300)
	for i := range longEnum {
		longEnum[i] = fmt.Sprintf("%q", fmt.Sprintf("<<var:%s%03d>>", strings.Repeat("n", 49), i))
	}
	// 130,000 characters of property names in 1,000 properties.
	var manyNames []string
	for i := range 1000 {
		manyNames = append(manyNames, fmt.Sprintf("%q", fmt.Sprintf("%s%03d", strings.Repeat("p", 127), i)))
	}
	manyProps := `{"type":"object","properties":{`
	for i, n := range manyNames {
		if i > 0 {
			manyProps += ","
		}
		manyProps += n + `:{"type":"string"}`
	}
	manyProps += `},"required":[` + strings.Join(manyNames, ",") + `],"additionalProperties":false}`
	tests := []struct {
		name   string
		tool   string // tool name; "f" when empty
		params string
		msg    string
	}{
		{"missing additionalProperties", "", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `/: an object must set "additionalProperties": false`},
		{"additionalProperties true", "", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":true}`, `"additionalProperties": false`},
		{"nested missing additionalProperties", "", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}},"required":["a"],"additionalProperties":false}`, `/properties/a: an object must set`},
		{"property not required", "", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`, `property "b" must be listed in "required"`},
		{"no required", "", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `property "a" must be listed`},
		{"oneOf", "", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"],"additionalProperties":false}`, `/properties/a: keyword "oneOf" is not supported in strict mode`},
		{"allOf", "", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`, `keyword "allOf"`},
		{"default", "", `{"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a"],"additionalProperties":false}`, `keyword "default"`},
		{"not", "", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}},"required":["a"],"additionalProperties":false}`, `keyword "not"`},
		{"patternProperties", "", `{"type":"object","properties":{"a":{"type":"object","patternProperties":{"^[0-9]+$":{"type":"string"}},"additionalProperties":false}},"required":["a"],"additionalProperties":false}`, `keyword "patternProperties"`},
		{"$schema", "", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{},"required":[],"additionalProperties":false}`, `keyword "$schema"`},
		{"$ref with sibling", "", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x","description":"d"}},"required":["a"],"additionalProperties":false,"$defs":{"x":{"type":"string"}}}`, `/properties/a: $ref may not have sibling keywords`},
		{"no type", "", `{"type":"object","properties":{"a":{"description":"anything"}},"required":["a"],"additionalProperties":false}`, `/properties/a: the schema has no type`},
		{"boolean schema", "", `{"type":"object","properties":{"a":true},"required":["a"],"additionalProperties":false}`, `/properties/a: the schema true is not an object`},
		{"boolean items", "", `{"type":"object","properties":{"a":{"type":"array","items":true}},"required":["a"],"additionalProperties":false}`, `/properties/a/items: the schema true`},
		{"bad def", "", `{"type":"object","properties":{},"required":[],"additionalProperties":false,"$defs":{"x":{"oneOf":[]}}}`, `/$defs/x: keyword "oneOf"`},
		{"bad anyOf branch", "", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"description":"x"}]}},"required":["a"],"additionalProperties":false}`, `/properties/a/anyOf/1: the schema has no type`},
		{"root anyOf", "", `{"type":"object","anyOf":[{"type":"object","properties":{},"required":[],"additionalProperties":false}],"properties":{},"required":[],"additionalProperties":false}`, `/: the root may not be an anyOf`},
		{"root not object", "", `{"type":"string"}`, `the root must have "type": "object"`},
		{"not JSON", "", `{`, `the schema is not a JSON object`},
		{"JSON array", "", `[]`, `the schema is not a JSON object`},
		{"bad tool name", "get page", `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, `the tool name "get page" must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"tool name too long", strings.Repeat("x", 65), `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, `must match`},
		{"too many enum values", "", `{"type":"object","properties":{"a":{"type":"string","enum":[` + strings.Join(manyEnum, ",") + `]}},"required":["a"],"additionalProperties":false}`, `1001 enum values in all; the limit is 1000`},
		{"enum values of two enums", "", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/b_refs"}]}},"required":["a","b"],"additionalProperties":false,"$defs":{"b_refs":{"type":"string","enum":[` + strings.Join(manyEnum[:999], ",") + `]}}}`, `1001 enum values in all; the limit is 1000`},
		{"enum characters", "", `{"type":"object","properties":{"a":{"type":"string","enum":[` + strings.Join(longEnum, ",") + `]}},"required":["a"],"additionalProperties":false}`, `/properties/a: an enum of 300 values totals 18000 characters; above 250 values the limit is 15000`},
		{"schema characters", "", manyProps, `total 130000 characters; the limit is 120000`},
		{"format uri", "", `{"type":"object","properties":{"a":{"type":"string","format":"uri"}},"required":["a"],"additionalProperties":false}`, `/properties/a: format "uri" is not supported in strict mode`},
		{"too deep", "", deep, `nested deeper than 10 levels`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.tool
			if name == "" {
				name = "f"
			}
			err := schema.CheckOpenAIStrict(schema.Tool{Name: name, Parameters: json.RawMessage(tt.params)})
			if err == nil {
				t.Fatal("CheckOpenAIStrict accepted it")
			}
			if !errors.Is(err, schema.ErrProviderRule) {
				t.Errorf("%v does not wrap ErrProviderRule", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error\n\t%s\ndoes not say\n\t%s", err, tt.msg)
			}
		})
	}
}

// Types BuildTool can describe but OpenAI's strict mode cannot take.
func TestCheckOpenAIStrictAcceptsSupportedFormats(t *testing.T) {
	for _, f := range []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"} {
		params := `{"type":"object","properties":{"a":{"type":"string","format":"` + f + `"}},"required":["a"],"additionalProperties":false}`
		if err := schema.CheckOpenAIStrict(schema.Tool{Name: "f", Parameters: json.RawMessage(params)}); err != nil {
			t.Errorf("format %s: %v", f, err)
		}
	}
}

func TestCheckOpenAIStrictRefusesMapsAndAny(t *testing.T) {
	type WithAny struct {
		Name  string
		Extra any
	}
	tests := []struct {
		name string
		raw  json.RawMessage
		msg  string
	}{
		{"map", rawFor(t, map[string]int{}), "maps are not allowed in strict mode"},
		{"map of any", rawFor(t, map[string]any{}), "maps are not allowed"},
		{"int-keyed map", rawFor(t, map[int]string{}), `keyword "patternProperties"`},
		{"any", rawFor(t, new(any)), "no type"},
		{"struct with any", rawFor(t, WithAny{}), "/properties/p/properties/Extra"},
		{"slice of any", rawFor(t, []any{}), "/properties/p/items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := schema.BuildTool(schema.ToolSpec{Name: "f", Params: []schema.Param{{Name: "p", TypeName: "x", Raw: tt.raw}}})
			if !json.Valid(tool.Parameters) {
				t.Fatalf("invalid JSON: %s", tool.Parameters)
			}
			err := schema.CheckOpenAIStrict(tool)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("CheckOpenAIStrict = %v, want it to say %q\n%s", err, tt.msg, tool.Parameters)
			}
			// Anthropic takes them.
			if err := schema.CheckAnthropic(tool); err != nil {
				t.Errorf("CheckAnthropic = %v", err)
			}
		})
	}
}

func TestCheckOpenAIStrictReportsEveryProblem(t *testing.T) {
	err := schema.CheckOpenAIStrict(schema.Tool{Name: "bad name", Parameters: json.RawMessage(
		`{"type":"object","properties":{"a":{"oneOf":[]},"b":{"type":"string"}},"required":["a"]}`)})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"tool name", `keyword "oneOf"`, `property "b"`, `"additionalProperties": false`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v does not report %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
	// The report is deterministic.
	for range 20 {
		again := schema.CheckOpenAIStrict(schema.Tool{Name: "bad name", Parameters: json.RawMessage(
			`{"type":"object","properties":{"a":{"oneOf":[]},"b":{"type":"string"}},"required":["a"],"$defs":{"x":{"allOf":[]},"y":{"not":{}},"z":true}}`)})
		first := schema.CheckOpenAIStrict(schema.Tool{Name: "bad name", Parameters: json.RawMessage(
			`{"type":"object","properties":{"a":{"oneOf":[]},"b":{"type":"string"}},"required":["a"],"$defs":{"x":{"allOf":[]},"y":{"not":{}},"z":true}}`)})
		if again.Error() != first.Error() {
			t.Fatalf("reports differ:\n%v\n%v", again, first)
		}
	}
}

func TestCheckAnthropic(t *testing.T) {
	ok := []string{
		`{"type":"object","properties":{"a":{"type":"string","default":"x"}}}`,
		`{"type":"object","properties":{"m":{"type":"object"}},"required":[]}`,
		`{"type":"object"}`,
	}
	for _, p := range ok {
		if err := schema.CheckAnthropic(schema.Tool{Name: "f", Parameters: json.RawMessage(p)}); err != nil {
			t.Errorf("CheckAnthropic(%s) = %v", p, err)
		}
	}
	tests := []struct {
		name, tool, params, msg string
	}{
		{"bad name", "a.b", `{"type":"object"}`, `the tool name "a.b" must match`},
		{"empty name", "", `{"type":"object"}`, `must match`},
		{"not object", "f", `{"type":"array"}`, `input_schema must have "type": "object"`},
		{"root anyOf", "f", `{"type":"object","anyOf":[{"type":"object"}]}`, "may not use anyOf at the top level"},
		{"root oneOf", "f", `{"type":"object","oneOf":[{"type":"object"}]}`, "may not use oneOf"},
		{"root allOf", "f", `{"type":"object","allOf":[{"type":"object"}]}`, "may not use allOf"},
		{"not JSON", "f", `nope`, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.CheckAnthropic(schema.Tool{Name: tt.tool, Parameters: json.RawMessage(tt.params)})
			if err == nil || !errors.Is(err, schema.ErrProviderRule) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("CheckAnthropic = %v, want ErrProviderRule saying %q", err, tt.msg)
			}
		})
	}
}

// BenchmarkCheckOpenAIStrict500Refs is the check the runtime makes on every
// rebuild of a tool's schema, here one offering 500 variables to each of two
// reference-only parameters, beside an enum of its own.
func BenchmarkCheckOpenAIStrict500Refs(b *testing.B) {
	refs := make([]string, 500)
	for i := range refs {
		refs[i] = fmt.Sprintf("var_%d", i)
	}
	tool := schema.BuildTool(schema.ToolSpec{
		Name: "link",
		Params: []schema.Param{
			{Name: "a", TypeName: "main.Socket", Refs: refs},
			{Name: "b", TypeName: "main.Socket", Refs: refs},
			{Name: "mode", TypeName: "string", Raw: json.RawMessage(`{"type":"string","enum":["copy","move"]}`)},
		},
	})
	b.ReportAllocs()
	for b.Loop() {
		if schema.CheckOpenAIStrict(tool) == nil {
			b.Fatal("1,002 enum values passed")
		}
	}
}
