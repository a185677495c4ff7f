package agent

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
)

// builtin is the behaviour of a built-in action, carried by its row of the
// action table: the call path runs it instead of calling the action's
// function. resp is the call's response so far (its ID, name, start and
// resolution).
type builtin func(st *State, ctx context.Context, j *stepJob, c ToolCall, p *prepared, resp ToolResponse) (ToolResponse, *action.Termination)

// builtinRows are the built-in actions, in the order of the tool list, with
// their behaviour.
func builtinRows(snippets bool) []struct {
	act *action.Action
	run builtin
} {
	rows := []struct {
		act *action.Action
		run builtin
	}{
		{action.Terminate(), terminate},
		{action.AskUser(), askUser},
	}
	if snippets {
		rows = append(rows, struct {
			act *action.Action
			run builtin
		}{runGo, runGoCall})
	}
	return rows
}

// terminate ends the run: the step's result carries the termination.
func terminate(st *State, _ context.Context, _ *stepJob, _ ToolCall, p *prepared, resp ToolResponse) (ToolResponse, *action.Termination) {
	term := &action.Termination{Success: p.args[0].Bool(), Result: p.args[1].Interface()}
	for _, arg := range p.record {
		if arg.Param == "result" && arg.Ref != "" {
			term.From, term.Tainted = arg.Ref, slices.Contains(p.secretIn, arg.Ref)
		}
	}
	resp.Success = true
	resp.Duration = time.Since(resp.start)
	return resp, term
}

// askUser asks the run's user a question; the answer becomes a variable.
func askUser(st *State, ctx context.Context, j *stepJob, c ToolCall, p *prepared, resp ToolResponse) (ToolResponse, *action.Termination) {
	if len(p.secretIn) > 0 {
		return st.exec.fail(resp, "ask_user cannot show "+strings.Join(p.secretIn, ", ")+": it is a secret or derived from one, and questions are shown and recorded; ask without it"), nil
	}
	if j.g == nil {
		return st.exec.fail(resp, "ask_user needs a run whose user can answer; there is none"), nil
	}
	answer, deny := j.g.question(ctx, c, p.args[0].String())
	if deny != "" {
		return st.exec.fail(resp, deny), nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.commit(resp, j.n, p.row.act, p, reflect.ValueOf(answer), nil), nil
}

// runGoCall runs a run_go call's code as a snippet.
func runGoCall(st *State, ctx context.Context, j *stepJob, c ToolCall, p *prepared, resp ToolResponse) (ToolResponse, *action.Termination) {
	s := st.exec.snippet(ctx, j.g, j.n, c.ID, p.args[0].String())
	resp.Success, resp.Error, resp.Stdout, resp.Stderr, resp.Variables, resp.Duration = s.Success, s.Error, s.Stdout, s.Stderr, s.Variables, s.Duration
	resp.Err = s.Err
	resp.ran, resp.start = &ranSnippet{snippet: &run.Snippet{Code: s.Code, Reads: s.Reads, Writes: s.Writes}, left: s.left}, s.start
	return resp, nil
}

// RunGoName is the name of the built-in action through which the model
// sends Go code.
const RunGoName = "run_go"

// runGo is the built-in run_go action. The runtime intercepts its calls and
// runs the code as a snippet; its function only reports misuse.
var runGo = action.MustNew(action.Spec{
	Name:        RunGoName,
	Description: "Run Go code over the variables (see the system prompt).",
	Func: func(code string) error {
		return errors.New("run_go is executed by byref's runtime, not called directly")
	},
	Params: []action.Param{{Name: "code", Description: "Go statements; imports first.", RawOnly: true}},
})
