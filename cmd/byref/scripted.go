package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/runtime"
)

// scripts are the scripted models --model scripted:NAME selects. They are
// for tests and demos, not listed in the help.
var scripts = map[string]func(llm.Request) (llm.Response, error){
	// hello answers at once.
	"hello": func(req llm.Request) (llm.Response, error) {
		return llm.Text("Hello from the scripted model."), nil
	},
	// approval runs a Go snippet (which --approve ask asks about), then
	// returns the variable it set.
	"approval": func(req llm.Request) (llm.Response, error) {
		tool := lastTool(req)
		switch {
		case tool == nil:
			return llm.CallTool(runtime.RunGoName, `{"code":"answer := 6 * 7"}`), nil
		case strings.Contains(tool.Text, "denied"):
			return llm.Text("The snippet was not approved, so there is no answer."), nil
		}
		return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:answer>>"}`), nil
	},
	// escapes writes terminal escape sequences, a carriage return and a
	// bidirectional override into the code it asks to run and into its
	// answer, as a hostile model could.
	"escapes": func(req llm.Request) (llm.Response, error) {
		if lastTool(req) == nil {
			return llm.CallTool(runtime.RunGoName, `{"code":"answer := 6 * 7 // \u001b[2K\u001b[1A\r\u202eevil"}`), nil
		}
		return llm.Text("done\u001b[2J\u001b[H\u009b31m"), nil
	},
	// question asks the user's name, then greets them.
	"question": func(req llm.Request) (llm.Response, error) {
		if tool := lastTool(req); tool != nil {
			return llm.Text("Thanks for answering."), nil
		}
		return llm.CallTool(action.AskUserName, `{"question":"What is your name?"}`), nil
	},
}

// lastTool returns the latest tool message after the task, or nil.
func lastTool(req llm.Request) *llm.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		switch req.Messages[i].Role {
		case llm.RoleTool:
			return &req.Messages[i]
		case llm.RoleUser:
			return nil
		}
	}
	return nil
}

func scriptedModel(name string) (llm.Model, error) {
	fn, ok := scripts[name]
	if !ok {
		names := make([]string, 0, len(scripts))
		for n := range scripts {
			names = append(names, "scripted:"+n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no scripted model %q; the scripted models are %s", name, strings.Join(names, ", "))
	}
	return llm.NewScriptedFunc(fn), nil
}
