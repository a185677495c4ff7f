package codegen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// snippetRecording is a recording of one successful snippet.
func snippetRecording(code string) *codegen.Recording {
	return &codegen.Recording{Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindSnippet, Code: code}}}}
}

// TestSnippetCannotLeaveReplay: a snippet whose stray closing brace ends
// the statements early, turning the rest into file-level code (an init
// that runs before anything), is refused; so is a declared init or main.
// Nothing of such a snippet reaches the generated file.
func TestSnippetCannotLeaveReplay(t *testing.T) {
	for _, code := range []string{
		"defer func() { recover() }()\npanic(\"done\")\n}\nfunc init() { println(\"PWNED\") }\nfunc _() (json.RawMessage, Variables, error) {",
		"x := 1\n}\nvar _ = func() int { println(\"PWNED\"); return 0 }()\nfunc _() {\n_ = x",
		"func f() {}\n}\nfunc init() { println(\"PWNED\") }\nfunc _() {\nf()",
		"func init() { println(\"PWNED\") }\nx := 1",
	} {
		rec := snippetRecording(code)
		src, err := codegen.Generate(rec, codegen.Options{Main: true})
		if !errors.Is(err, codegen.ErrGenerate) {
			t.Errorf("Generate(%q) = %v, want ErrGenerate\n%s", code, err, src)
		}
		if strings.Contains(string(src), "PWNED") {
			t.Errorf("Generate(%q) returned source with the snippet's code in it", code)
		}
		if s, err := codegen.GenerateSnippet(rec); !errors.Is(err, codegen.ErrGenerate) || strings.Contains(s, "PWNED") {
			t.Errorf("GenerateSnippet(%q) = %v\n%s", code, err, s)
		}
	}
	// Braces that balance, in strings and comments too, are fine.
	src, err := codegen.Generate(snippetRecording("s := \"}\" // }\nif len(s) > 0 {\n\ts += \"{\"\n}"), codegen.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
}

// TestAskUserFromLog: a run that asked its user replays from a log with no
// ask_user in the action set (none at all here), the answer standing in for
// the question; an answer the recording lacks makes Generate fail
// naming the call instead of asking at replay time.
func TestAskUserFromLog(t *testing.T) {
	ask := run.ToolCall{ID: "c1", Name: "ask_user", Arguments: `{"question":"Your name?","return":null}`}
	events := []run.Event{
		{RunID: "run_ask", Seq: 1, Payload: run.RunCreated{}},
		{Seq: 2, Payload: run.AssistantMessage{Step: 1, Text: "Ask."}},
		{Seq: 3, Payload: run.ToolCallScheduled{Step: 1, Call: ask}},
		{Seq: 4, Payload: run.AwaitRequested{ID: "await_1", Await: run.AwaitQuestion, Message: "Your name?"}},
		{Seq: 5, Payload: run.AwaitResolved{ID: "await_1", Answer: run.Answer{Text: "Ada\x00 \"L\""}}},
		{Seq: 6, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Created: []run.VariableInfo{{Name: "ask_user_result", Type: "string"}},
			Resolution: &run.Resolution{Args: []run.Argument{{Param: "question", Raw: json.RawMessage(`"Your name?"`)}}}, Result: "ask_user_result"}},
		{Seq: 7, Payload: run.VariableCreated{Step: 1, Variable: run.VariableInfo{Name: "ask_user_result", Type: "string"}, Value: json.RawMessage(`"Ada\u0000 \"L\""`)}},
		{Seq: 8, Payload: run.ToolCallScheduled{Step: 2, Call: run.ToolCall{ID: "c2", Name: "terminate", Arguments: `{"success":true,"result":"<<var:ask_user_result>>"}`}}},
		{Seq: 9, Payload: run.ToolCallCompleted{CallID: "c2", Success: true, Resolution: &run.Resolution{Args: []run.Argument{
			{Param: "success", Raw: json.RawMessage("true")}, {Param: "result", Ref: "ask_user_result", Type: "string"}}}}},
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	if a := rec.Steps[0].Answer; a == nil || *a != "Ada\x00 \"L\"" {
		t.Fatalf("answer = %v", a)
	}
	src, err := codegen.Generate(rec, codegen.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if !strings.Contains(string(src), `ask_user_result := "Ada\x00 \"L\""`) || !strings.Contains(string(src), "// The run asked the user: Your name?") {
		t.Errorf("the answer is not assigned:\n%s", src)
	}
	rec.Steps[0].Answer = nil
	if _, err := codegen.Generate(rec, codegen.Options{}); !errors.Is(err, codegen.ErrGenerate) || !strings.Contains(err.Error(), "answer to ask_user (call c1)") {
		t.Errorf("err = %v", err)
	}
}

// TestAskUserFromRun: the answer of a live run's user is in its log.
func TestAskUserFromRun(t *testing.T) {
	rt, err := agent.New(agent.Options{Actions: codegentest.Actions(), CallTimeout: -1, Model: llm.NewScripted(
		llm.Response{ToolCalls: []llm.ToolCall{tool("c1", "ask_user", `{"question":"Which city?","return":null}`)}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c2", "get_weather", `{"location":"<<var:ask_user_result>>"}`)}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c3", "terminate", `{"success":true,"result":"<<var:weather>>"}`)}},
	)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			must(t, h.Resume(ctx, req.ID, run.Answer{Text: "Lyon"}))
			break
		}
	}
	out, err := h.Wait(ctx)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	rec := recordingOf(ctx, t, h)
	src, err := codegen.Generate(rec, codegen.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if !strings.Contains(string(src), `ask_user_result := "Lyon"`) {
		t.Errorf("the answer is not assigned:\n%s", src)
	}
}

// stringLits are the values of the string literals of a Go file.
func stringLits(t *testing.T, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
			s, err := strconv.Unquote(bl.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return true
	})
	return out
}

// TestModelTextInLiteralsAndComments: strings with quotes and a NUL, a byte
// order mark or a carriage return are written as literals that hold them
// exactly, and text with such runes, line breaks and bidirectional
// controls is written into comments that still compile and end where they
// should.
func TestModelTextInLiteralsAndComments(t *testing.T) {
	odd := []string{"a\"b\x00c", "a\"b\ufeffc", "a\\b\rc", "a\"b`c", "a\"b\nc", "a\"b\x7fc"}
	for _, s := range odd {
		raw, _ := json.Marshal(s)
		reason := "Look " + s + " up\u202e.\r\nfunc init() { println(\"PWNED\") }\x00\ufeff"
		rec := &codegen.Recording{
			RunID:   "run_x",
			Actions: identities(codegentest.Actions()),
			Steps: []codegen.Instruction{
				{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Reason: reason, CallID: "c1", Action: "get_weather",
					Args: []run.Argument{{Param: "location", Raw: raw}, {Param: "unit", Default: true}}, Return: "w"},
					Notes: []string{"Note " + s}},
				{Instruction: run.Instruction{Step: 2, Kind: codegen.KindCall, CallID: "c2", Action: "get_weather", Arguments: `{"location":"` + s + `"}`, Err: "failed " + s}},
			},
			Result: json.RawMessage(`"x` + s + `\"y"`),
		}
		src, err := codegen.Generate(rec, codegen.Options{})
		if err != nil {
			t.Errorf("%q: %v\n%s", s, err, src)
			continue
		}
		lits := stringLits(t, src)
		if !contains(lits, s) || !contains(lits, `"x`+s+`\"y"`) {
			t.Errorf("%q: no literal holds it exactly: %q", s, lits)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "PWNED") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%q: text outside a comment: %q", s, line)
			}
			if strings.ContainsAny(line, "\x00\ufeff\r\u202e") {
				t.Errorf("%q: a line holds a control or invisible rune: %q", s, line)
			}
		}
	}
}

// TestRunIDInComments: the run ID goes into comments as one line, so it
// cannot add code.
func TestRunIDInComments(t *testing.T) {
	rec := snippetRecording("x := 1")
	rec.RunID = "run_x\nfunc init() { println(\"PWNED\") }\r\n\x00//"
	src, err := codegen.Generate(rec, codegen.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "PWNED") && !strings.HasPrefix(line, "// Replay ") {
			t.Errorf("the run ID is not on its comment's line: %q", line)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLogNamesValidated: variable names, return targets and references
// from a log end up in code, so FromEvents (and Generate, for a recording
// built by hand) refuses ones that are not valid variable names.
func TestLogNamesValidated(t *testing.T) {
	bad := "x`json:\"y\"` int\n}\nfunc init() {}\ntype _ struct {"
	logs := map[string][]run.Event{
		"variable": {{Seq: 1, Payload: run.VariableCreated{Variable: run.VariableInfo{Name: bad, Type: "string"}, Value: json.RawMessage(`"v"`)}}},
		"return": {
			{Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "list_items", Arguments: `{"return":` + strconv.Quote(bad) + `}`}}},
			{Seq: 2, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Resolution: &run.Resolution{Target: bad}}},
		},
		"result": {
			{Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "list_items", Arguments: `{}`}}},
			{Seq: 2, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Resolution: &run.Resolution{}, Result: bad}},
		},
		"ref": {
			{Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "total", Arguments: `{}`}}},
			{Seq: 2, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Resolution: &run.Resolution{Args: []run.Argument{{Param: "items", Ref: bad}}}}},
		},
		"created": {
			{Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "list_items", Arguments: `{}`}}},
			{Seq: 2, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Created: []run.VariableInfo{{Name: "a b", Type: "[]codegentest.Item"}}}},
		},
		"snippet": {{Seq: 1, Payload: run.SnippetExecuted{Step: 1, Snippet: run.Snippet{Code: "x := 1"}, Success: true, Created: []run.VariableInfo{{Name: "x;y", Type: "int"}}}}},
	}
	for name, events := range logs {
		if _, err := codegen.FromEvents(events); !errors.Is(err, codegen.ErrEvents) || !strings.Contains(err.Error(), "not a Go identifier") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	recs := map[string]*codegen.Recording{
		"variable": {Variables: []codegen.Variable{{Name: bad, Type: "string", Start: true}}},
		"return":   {Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "list_items", Return: bad}}}},
		"ref": {Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "total",
			Args: []run.Argument{{Param: "items", Ref: bad}}}}}},
	}
	for name, rec := range recs {
		if src, err := codegen.Generate(rec, codegen.Options{}); !errors.Is(err, codegen.ErrGenerate) {
			t.Errorf("%s: err = %v\n%s", name, err, src)
		}
	}
}

// TestGenerateLeavesRecording: Generate does not change the caller's
// recording.
func TestGenerateLeavesRecording(t *testing.T) {
	rec, _ := (&steps{vars: []variable.Spec{{Name: "n", Value: 2}}, steps: []agent.Step{{Snippets: []string{"m := n * 2"}}}}).record(t, "run_leaves")
	before := fmt.Sprintf("%+v", *rec)
	if _, err := codegen.Generate(rec, codegen.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := codegen.GenerateSnippet(rec); err != nil {
		t.Fatal(err)
	}
	if after := fmt.Sprintf("%+v", *rec); after != before {
		t.Errorf("Generate changed the recording:\n%s\n%s", before, after)
	}
}

// identities are the Go identities of actions as the runtime records them.
func identities(set *action.Set) map[string]run.GoAction {
	out := map[string]run.GoAction{}
	for _, a := range set.All() {
		id := run.GoAction{Name: a.Name(), Func: run.FuncSymbol(a.Func()), Type: run.GoType(reflect.TypeOf(a.Func()))}
		for _, p := range a.Params() {
			id.Params = append(id.Params, p.Name)
			if p.Default != nil {
				if id.Defaults == nil {
					id.Defaults = map[string]json.RawMessage{}
				}
				id.Defaults[p.Name] = json.RawMessage(p.DefaultJSON)
			}
		}
		out[a.Name()] = id
	}
	return out
}
