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
			{Name: "selector", TypeName: "string", Raw: str, Refs: []string{"sel"}},     // raw + refs
			{Name: "label", TypeName: "string", Raw: str, Description: "What to say."},  // raw only
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
	if s["type"] != "object" || s["additionalProperties"] != false || s["description"] != "Click an element." {
		t.Errorf("root = %v", s)
	}
	wantRequired := []any{"browser", "selector", "label", "timeout", "note", "return"}
	if !reflect.DeepEqual(s["required"], wantRequired) {
		t.Errorf("required = %v, want %v", s["required"], wantRequired)
	}
	if _, ok := s["properties"].(map[string]any)["window"]; ok {
		t.Error("a ref-only parameter without compatible variables is offered")
	}

	browser := prop(t, s, "browser")
	if jsonOf(browser["anyOf"]) != `[{"$ref":"#/$defs/browser_possible_variables"}]` {
		t.Errorf("browser.anyOf = %s, want only the $ref", jsonOf(browser["anyOf"]))
	}
	if d := browser["description"].(string); !strings.Contains(d, "(type: *browser.Browser, by reference only)") {
		t.Errorf("browser.description = %q", d)
	}

	selector := prop(t, s, "selector")
	if jsonOf(selector["anyOf"]) != `[{"type":"string"},{"$ref":"#/$defs/selector_possible_variables"}]` {
		t.Errorf("selector.anyOf = %s", jsonOf(selector["anyOf"]))
	}

	label := prop(t, s, "label")
	if label["type"] != "string" || label["description"] != "(type: string) What to say." || label["anyOf"] != nil {
		t.Errorf("label = %v", label)
	}

	timeout := prop(t, s, "timeout")
	if jsonOf(timeout["anyOf"]) != `[{"type":"integer"},{"type":"null"}]` {
		t.Errorf("timeout.anyOf = %s", jsonOf(timeout["anyOf"]))
	}
	if d := timeout["description"].(string); !strings.Contains(d, "Optional: null means the default, 30.") {
		t.Errorf("timeout.description = %q", d)
	}

	note := prop(t, s, "note")
	if jsonOf(note["anyOf"]) != `[{"type":"string"},{"$ref":"#/$defs/note_possible_variables"},{"type":"null"}]` {
		t.Errorf("note.anyOf = %s", jsonOf(note["anyOf"]))
	}
	if d := note["description"].(string); !strings.Contains(d, "Optional: null means the zero value.") {
		t.Errorf("note.description = %q", d)
	}

	ret := prop(t, s, "return")
	if jsonOf(ret["anyOf"]) != `[{"$ref":"#/$defs/possible_return_assignment"},{"type":"null"}]` {
		t.Errorf("return.anyOf = %s", jsonOf(ret["anyOf"]))
	}
	if d := ret["description"].(string); !strings.Contains(d, "(type: bool)") {
		t.Errorf("return.description = %q", d)
	}

	defs := s["$defs"].(map[string]any)
	if len(defs) != 4 {
		t.Errorf("$defs has %d entries: %v", len(defs), defs)
	}
	b := defs[schema.RefDefName("browser")].(map[string]any)
	if b["type"] != "string" || jsonOf(b["enum"]) != `["<<var:b1>>","<<var:b2>>"]` {
		t.Errorf("browser defs = %v", b)
	}
	if d := b["description"].(string); !strings.Contains(d, "'browser'") || !strings.Contains(d, "*browser.Browser") {
		t.Errorf("browser defs description = %q", d)
	}
	r := defs[schema.ReturnDefName].(map[string]any)
	if jsonOf(r["enum"]) != `["ok","done"]` {
		t.Errorf("return defs = %v", r)
	}
	if err := schema.CheckOpenAIStrict(tool); err != nil {
		t.Errorf("CheckOpenAIStrict: %v", err)
	}
	if err := schema.CheckAnthropic(tool); err != nil {
		t.Errorf("CheckAnthropic: %v", err)
	}
}

func TestBuildToolReturn(t *testing.T) {
	str := rawFor(t, "")
	noTargets := decode(t, schema.BuildTool(schema.ToolSpec{
		Name:   "f",
		Params: []schema.Param{{Name: "s", TypeName: "string", Raw: str}},
		Return: &schema.Return{TypeName: "[]string"},
	}))
	ret := prop(t, noTargets, "return")
	if ret["type"] != "null" || ret["anyOf"] != nil {
		t.Errorf("return without targets = %v, want type null", ret)
	}
	if _, ok := noTargets["$defs"]; ok {
		t.Errorf("$defs without any references: %v", noTargets["$defs"])
	}
	if !reflect.DeepEqual(noTargets["required"], []any{"s", "return"}) {
		t.Errorf("required = %v", noTargets["required"])
	}

	noResult := decode(t, schema.BuildTool(schema.ToolSpec{
		Name:   "f",
		Params: []schema.Param{{Name: "s", TypeName: "string", Raw: str}},
	}))
	if _, ok := noResult["properties"].(map[string]any)["return"]; ok {
		t.Error("return property for an action without a result")
	}
	if !reflect.DeepEqual(noResult["required"], []any{"s"}) {
		t.Errorf("required = %v", noResult["required"])
	}

	// No parameters at all.
	empty := decode(t, schema.BuildTool(schema.ToolSpec{Name: "f"}))
	if len(empty["properties"].(map[string]any)) != 0 || len(empty["required"].([]any)) != 0 || empty["description"] != nil {
		t.Errorf("empty tool = %v", empty)
	}
	onlyReturn := decode(t, schema.BuildTool(schema.ToolSpec{Name: "f", Return: &schema.Return{TypeName: "int", Targets: []string{"n"}}}))
	if !reflect.DeepEqual(onlyReturn["required"], []any{"return"}) {
		t.Errorf("required = %v", onlyReturn["required"])
	}
	if _, ok := onlyReturn["$defs"].(map[string]any)[schema.ReturnDefName]; !ok {
		t.Errorf("$defs = %v", onlyReturn["$defs"])
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
		if d != "" && s["description"] != want {
			t.Errorf("description %q came back as %q", d, s["description"])
		}
		if got := prop(t, s, "q")["description"].(string); !strings.HasSuffix(got, want) {
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

func TestRefDefName(t *testing.T) {
	if got := schema.RefDefName("page"); got != "page_possible_variables" {
		t.Errorf("RefDefName = %q", got)
	}
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
