package codegen

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/byref/byref/action"
)

// steps writes every instruction into g.body.
func (g *gen) steps() error {
	for _, v := range g.rec.Variables {
		if v.Start {
			g.declared[v.Name] = true
		}
	}
	g.errDeclared = false
	for i := range g.rec.Steps {
		in := &g.rec.Steps[i]
		if err := g.instruction(i, in); err != nil {
			return fmt.Errorf("step %d: %w", in.Step, err)
		}
	}
	return nil
}

// comment writes text as comment lines. Text comes from the run (the
// model, the user, the log), so it is made safe for a // comment first
// (see commentLine).
func (g *gen) comment(text string) {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimRight(commentLine(line), " \t")
		if line == "" {
			g.body.WriteString("//\n")
			continue
		}
		g.body.WriteString("// " + line + "\n")
	}
}

// commentLine makes text safe inside one // comment line: line breaks
// become spaces, so the comment cannot end early, and runes that Go refuses
// in source or that do not show (invalid UTF-8, NUL and other control
// characters, a byte order mark, bidirectional and other format
// characters: all but tabs and unicode.IsGraphic runes) are written as
// escapes.
func commentLine(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == '\t' || unicode.IsGraphic(r):
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
		i += size
	}
	return b.String()
}

// stripCode removes fenced code blocks (inlined anyway) from the model's
// text and trims it.
func stripCode(text string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		out = append(out, line)
	}
	s := strings.TrimSpace(strings.Join(out, "\n"))
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// header writes the comment that opens an instruction: the step's number
// and, at its first instruction, the model's reason.
func (g *gen) header(in *Instruction, what string) {
	if g.body.Len() > 0 {
		g.body.WriteString("\n")
	}
	text := fmt.Sprintf("Step %d: %s.", in.Step, what)
	if in.Step != g.lastStep {
		if r := stripCode(in.Reason); r != "" {
			text += "\nThe model: " + r
		}
		g.lastStep = in.Step
	}
	for _, n := range in.Notes {
		text += "\n" + n
	}
	g.comment(text)
}

func (g *gen) instruction(i int, in *Instruction) error {
	switch {
	case in.Denied != "":
		g.header(in, "denied, so left out")
		g.comment(fmt.Sprintf("The approver denied %s: %s", describeCall(in), in.Denied))
		return nil
	case !in.OK():
		if in.Kind == KindSnippet {
			g.header(in, "a snippet that failed, so left out")
			g.comment("It failed with: " + in.Err)
			g.comment(in.Code)
			return nil
		}
		g.header(in, in.Action+" failed, so left out")
		g.comment(fmt.Sprintf("%s failed with: %s", describeCall(in), in.Err))
		return nil
	case in.Kind == KindSnippet:
		return g.snippetStep(i, in)
	case in.Action == action.TerminateName:
		g.header(in, "terminate")
		what := "The run ended"
		for _, a := range in.Args {
			if a.Param == "success" && string(a.Raw) == "false" {
				what = "The model reported that it could not do the task"
			}
		}
		res := "no result"
		for _, a := range in.Args {
			if a.Param == "result" && a.Ref != "" {
				res = "the result " + a.Ref
			} else if a.Param == "result" && a.Raw != nil {
				res = "the result " + oneLine(string(a.Raw))
			}
		}
		g.comment(fmt.Sprintf("%s with %s; Replay returns it.", what, res))
		return nil
	case in.Action == action.AskUserName:
		return g.askStep(in)
	case in.Client:
		return g.clientStep(in)
	case in.Child != nil && in.Child.Result != nil:
		return g.childStep(in)
	}
	return g.callStep(in)
}

// askStep writes a call of the built-in ask_user: the user's recorded
// answer stands in for the call, so the replay asks no one.
func (g *gen) askStep(in *Instruction) error {
	what := action.AskUserName
	if in.Return != "" {
		what += " into " + in.Return
	}
	g.header(in, what)
	question := ""
	for _, a := range in.Args {
		if a.Param == "question" && a.Raw != nil {
			if json.Unmarshal(a.Raw, &question) != nil {
				question = string(a.Raw)
			}
		}
	}
	if in.Answer == nil {
		return fmt.Errorf("the user's answer to ask_user (call %s) is not in the recording; set the step's Answer (FromEvents reads it from the run's log)", in.CallID)
	}
	g.comment("The run asked the user: " + question)
	if in.Return == "" {
		g.comment("The user answered " + quote(*in.Answer) + "; the run kept no result.")
		return nil
	}
	g.comment("The user's recorded answer stands in for the question, so no one is asked here.")
	lit := quote(*in.Answer)
	if t := g.vtypes[in.Return]; t != nil && g.cat.isInterface(t) {
		if !g.declared[in.Return] {
			ts, err := g.typeExpr(t)
			if err != nil {
				return err
			}
			lit = ts + "(" + lit + ")"
		}
	} else if u, _ := g.cat.underlying(t); t != nil && (u == nil || u.kind != kBasic || u.name != "string") {
		return fmt.Errorf("ask_user returns into %s, a %s, not a string", in.Return, t)
	}
	fmt.Fprintf(&g.body, "%s %s %s\n", in.Return, g.assign(in.Return), lit)
	return nil
}

// clientStep writes a call the run's client ran itself (an AG-UI front
// end's tool), which has no Go function: the client's recorded answer
// stands in for the call. For a string result, an answer that is not a
// JSON string is its JSON text, as the action returned it.
func (g *gen) clientStep(in *Instruction) error {
	what := in.Action
	if in.Return != "" {
		what += " into " + in.Return
	}
	g.header(in, what+", answered by the client")
	if in.ClientAnswer == nil {
		return fmt.Errorf("the client's answer to %s (call %s) is not in the recording; set the step's ClientAnswer (FromEvents reads it from the run's log)", in.Action, in.CallID)
	}
	g.comment(fmt.Sprintf("Answered by the client: the run's client ran %s %s itself and answered %s;\nits recorded answer stands in for the call, so no function is called here.",
		in.Action, describeArgs(in), oneLine(string(in.ClientAnswer))))
	a, err := g.action(in.Action)
	if err != nil {
		return err
	}
	if a.result == nil || in.Return == "" {
		g.comment("The run kept no result.")
		return nil
	}
	t := a.result
	if vt := g.vtypes[in.Return]; vt != nil {
		t = vt
	}
	answer := in.ClientAnswer
	if u, _ := g.cat.underlying(t); u != nil && u.kind == kBasic && u.name == "string" {
		var s string
		if json.Unmarshal(answer, &s) != nil {
			answer, _ = json.Marshal(string(answer))
		}
	}
	lit, err := g.jsonValue(answer, t, g.declared[in.Return])
	if err != nil {
		return fmt.Errorf("the client's answer to %s (call %s): %w", in.Action, in.CallID, err)
	}
	fmt.Fprintf(&g.body, "%s %s %s\n", in.Return, g.assign(in.Return), lit)
	return nil
}

// describeCall writes a call as the model sent it.
func describeCall(in *Instruction) string {
	if in.Kind == KindSnippet {
		return "a snippet"
	}
	return in.Action + " " + describeArgs(in)
}

// describeArgs writes a call's arguments as the model sent them.
func describeArgs(in *Instruction) string {
	if args := oneLine(in.Arguments); args != "" {
		return args
	}
	return "{}"
}

// argExprs writes a call's arguments, as the log recorded their
// resolution: a variable by reference, a raw JSON value as a Go value of
// the parameter's type, a default as the recorded default (or the zero
// value).
func (g *gen) argExprs(a *actionInfo, in *Instruction) ([]string, error) {
	if len(in.Args) != len(a.params) {
		return nil, fmt.Errorf("the recorded call of %s has %d arguments, but the action's recorded function takes %d parameters", in.Action, len(in.Args), len(a.params))
	}
	var out []string
	for i, arg := range in.Args {
		switch {
		case arg.Ref != "":
			if !g.declared[arg.Ref] {
				return nil, fmt.Errorf("argument %s refers to %s, which no earlier step or parameter declares", arg.Param, arg.Ref)
			}
			out = append(out, arg.Ref)
		case arg.Default:
			var s string
			var err error
			if def, ok := a.id.Defaults[arg.Param]; ok {
				s, err = g.jsonValue(def, a.params[i], true)
			} else if a.argsStruct == nil || g.snippet {
				s, err = g.zero(a.params[i])
			} // else "": the field keeps its zero value
			if err != nil {
				return nil, fmt.Errorf("the default of %s: %w", arg.Param, err)
			}
			out = append(out, s)
		default:
			s, err := g.jsonValue(arg.Raw, a.params[i], true)
			if err != nil {
				return nil, fmt.Errorf("argument %s: %w", arg.Param, err)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// onError writes the check after a call that returns an error.
func (g *gen) onError(in *Instruction) error {
	what := fmt.Sprintf("step %d: %s", in.Step, in.Action)
	if g.snippet {
		fmt.Fprintf(&g.body, "if %s != nil {\npanic(%q + %s.Error())\n}\n", g.err, what+": ", g.err)
		return nil
	}
	zero, err := g.zero(g.resultType)
	if err != nil {
		return err
	}
	fmt.Fprintf(&g.body, "if %s != nil {\nreturn %s, Variables{}, %s.Errorf(\"%s: %%w\", %s)\n}\n", g.err, zero, g.imp.use("fmt", "fmt"), what, g.err)
	return nil
}

// assign returns the operator that assigns to name, declaring it when new.
func (g *gen) assign(name string) string {
	if g.declared[name] {
		return "="
	}
	g.declared[name] = true
	return ":="
}

// callStep writes a successful JSON call.
func (g *gen) callStep(in *Instruction) error {
	a, err := g.action(in.Action)
	if err != nil {
		return err
	}
	args, err := g.argExprs(a, in)
	if err != nil {
		return err
	}
	var callee string
	switch {
	case g.snippet:
		callee = in.Action
	case g.lookupVar[in.Action] != "":
		callee = g.lookupVar[in.Action]
	default:
		ref := g.funcs[in.Action]
		callee = g.callee(ref)
	}
	pre := ""
	if !g.snippet { // snippets call struct-argument actions field by field
		if pre, args, err = g.pack(a, in.Action, args, g.names); err != nil {
			return err
		}
	}
	if a.takesCtx && !g.snippet {
		args = append([]string{g.ctx}, args...)
	}
	call := callee + "(" + strings.Join(args, ", ") + ")"
	what := in.Action
	if in.Return != "" {
		what += " into " + in.Return
	}
	g.header(in, what)
	g.body.WriteString(pre)

	res, target := a.result, in.Return
	if res == nil || target == "" {
		switch {
		case res == nil && a.returnsErr:
			fmt.Fprintf(&g.body, "if %s := %s; %s != nil {\n", g.err, call, g.err)
			if g.snippet {
				fmt.Fprintf(&g.body, "panic(%q + %s.Error())\n}\n", fmt.Sprintf("step %d: %s: ", in.Step, in.Action), g.err)
				return nil
			}
			zero, err := g.zero(g.resultType)
			if err != nil {
				return err
			}
			fmt.Fprintf(&g.body, "return %s, Variables{}, %s.Errorf(\"step %d: %s: %%w\", %s)\n}\n", zero, g.imp.use("fmt", "fmt"), in.Step, in.Action, g.err)
		case a.returnsErr:
			g.declareErr()
			fmt.Fprintf(&g.body, "_, %s = %s\n", g.err, call)
			return g.onError(in)
		case res != nil:
			fmt.Fprintf(&g.body, "_ = %s\n", call)
		default:
			g.body.WriteString(call + "\n")
		}
		return nil
	}
	// A result typed as an interface lands in a variable of its dynamic
	// type: assert it.
	lhs := target
	if vt := g.vtypes[target]; vt != nil && g.cat.isInterface(res) && vt.String() != res.String() && !g.cat.isInterface(vt) {
		ts, err := g.typeExpr(vt)
		if err != nil {
			return err
		}
		tmp := g.names.fresh(camel(target, false) + "Result")
		if a.returnsErr {
			g.errDeclared = true
			fmt.Fprintf(&g.body, "%s, %s := %s\n", tmp, g.err, call)
			if err := g.onError(in); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(&g.body, "%s := %s\n", tmp, call)
		}
		fmt.Fprintf(&g.body, "%s %s %s.(%s)\n", target, g.assign(target), tmp, ts)
		return nil
	}
	if !a.returnsErr {
		fmt.Fprintf(&g.body, "%s %s %s\n", lhs, g.assign(lhs), call)
		return nil
	}
	if g.declared[lhs] {
		g.declareErr()
		fmt.Fprintf(&g.body, "%s, %s = %s\n", lhs, g.err, call)
	} else {
		g.declared[lhs] = true
		g.errDeclared = true
		fmt.Fprintf(&g.body, "%s, %s := %s\n", lhs, g.err, call)
	}
	return g.onError(in)
}

// declareErr declares the error variable when no step has yet.
func (g *gen) declareErr() {
	if !g.errDeclared {
		fmt.Fprintf(&g.body, "var %s error\n", g.err)
		g.errDeclared = true
	}
}

// childStep writes a call that started a child run: the child's recorded
// result stands in for the call.
func (g *gen) childStep(in *Instruction) error {
	c := in.Child
	name := ""
	if c.Name != "" {
		name = fmt.Sprintf(" (%s)", c.Name)
	}
	g.header(in, fmt.Sprintf("%s started child run %s%s, which ended %s", in.Action, c.ID, name, c.Status))
	g.comment(fmt.Sprintf("The child's recorded result stands in for the call, so no model runs here;\nreplay the child itself with: byref replay %s", c.ID))
	a, err := g.action(in.Action)
	if err != nil || a.result == nil || in.Return == "" {
		g.comment("The call has no result to keep.")
		return nil
	}
	t := a.result
	if vt := g.vtypes[in.Return]; vt != nil {
		t = vt
	}
	lit, err := g.jsonValue(c.Result, t, g.declared[in.Return])
	if err != nil {
		return fmt.Errorf("the result of child run %s: %w", c.ID, err)
	}
	fmt.Fprintf(&g.body, "%s %s %s\n", in.Return, g.assign(in.Return), lit)
	return nil
}

// snippetStep inlines a successful snippet.
func (g *gen) snippetStep(i int, in *Instruction) error {
	p := g.parsed[i]
	what := "Go snippet"
	if in.CallID != "" {
		what += " (run_go)"
	}
	g.header(in, what)
	for _, d := range p.decls {
		g.decls = append(g.decls, strings.TrimSpace(d))
	}
	typeOf := func(name string) (string, bool) {
		t := g.vtypes[name]
		if t == nil {
			return "", false
		}
		s, err := g.typeExpr(t)
		return s, err == nil
	}
	code, err := p.inline(func(name string) bool { return g.declared[name] },
		func() string { return g.names.fresh(fmt.Sprintf("step%dSnippet", in.Step)) }, typeOf)
	if err != nil {
		return err
	}
	g.body.WriteString(code + "\n")
	for _, n := range p.defined {
		g.declared[n] = true
	}
	for _, n := range in.Created {
		g.declared[n] = true
	}
	return nil
}
