package eval

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

// Set is an eval set: the agent under test and its cases. Cases and
// cassettes can live in files ([Load], [Set.Save]); the agent, the types of
// starting variables given as JSON and the Go predicates come from Go.
type Set struct {
	// Name names the set in reports; Description says what it checks.
	Name        string
	Description string
	// AgentName names the agent the set is for, for programs that know
	// several (byref eval knows "demo", the demo's agent, and "plain",
	// byref run's agent without actions). Run ignores it.
	AgentName string
	// Agent is the agent under test, without its model: the runner builds
	// one runtime from it per [Run], with a store of its own in memory,
	// and gives each run its model. Options.Model and Options.Store are
	// ignored, and so is Options.Answer: a case answers its runs' awaits
	// (Case.Deny, Case.Replies).
	Agent agent.Options
	// Cases are the cases, run in this order.
	Cases []*Case
	// Types resolves the type names of starting variables given as JSON
	// ([Var].Type) to Go types, e.g. "*demotable.Table". A name that is
	// not here decodes into any (maps, slices, float64, string, bool).
	Types map[string]reflect.Type
	// Predicates are the Go predicates expectations name ([Predicate]
	// made in Go carries its own function; one read from a file is found
	// here by name).
	Predicates map[string]func(*Trial) error
	// Dir is where the set's cassettes are read and written: the
	// directory the set was loaded from, or one a set made in Go names.
	// [Run] reads the cassette of a case that has none from
	// Dir/cassettes/NAME.json, and, when it records, writes each case's
	// new cassette there. "" keeps cassettes in memory only.
	Dir string
}

// Case is one task for the agent and what its run must show.
type Case struct {
	// Name identifies the case in the set and names its files: letters,
	// digits, '-', '_' and '.'.
	Name string `json:"name"`
	// Description says what the case checks, for people.
	Description string `json:"description,omitempty"`
	// Task is what the model is asked to do.
	Task string `json:"task"`
	// Input is structured input, as JSON (the run's variable "input").
	Input json.RawMessage `json:"input,omitempty"`
	// Variables are the run's starting variables, after the agent's.
	Variables []Var `json:"variables,omitempty"`
	// Options are the run's options.
	Options CaseOptions `json:"options,omitzero"`
	// Deny lists the actions whose approval the runner denies; every
	// other approval is given. Approvals are asked only when
	// Options.Approval asks for them.
	Deny []string `json:"deny,omitempty"`
	// Replies answer the model's questions (ask_user), in order; a question
	// past the last gets "no answer".
	Replies []string `json:"replies,omitempty"`
	// Expect is what the run must show.
	Expect []Expectation `json:"expect"`
	// FailsOnPurpose, when set, says why the case is meant to fail: it
	// shows what a failure looks like, or pins a known weakness. Such a
	// case is as it should be when none of its trials passes, and is
	// reported as an unexpected pass otherwise.
	FailsOnPurpose string `json:"fails_on_purpose,omitempty"`
	// Cassette is the case's recorded model exchanges; nil until recorded
	// or loaded.
	Cassette *Cassette `json:"-"`
}

// Var is a starting variable of a case: a Go value, or JSON decoded into
// the type its Type names in [Set.Types]. Each trial gets a value of its
// own: JSON decoded afresh, or a deep copy of Go, so that a trial that
// changes its input in place changes neither the case nor another trial.
// A Go value that cannot be copied (a channel, an unexported field that
// holds a reference) is refused by [Run], which names it; funcs and
// handles (a *sql.DB, a client: see package variable) are shared.
type Var struct {
	// Name is the variable's name.
	Name string `json:"name"`
	// Type names the variable's Go type, as variable.TypeName writes it
	// ("*demotable.Table", "[]string"), when Value is JSON.
	Type string `json:"type,omitempty"`
	// JSON is the value as JSON; ignored when Go is set.
	JSON json.RawMessage `json:"value,omitempty"`
	// Go is the value as a Go value, for sets made in Go.
	Go any `json:"-"`
	// Description tells the model what the variable holds.
	Description string `json:"description,omitempty"`
	// Secret makes the variable a secret; its value (a string, or else its
	// JSON) must then appear in no request ([NoSecrets]).
	Secret bool `json:"secret,omitempty"`
}

// CaseOptions are the settings of a case's run that its file may fix: a
// part of the run's [run.Spec] (the task, input and variables are the
// case's own fields). A case file keeps to these keys, and Load refuses any
// other: a run.Spec's model, await timeout or driven mode mean nothing in
// an eval, and its JSON (the log's) would accept unknown keys and add
// "interactive" to every saved case.
type CaseOptions struct {
	// Instructions are added to the system prompt.
	Instructions string `json:"instructions,omitempty"`
	// Approval is the approval strategy: none (the default), on_start or
	// on_tool_call.
	Approval agent.Approval `json:"approval,omitempty"`
	// MaxSteps bounds the model calls; 0 means the runtime's default.
	MaxSteps int `json:"max_steps,omitempty"`
	// MaxTokens is the run's token budget; 0 means none.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// InputSchema and ResultSchema are the run's JSON Schemas.
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	ResultSchema json.RawMessage `json:"result_schema,omitempty"`
	// Actions is the allow-list of actions; empty means all.
	Actions []string `json:"actions,omitempty"`
	// ToolLimit offers at most this many actions at each step; 0 for all.
	ToolLimit int `json:"tool_limit,omitempty"`
}

// check says what is wrong with the case, or returns nil.
func (c *Case) check() error {
	if c.Name == "" || strings.Trim(c.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" || strings.HasPrefix(c.Name, ".") {
		return fmt.Errorf("eval: case name %q: use letters, digits, '-', '_' and '.', not first", c.Name)
	}
	if c.Task == "" && len(c.Input) == 0 {
		return fmt.Errorf("eval: case %s has no task; say what the model should do", c.Name)
	}
	for i, e := range c.Expect {
		if _, ok := checks[e.Kind]; !ok {
			return fmt.Errorf("eval: case %s, expectation %d: unknown kind %q; known kinds: %s", c.Name, i+1, e.Kind, strings.Join(Kinds(), ", "))
		}
	}
	return nil
}

// runOptions returns the runtime options of one trial of c.
func (s *Set) runOptions(c *Case) (agent.RunOptions, error) {
	opts := agent.RunOptions{
		Task: c.Task, NonInteractive: true, Instructions: c.Options.Instructions, Approval: c.Options.Approval,
		InputSchema: c.Options.InputSchema, ResultSchema: c.Options.ResultSchema, Actions: c.Options.Actions,
		ToolLimit: c.Options.ToolLimit, Limits: agent.Limits{MaxSteps: c.Options.MaxSteps, MaxTokens: c.Options.MaxTokens},
		Name:  c.Name,
		Input: c.Input,
		Tags:  map[string]string{"eval.case": c.Name},
	}
	for _, v := range c.Variables {
		value, err := s.value(v)
		if err != nil {
			return opts, fmt.Errorf("eval: case %s: %w", c.Name, err)
		}
		opts.Variables = append(opts.Variables, variable.Spec{Name: v.Name, Value: value, Description: v.Description, Secret: v.Secret})
	}
	return opts, nil
}

// value returns the Go value of a starting variable.
func (s *Set) value(v Var) (any, error) {
	if v.Go != nil {
		// A copy of its own for each trial (copy.go).
		return deepCopy(v.Go, v.Name)
	}
	if len(v.JSON) == 0 {
		return nil, fmt.Errorf("variable %s has no value; set Go, or JSON with its Type", v.Name)
	}
	t, ok := s.Types[v.Type]
	if !ok {
		if v.Type != "" && !builtinType(v.Type) {
			names := make([]string, 0, len(s.Types))
			for n := range s.Types {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("variable %s has type %q, which Set.Types does not name (it names: %s); add it there", v.Name, v.Type, strings.Join(names, ", "))
		}
		var x any
		if err := json.Unmarshal(v.JSON, &x); err != nil {
			return nil, fmt.Errorf("variable %s: %w", v.Name, err)
		}
		return x, nil
	}
	ptr := reflect.New(t)
	if err := json.Unmarshal(v.JSON, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("variable %s: its JSON is not a %s: %w", v.Name, v.Type, err)
	}
	return ptr.Elem().Interface(), nil
}

// builtinType reports whether a type name decodes well enough into any:
// JSON's own shapes.
func builtinType(name string) bool {
	switch name {
	case "string", "float64", "bool", "map[string]any", "[]any", "any", "interface {}":
		return true
	}
	return false
}

// secrets returns the values no request may carry: the case's secret
// variables and the agent's.
func (s *Set) secrets(c *Case) []string {
	var out []string
	add := func(v any) {
		if str, ok := v.(string); ok {
			out = append(out, str)
		} else if b, err := json.Marshal(v); err == nil && len(b) > 2 {
			out = append(out, string(b))
		}
	}
	for _, v := range s.Agent.Variables {
		if v.Secret {
			add(v.Value)
		}
	}
	for _, v := range c.Variables {
		if !v.Secret {
			continue
		}
		if val, err := s.value(v); err == nil {
			add(val)
		}
	}
	return out
}

// ok reports whether a case's trials are as the case says they should be:
// all pass, or, for a case that fails on purpose, none.
func (c *Case) ok(passes, trials int) bool {
	if c.FailsOnPurpose != "" {
		return passes == 0
	}
	return passes == trials
}
