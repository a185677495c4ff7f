package schema_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/byref/byref/schema"
)

// decode parses a tool's parameters, failing the test on invalid JSON.
func decode(t testing.TB, tool schema.Tool) map[string]any {
	t.Helper()
	if !json.Valid(tool.Parameters) {
		t.Fatalf("invalid JSON: %s", tool.Parameters)
	}
	var m map[string]any
	if err := json.Unmarshal(tool.Parameters, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func prop(t testing.TB, s map[string]any, name string) map[string]any {
	t.Helper()
	p, ok := s["properties"].(map[string]any)[name].(map[string]any)
	if !ok {
		t.Fatalf("no property %q in %v", name, s["properties"])
	}
	return p
}

func rawFor(t testing.TB, v any) json.RawMessage {
	t.Helper()
	raw, err := schema.For(reflect.TypeOf(v))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// jsonOf writes v as compact JSON without escaping <, > and &.
func jsonOf(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func TestBuildToolShapes(t *testing.T) {
	str := rawFor(t, "")
	spec := schema.ToolSpec{
		Name:        "click",
		Description: "Click an element.",
		Params: []schema.Param{
			{Name: "browser", TypeName: "*browser.Browser", Refs: []string{"b1", "b2"}}, // ref-only with refs
			{Name: "selector", TypeName: "string", Raw: str, Refs: []string{"sel"}},     // a string with refs
			{Name: "label", TypeName: "string", Raw: str, Description: "What to say."},  // raw only
			{Name: "count", TypeName: "int", Raw: rawFor(t, 0), Refs: []string{"n"}},    // not a string, with refs
			{Name: "timeout", TypeName: "int", Raw: rawFor(t, 0), Optional: true, Default: "30"},
			{Name: "note", TypeName: "string", Raw: str, Refs: []string{"n"}, Optional: true},
			{Name: "window", TypeName: "*browser.Window"}, // ref-only, no refs: left out
		},
		Return: &schema.Return{TypeName: "bool", Targets: []string{"ok", "done"}},
	}
	tool := schema.BuildTool(spec)
	if tool.Name != "click" || tool.Description != "Click an element." {
		t.Errorf("tool = %q %q", tool.Name, tool.Description)
	}
	s := decode(t, tool)
	if s["type"] != "object" || s["additionalProperties"] != false || s["description"] != nil {
		t.Errorf("root = %v (the description is the tool's, not repeated here)", s)
	}
	wantRequired := []any{"browser", "selector", "label", "count", "timeout", "note"}
	if !reflect.DeepEqual(s["required"], wantRequired) {
		t.Errorf("required = %v, want %v (no return property)", s["required"], wantRequired)
	}
	if _, ok := s["properties"].(map[string]any)["window"]; ok {
		t.Error("a ref-only parameter without compatible variables is offered")
	}

	browser := prop(t, s, "browser")
	if browser["enum"] != nil || browser["pattern"] != schema.RefPattern || browser["type"] != "string" {
		t.Errorf("browser = %s, want the reference pattern and no names (the schema must not change with the variables)", jsonOf(browser))
	}
	if d := browser["description"].(string); d != `A *browser.Browser variable, passed as "<<var:NAME>>".` {
		t.Errorf("browser.description = %q", d)
	}

	// A reference is a string: a string parameter needs no alternative.
	if selector := prop(t, s, "selector"); jsonOf(selector) != `{"type":"string"}` {
		t.Errorf("selector = %s", jsonOf(selector))
	}
	label := prop(t, s, "label")
	if label["type"] != "string" || label["description"] != "What to say." || label["anyOf"] != nil {
		t.Errorf("label = %v", label)
	}
	count := prop(t, s, "count")
	if jsonOf(count["anyOf"]) != `[{"type":"integer"},{"$ref":"#/$defs/ref"}]` {
		t.Errorf("count.anyOf = %s", jsonOf(count["anyOf"]))
	}

	timeout := prop(t, s, "timeout")
	if jsonOf(timeout["anyOf"]) != `[{"type":"integer"},{"type":"null"}]` {
		t.Errorf("timeout.anyOf = %s", jsonOf(timeout["anyOf"]))
	}
	if d := timeout["description"].(string); d != "Optional (null: 30)." {
		t.Errorf("timeout.description = %q", d)
	}
	if note := prop(t, s, "note"); jsonOf(note) != `{"type":["string","null"]}` {
		t.Errorf("note = %s", jsonOf(note))
	}

	defs := s["$defs"].(map[string]any)
	if len(defs) != 1 || jsonOf(defs[schema.RefDefName]) != `{"pattern":"^<<var:[A-Za-z_][A-Za-z0-9_]*>>$","type":"string"}` {
		t.Errorf("$defs = %s, want the one reference pattern", jsonOf(defs))
	}
	if err := schema.CheckOpenAIStrict(tool); err != nil {
		t.Errorf("CheckOpenAIStrict: %v", err)
	}
	if err := schema.CheckAnthropic(tool); err != nil {
		t.Errorf("CheckAnthropic: %v", err)
	}
}

// The schema does not grow with the variables a non-string parameter could
// take: references are one pattern, named in the system prompt.
func TestBuildToolSizeIsFlat(t *testing.T) {
	many := make([]string, 500)
	for i := range many {
		many[i] = fmt.Sprintf("variable_%d", i)
	}
	spec := func(refs []string) schema.ToolSpec {
		return schema.ToolSpec{Name: "f", Params: []schema.Param{
			{Name: "s", TypeName: "string", Raw: rawFor(t, ""), Refs: refs},
			{Name: "n", TypeName: "int", Raw: rawFor(t, 0), Refs: refs},
		}}
	}
	one, fiveHundred := schema.BuildTool(spec(many[:1])), schema.BuildTool(spec(many))
	if len(one.Parameters) != len(fiveHundred.Parameters) {
		t.Fatalf("the schema grew from %d to %d bytes with the variables", len(one.Parameters), len(fiveHundred.Parameters))
	}
}

func TestBuildToolEmpty(t *testing.T) {
	empty := decode(t, schema.BuildTool(schema.ToolSpec{Name: "f", Return: &schema.Return{TypeName: "int", Targets: []string{"n"}}}))
	if len(empty["properties"].(map[string]any)) != 0 || len(empty["required"].([]any)) != 0 || empty["$defs"] != nil {
		t.Errorf("empty tool = %v", empty)
	}
}

func TestBuildPlainTool(t *testing.T) {
	spec := schema.ToolSpec{
		Name: "f",
		Params: []schema.Param{
			{Name: "s", TypeName: "string", Raw: rawFor(t, ""), Refs: []string{"a", "b"}},
			{Name: "n", TypeName: "int", Raw: rawFor(t, 0), Optional: true},
			{Name: "b", TypeName: "*browser.Browser", Refs: []string{"br"}},
		},
		Return: &schema.Return{TypeName: "int", Targets: []string{"x"}},
	}
	tool := schema.BuildPlainTool(spec)
	if strings.Contains(string(tool.Parameters), "$defs") || strings.Contains(string(tool.Parameters), "<<var:") || strings.Contains(string(tool.Parameters), "$ref") {
		t.Errorf("plain tool has references: %s", tool.Parameters)
	}
	s := decode(t, tool)
	if _, ok := s["properties"].(map[string]any)["return"]; ok {
		t.Error("plain tool has a return property")
	}
	if _, ok := s["properties"].(map[string]any)["b"]; ok {
		t.Error("plain tool offers a ref-only parameter")
	}
	if !reflect.DeepEqual(s["required"], []any{"s", "n"}) {
		t.Errorf("required = %v", s["required"])
	}
	if got := prop(t, s, "s"); got["type"] != "string" {
		t.Errorf("s = %v", got)
	}
	if got := prop(t, s, "n"); jsonOf(got["anyOf"]) != `[{"type":"integer"},{"type":"null"}]` {
		t.Errorf("n = %v", got)
	}
	if err := schema.CheckOpenAIStrict(tool); err != nil {
		t.Error(err)
	}
}

func TestBuildToolEscapesDescriptions(t *testing.T) {
	descs := []string{
		`say "hi"`,
		"line one\nline two\r\n\ttabbed",
		`back\slash`,
		"bell\x07 nul\x00 esc\x1b del\x7f",
		"bad utf8: \xff\xfe end",
		"truncated rune \xe2\x82",
		"emoji 🎉 and ünïcödé and \u2028 separator",
		"</script><!-- html -->",
		"",
	}
	for _, d := range descs {
		tool := schema.BuildTool(schema.ToolSpec{
			Name:        "f",
			Description: d,
			Params: []schema.Param{
				{Name: "p", Description: d, TypeName: d, Raw: rawFor(t, ""), Refs: []string{"v"}, Default: d, Optional: true},
				{Name: "q", Description: d, TypeName: "int", Raw: rawFor(t, 0)},
			},
			Return: &schema.Return{TypeName: d, Targets: []string{"x"}},
		})
		s := decode(t, tool)
		// What encoding/json makes of it: each invalid byte becomes U+FFFD.
		var want string
		b, _ := json.Marshal(d)
		json.Unmarshal(b, &want)
		if tool.Description != d {
			t.Errorf("description %q came back as %q", d, tool.Description)
		}
		if got, _ := prop(t, s, "q")["description"].(string); !strings.HasSuffix(got, want) {
			t.Errorf("param description %q came back as %q", d, got)
		}
		if !utf8.Valid(tool.Parameters) {
			t.Errorf("not valid UTF-8: %q", tool.Parameters)
		}
	}
}

// Raw schemas that are not compact objects still give valid JSON.
func TestBuildToolUnusualRaw(t *testing.T) {
	for _, raw := range []string{`{}`, `true`, `{ }`, ` {"type":"string"} `, "{\n}"} {
		tool := schema.BuildTool(schema.ToolSpec{
			Name:   "f",
			Params: []schema.Param{{Name: "x", TypeName: "any", Raw: json.RawMessage(raw)}},
		})
		if !json.Valid(tool.Parameters) {
			t.Errorf("raw %q: invalid JSON %s", raw, tool.Parameters)
		}
	}
}

func FuzzBuildToolJSON(f *testing.F) {
	f.Add("desc", "param", "type")
	f.Add("\"\\\n\x00\xff", "p", "\u2028")
	f.Fuzz(func(t *testing.T, desc, pdesc, typeName string) {
		tool := schema.BuildTool(schema.ToolSpec{
			Name:        "f",
			Description: desc,
			Params:      []schema.Param{{Name: "p", Description: pdesc, TypeName: typeName, Raw: json.RawMessage(`{"type":"string"}`), Refs: []string{"a"}, Optional: true, Default: desc}},
			Return:      &schema.Return{TypeName: typeName, Targets: []string{pdesc}},
		})
		if !json.Valid(tool.Parameters) {
			t.Fatalf("invalid JSON: %q", tool.Parameters)
		}
	})
}

func BenchmarkBuildTool200Refs(b *testing.B) {
	refs := make([]string, 200)
	for i := range refs {
		refs[i] = fmt.Sprintf("var_%d", i)
	}
	raw := func(v any) json.RawMessage {
		r, err := schema.For(reflect.TypeOf(v))
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	spec := schema.ToolSpec{
		Name:        "process",
		Description: "Process some rows.",
		Params: []schema.Param{
			{Name: "rows", TypeName: "[]main.Row", Raw: raw([]Leaf{}), Refs: refs, Description: "The rows."},
			{Name: "query", TypeName: "string", Raw: raw(""), Refs: refs[:50]},
			{Name: "limit", TypeName: "int", Raw: raw(0), Optional: true, Default: "10"},
			{Name: "db", TypeName: "*sql.DB", Refs: refs[:3]},
		},
		Return: &schema.Return{TypeName: "[]main.Row", Targets: refs[:100]},
	}
	b.ReportAllocs()
	for b.Loop() {
		schema.BuildTool(spec)
	}
}

// A schema is the same whatever variables exist: a run's tool list is
// built once, and a prompt cache keeps it.
func TestBuildToolStableWithVariables(t *testing.T) {
	spec := func(refs []string) schema.ToolSpec {
		return schema.ToolSpec{Name: "f", Params: []schema.Param{
			{Name: "b", TypeName: "*browser.Browser", Refs: refs, Referable: true},
			{Name: "n", TypeName: "int", Raw: rawFor(t, 0), Refs: refs, Referable: true},
			{Name: "s", TypeName: "string", Raw: rawFor(t, ""), Refs: refs, Referable: true, Optional: true},
		}, Return: &schema.Return{TypeName: "int", Targets: refs}}
	}
	none := schema.BuildTool(spec(nil))
	for _, refs := range [][]string{{"a"}, {"a", "b", "c"}} {
		if got := schema.BuildTool(spec(refs)); string(got.Parameters) != string(none.Parameters) {
			t.Errorf("with variables %v the schema changed:\n%s\nwithout:\n%s", refs, got.Parameters, none.Parameters)
		}
	}
}
