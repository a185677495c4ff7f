package agent

import (
	"encoding/json"
	"slices"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// Unavailable says why an action is left out of the schemas.
type Unavailable struct {
	// Action is the action's name.
	Action string
	// Reason is readable by a person, e.g.
	// "browser_click: needs a *browser.Browser variable for parameter b".
	Reason string
}

// Tools returns the schemas of the available actions, built-ins last, in
// reference mode or, with Options.HideFromAI, in plain mode. Schemas are
// cached per action and rebuilt only when the variables compatible with one
// of its parameters (or its result) change. The returned slice is new; the
// schemas' bytes are shared and must not be modified.
func (st *State) Tools() []schema.Tool {
	st.mu.Lock()
	defer st.mu.Unlock()
	tools := make([]schema.Tool, 0, len(st.s.m.rows))
	for _, builtins := range []bool{false, true} {
		for _, r := range st.s.m.rows {
			if (r.builtin != nil) != builtins || !st.s.isAttached(r.act.Name()) || r.unavailable(st.opts.HideFromAI) != "" {
				continue
			}
			tools = append(tools, st.s.schemas.tool(r))
		}
	}
	return tools
}

// runTools returns the tool list of a run: built once, at the run's first
// request (and again only at a compaction), and sent unchanged with every
// request in between, so that a provider's prompt cache keeps it and
// everything after it. In reference mode it holds every attached action,
// those whose reference-only parameters no variable fits yet included:
// their schemas offer the reference pattern, and a call made before a
// compatible variable exists is refused with the action that makes one. In
// plain mode it leaves out the actions that take a parameter by reference
// only. Built-ins come last. With limit > 0, at most limit of the
// non-built-in actions are kept, chosen for query (relevance selection,
// with the variables in play when play is set). A non-nil only keeps the
// actions it names instead: the choice a compaction recorded, made again
// by a restored run.
func (st *State) runTools(limit int, query string, play bool, only []string) []llm.Tool {
	st.mu.Lock()
	plain := st.opts.HideFromAI
	var tools []llm.Tool
	for _, builtins := range []bool{false, true} {
		for _, r := range st.s.m.rows {
			if (r.builtin != nil) != builtins || !st.s.isAttached(r.act.Name()) {
				continue
			}
			if plain && r.unavailable(true) != "" {
				continue
			}
			t := st.s.schemas.tool(r)
			t.Strict = r.tool.strict
			tools = append(tools, t)
		}
	}
	st.mu.Unlock()
	switch {
	case only != nil:
		return slices.DeleteFunc(tools, func(t llm.Tool) bool { return !slices.Contains(only, t.Name) })
	case limit > 0:
		return st.selectTools(tools, limit, query, play)
	}
	return tools
}

// rawStrict reports why the parts of r's schema that do not change with the
// variables (the raw schemas of its parameters) break OpenAI's strict rules,
// or nil. It is checked once per action, not on every rebuild.
func (sw *schemas) rawStrict(r *row, spec schema.ToolSpec) error {
	if !r.strictKnown {
		plain := spec
		plain.Params = make([]schema.Param, len(spec.Params))
		for i, p := range spec.Params {
			p.Refs = nil
			plain.Params[i] = p
		}
		r.strictRaw = schema.CheckOpenAIStrict(schema.BuildPlainTool(plain))
		r.strictKnown = true
	}
	return r.strictRaw
}

// strict reports whether r's freshly built tool may go out with OpenAI's
// strict mode: its raw schemas pass (checked once), and so does the whole
// schema, whose enum counts and sizes grow with the variables it offers
// (checked on every rebuild, as every limit counts the references and the
// tool's own values together). The first time an action goes out
// non-strict in an agent's runs, the reason is logged at Warn.
func (sw *schemas) strict(r *row, spec schema.ToolSpec, tool schema.Tool) bool {
	err := sw.rawStrict(r, spec)
	if err == nil {
		err = schema.CheckOpenAIStrict(tool)
	}
	if err != nil && sw.warnNonStrict(r.act.Name()) {
		sw.opts.Logger.Warn("agent: tool sent without strict mode; its schema breaks a limit of OpenAI's strict mode", "action", r.act.Name(), "reason", err)
	}
	return err == nil
}

// Unavailable lists the actions left out of the schemas and why.
func (st *State) Unavailable() []Unavailable {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Unavailable
	for _, r := range st.s.m.rows {
		if why := r.unavailable(st.opts.HideFromAI); why != "" {
			out = append(out, Unavailable{Action: r.act.Name(), Reason: why})
		}
	}
	return out
}

// Compatible returns the variables that can be passed by reference to the
// named parameter of the named action, in creation order; nil when there are
// none or the parameter takes no references.
func (st *State) Compatible(actionName, param string) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.s.m.byName[actionName]
	if !ok {
		return nil
	}
	i := r.act.ParamIndex(param)
	if i < 0 || r.params[i] == nil || len(r.params[i].vars) == 0 {
		return nil
	}
	return slices.Clone(r.params[i].vars)
}

// Matrix returns the whole compatibility matrix: for every parameter that
// takes references, keyed "action$param", the compatible variables in
// creation order.
func (st *State) Matrix() map[string][]string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make(map[string][]string)
	for _, r := range st.s.m.rows {
		for i, g := range r.params {
			if g != nil {
				out[r.act.Name()+"$"+r.act.Param(i).Name] = slices.Clone(g.vars)
			}
		}
	}
	return out
}

// tool returns the schema of row r, rebuilding it only when a group it
// depends on changed.
func (sw *schemas) tool(r *row) schema.Tool {
	c := &r.tool
	plain := sw.opts.HideFromAI
	if c.built && c.plain == plain && sw.fresh(r) {
		return c.tool
	}
	c.versions = c.versions[:0]
	for _, g := range r.params {
		if g != nil {
			c.versions = append(c.versions, g.version)
		}
	}
	if r.result != nil {
		c.versions = append(c.versions, r.result.version)
	}
	spec := sw.toolSpec(r)
	if plain {
		c.tool = schema.BuildPlainTool(spec)
	} else {
		c.tool = schema.BuildTool(spec)
	}
	c.built, c.plain = true, plain
	c.strict = sw.strict(r, spec, c.tool)
	sw.builds++
	return c.tool
}

// fresh reports whether r's cached schema was built from the groups' current
// versions.
func (sw *schemas) fresh(r *row) bool {
	i := 0
	for _, g := range r.params {
		if g != nil {
			if c := r.tool.versions; i >= len(c) || c[i] != g.version {
				return false
			}
			i++
		}
	}
	if r.result != nil {
		if c := r.tool.versions; i >= len(c) || c[i] != r.result.version {
			return false
		}
	}
	return true
}

var terminateResultSchema = json.RawMessage(`{"type":"string"}`)

func (sw *schemas) toolSpec(r *row) schema.ToolSpec {
	a := r.act
	spec := schema.ToolSpec{Name: a.Name(), Description: a.Description(), Params: make([]schema.Param, a.NumParams())}
	for i := range spec.Params {
		p := a.Param(i)
		sp := schema.Param{
			Name:        p.Name,
			Description: p.Description,
			TypeName:    variable.TypeName(p.Type),
			Raw:         p.Raw,
			Optional:    p.Optional,
			Default:     p.DefaultJSON,
		}
		if g := r.params[i]; g != nil {
			sp.Refs, sp.Referable = g.vars, true
		}
		if r.builtin != nil && a.Name() == action.TerminateName && p.Name == "result" {
			// Any JSON value cannot be written in OpenAI's strict mode: the
			// model answers in text, or by reference to a variable.
			sp.Raw = terminateResultSchema
			if len(sw.resultSchema) > 0 {
				sp.Raw, sp.TypeName = sw.resultSchema, "the run's result schema"
			}
		}
		spec.Params[i] = sp
	}
	if r.result != nil {
		spec.Return = &schema.Return{TypeName: variable.TypeName(r.result.typ), Targets: r.result.vars}
		if d := a.ResultDescription(); d != "" {
			spec.Description += " Returns: " + d
		}
	}
	return spec
}

// warnNonStrict reports whether the action's going out non-strict is news
// to the log: true the first time for each action of the agent.
func (sw *schemas) warnNonStrict(name string) bool {
	if sw.nonStrict == nil {
		return false
	}
	_, seen := sw.nonStrict.LoadOrStore(name, true)
	return !seen
}
