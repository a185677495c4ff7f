package runtime

import (
	"strings"

	"github.com/byref/byref/variable"
)

const promptIntro = `You are an agent working inside a Go program. You act by calling tools.

Variables. The program holds live Go values as named variables. You see each one as its name, Go type and a short preview, never the whole value. Wherever a tool parameter accepts it, pass a variable by reference as the exact string "<<var:NAME>>" instead of copying its value: the schemas list the compatible variables. Every tool result is stored in a variable and the response names it, with a preview. Set "return" to the name of an existing variable to assign the result to it, or to null for a new variable.`

const promptSnippets = `

Go code. You may also write short Go snippets, in a fenced code block marked go or through the run_go tool. Variables are plain Go identifiers of their real types; actions are Go functions with their own signatures (for example w, err := get_weather(city, "c")). New top-level variables (x := ...) are kept as variables; changes to existing ones are kept too. Import what you need first (import "strings"); only a safe set of standard packages is allowed, with no files, network or goroutines. Print with fmt to see values.`

const promptEnd = `

When the task is done, call terminate with success true and the result (a value, or a reference to the variable that holds it). If it cannot be done, call terminate with success false and say why.`

// systemPrompt explains references and snippets and lists the variables
// with their types and previews (secrets redacted).
func (st *State) systemPrompt(opts RunOptions) string {
	var b strings.Builder
	b.WriteString(promptIntro)
	if !st.opts.DisableSnippets {
		b.WriteString(promptSnippets)
	}
	b.WriteString(promptEnd)
	st.mu.Lock()
	names := st.vars.Names()
	if len(names) > 0 {
		b.WriteString("\n\nVariables:")
		for _, name := range names {
			v, _ := st.vars.Head(name)
			b.WriteString("\n- ")
			b.WriteString(v.Name)
			b.WriteString(" (")
			b.WriteString(variable.TypeName(v.Type))
			b.WriteString("): ")
			b.WriteString(st.redact(v.Preview(st.opts.PreviewLimit)))
			if v.Description != "" {
				b.WriteString(" — ")
				b.WriteString(v.Description)
			}
		}
	}
	st.mu.Unlock()
	if opts.Approval == ApproveOnStart {
		b.WriteString("\n\nBefore anything runs, a person approves your plan: first state your plan in a few lines, with the first step you want to run.")
	}
	if opts.Instructions != "" {
		b.WriteString("\n\n")
		b.WriteString(opts.Instructions)
	}
	return b.String()
}
