package runtime

import (
	"strings"

	"github.com/byref/byref/variable"
)

// The system prompt, in parts: what the model reads on every call, so each
// sentence pays its way.
const (
	promptIntro = `Use the tools, then terminate (success false if the task cannot be done).`
	// promptRefs is added once the run has variables.
	promptRefs = `

Tool results are kept as variables; you see each one's name, Go type and a preview, not its value. To give a variable to a tool, pass the string "<<var:NAME>>" instead of copying its value.`
	promptSnippets = `

Go code (run_go, or a go code block) sees variables as Go identifiers of their types and actions as Go functions; new top-level variables are kept. Import allowed packages first; print with fmt.`
)

// maxListed is how many variables the system prompt shows with a preview,
// the latest ones; the others are listed by name and type only, so that
// the prompt grows slowly with the variables.
const maxListed = 12

// listPreview bounds the preview of a variable in the system prompt.
const listPreview = 120

// systemPrompt explains references and snippets and lists the variables
// with their types and previews (secrets redacted).
func (st *State) systemPrompt(opts RunOptions) string {
	var b strings.Builder
	b.WriteString(promptIntro)
	st.mu.Lock()
	names := st.vars.Names()
	if len(names) > 0 && !st.opts.HideFromAI {
		b.WriteString(promptRefs)
	}
	if !st.opts.DisableSnippets {
		b.WriteString(promptSnippets)
	}
	if len(names) > 0 {
		b.WriteString("\n\nVariables:")
		older := names[:max(len(names)-maxListed, 0)]
		if len(older) > 0 {
			// Named once, grouped by type, without previews.
			b.WriteString("\n- ")
			writeByType(&b, &st.vars, older)
		}
		for _, name := range names[len(older):] {
			v, _ := st.vars.Head(name)
			b.WriteString("\n- ")
			b.WriteString(v.Name)
			b.WriteString(" (")
			b.WriteString(variable.TypeName(v.Type))
			b.WriteString("): ")
			b.WriteString(st.redact(v.Preview(min(st.opts.PreviewLimit, listPreview))))
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

// writeByType writes names grouped by type: "a, b (string); n (int)".
func writeByType(b *strings.Builder, vars *variable.Set, names []string) {
	var types []string
	byType := map[string][]string{}
	for _, n := range names {
		_, t, _ := vars.Value(n)
		tn := variable.TypeName(t)
		if _, ok := byType[tn]; !ok {
			types = append(types, tn)
		}
		byType[tn] = append(byType[tn], n)
	}
	for i, tn := range types {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strings.Join(byType[tn], ", "))
		b.WriteString(" (")
		b.WriteString(tn)
		b.WriteString(")")
	}
}
