package agent

import (
	"strconv"
	"strings"

	"github.com/byref/byref/variable"
)

// The system prompt, in parts: what the model reads on every call, so each
// sentence pays its way. It is written once per run, from the starting
// variables, and never rewritten: a variable made later is announced in the
// tool result or snippet result that made it, so that every request begins
// with the previous one and a provider's prompt cache serves it.
const (
	promptIntro = `Use the tools, then terminate (success false if the task cannot be done).`
	// promptRefs is added in reference mode.
	promptRefs = `

Results are kept as variables, announced with their Go type and a preview. Pass one to a tool as "<<var:NAME>>" rather than its value.`
	promptSnippets = `

Go code (run_go, or a go code block) sees variables as Go identifiers of their types and actions as Go functions; new top-level variables are kept. Import allowed packages first; print with fmt.`
)

// The system prompt's list of starting variables is bounded: the latest
// maxListed variables with a preview of at most listPreview characters, the
// maxNamed before them by name and type, and a count of the rest (which Go
// code can still use).
const (
	maxListed   = 8
	listPreview = 100
	maxNamed    = 64
)

// systemPrompt explains references and snippets and lists the starting
// variables (starting, those of them that still exist) with their types and
// previews, secrets redacted.
func (st *State) systemPrompt(opts RunOptions, starting []string) string {
	var b strings.Builder
	b.WriteString(promptIntro)
	st.mu.Lock()
	names := make([]string, 0, len(starting))
	for _, n := range starting {
		if _, ok := st.s.vars.Head(n); ok {
			names = append(names, n)
		}
	}
	if !st.opts.HideFromAI {
		b.WriteString(promptRefs)
	}
	if !st.opts.DisableSnippets {
		b.WriteString(promptSnippets)
	}
	if len(names) > 0 {
		b.WriteString("\n\nVariables:")
		latest := max(len(names)-maxListed, 0)
		older := names[:latest]
		if hidden := len(older) - maxNamed; hidden > 0 {
			b.WriteString("\n- " + strconv.Itoa(hidden) + " older variables, not listed")
			older = older[hidden:]
		}
		if len(older) > 0 {
			// Named once, grouped by type, without previews.
			b.WriteString("\n- ")
			writeByType(&b, &st.s.vars, older)
		}
		for _, name := range names[latest:] {
			b.WriteString("\n- ")
			st.s.writeVariable(&b, name)
		}
	}
	st.mu.Unlock()
	if len(opts.gone) > 0 {
		b.WriteString("\n\nGone since an earlier turn (not usable):")
		for _, g := range opts.gone {
			b.WriteString("\n- ")
			b.WriteString(g)
		}
	}
	if opts.Approval == ApproveOnStart {
		b.WriteString("\n\nBefore anything runs, a person approves your plan: first state your plan in a few lines, with the first step you want to run.")
	}
	if opts.Instructions != "" {
		b.WriteString("\n\n")
		b.WriteString(opts.Instructions)
	}
	return b.String()
}

// writeVariable writes a variable as the model reads it: "name (type):
// preview — description", the preview short and redacted.
func (sc *scope) writeVariable(b *strings.Builder, name string) {
	v, _ := sc.vars.Head(name)
	b.WriteString(v.Name)
	b.WriteString(" (")
	b.WriteString(variable.TypeName(v.Type))
	b.WriteString("): ")
	b.WriteString(sc.redact(v.Preview(min(sc.opts.PreviewLimit, listPreview))))
	if v.Description != "" {
		b.WriteString(" — ")
		b.WriteString(v.Description)
	}
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
