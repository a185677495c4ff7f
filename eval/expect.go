package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Expectation is one thing a trial must show. Build one with the functions
// below ([Equal], [Called], [NoCopies], ...); in a set file it is a JSON
// object whose "kind" says which, with that kind's fields:
//
//	{"kind": "equal", "value": 142}
//	{"kind": "schema", "schema": {"type": "object"}}
//	{"kind": "predicate", "name": "share_is_a_percentage"}
//	{"kind": "judge", "prompt": "Is the answer a percentage?"}
//	{"kind": "calls", "order": "in_order", "calls": [{"action": "count_rows", "args": {"table": "<<var:orders>>"}}]}
//	{"kind": "ref", "action": "count_rows", "param": "table", "variable": "orders"}
//	{"kind": "no_copies", "min_size": 16}
//	{"kind": "max_steps", "n": 5}
//	{"kind": "max_tokens", "n": 20000}
//	{"kind": "max_cached_tokens", "n": 10000}
//	{"kind": "max_uncached_tokens", "n": 5000}
//	{"kind": "max_cost", "usd": 0.01}
//	{"kind": "no_secrets", "values": ["sk-..."]}
//	{"kind": "approval_before", "action": "filter_rows"}
//	{"kind": "status", "status": "completed"}
//	{"kind": "failure_kind", "failure": "refusal"}
type Expectation struct {
	// Kind says what is expected; the fields it reads are listed above.
	Kind string `json:"kind"`
	// Value is the result equal expects, as JSON.
	Value json.RawMessage `json:"value,omitempty"`
	// Schema is the JSON Schema the result must be valid against.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Name names a predicate in [Set.Predicates].
	Name string `json:"name,omitempty"`
	// Prompt is the judge's prompt.
	Prompt string `json:"prompt,omitempty"`
	// Calls are the calls expected, and Order how: "in_order" (a
	// subsequence of the run's calls, the default), "any_order" or
	// "exact" (the run's calls but terminate, no more, in this order).
	Calls []CallSpec `json:"calls,omitempty"`
	Order string     `json:"order,omitempty"`
	// Action, Param and Variable name an action, its parameter and a
	// variable.
	Action   string `json:"action,omitempty"`
	Param    string `json:"param,omitempty"`
	Variable string `json:"variable,omitempty"`
	// N is a bound on steps or tokens; USD a bound on cost.
	N   int64   `json:"n,omitempty"`
	USD float64 `json:"usd,omitempty"`
	// MinSize is the size in bytes of JSON from which a copied value
	// counts (no_copies); 0 means 16.
	MinSize int `json:"min_size,omitempty"`
	// Values are secrets no request may carry, besides the secret
	// variables.
	Values []string `json:"values,omitempty"`
	// Status and Failure are the expected status and failure kind.
	Status  run.Status      `json:"status,omitempty"`
	Failure run.FailureKind `json:"failure,omitempty"`

	// fn is a Go predicate's function.
	fn func(*Trial) error
}

// CallSpec is an expected tool call: the action, and the arguments it must
// have been given (a subset; each compared as JSON, a reference as its
// "<<var:name>>" string).
type CallSpec struct {
	Action string                     `json:"action"`
	Args   map[string]json.RawMessage `json:"args,omitempty"`
}

// Call returns a CallSpec for action with arguments given as Go values
// (marshalled to JSON), in pairs: Call("count_rows", "table", "<<var:orders>>").
func Call(action string, args ...any) CallSpec {
	c := CallSpec{Action: action}
	for i := 0; i+1 < len(args); i += 2 {
		if c.Args == nil {
			c.Args = map[string]json.RawMessage{}
		}
		c.Args[fmt.Sprint(args[i])] = mustJSON(args[i+1])
	}
	return c
}

func mustJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, err := marshalIndent(v)
	if err != nil {
		panic(fmt.Sprintf("eval: %T cannot be JSON: %v", v, err))
	}
	return json.RawMessage(canonicalText(b))
}

// Equal expects the result to equal v once both are JSON (numbers compare
// as numbers, objects whatever their key order). It panics if v cannot be
// JSON, a programmer's error.
func Equal(v any) Expectation { return Expectation{Kind: "equal", Value: mustJSON(v)} }

// MatchesSchema expects the result to be valid against a JSON Schema.
func MatchesSchema(s json.RawMessage) Expectation { return Expectation{Kind: "schema", Schema: s} }

// Predicate expects fn to return nil for the trial. name names it in
// reports and set files: a set read from a file finds fn in
// [Set.Predicates] by name.
func Predicate(name string, fn func(*Trial) error) Expectation {
	return Expectation{Kind: "predicate", Name: name, fn: fn}
}

// Func returns a predicate's Go function, or nil: to register a predicate
// made in Go in [Set.Predicates] of a set loaded from files.
func (e Expectation) Func() func(*Trial) error { return e.fn }

// Judge expects a model acting as judge to pass the result, asked with
// prompt. The judge runs only when [Options].Judge is set; otherwise the
// expectation is skipped and the report says so.
func Judge(prompt string) Expectation { return Expectation{Kind: "judge", Prompt: prompt} }

// Called expects the calls in this order, among others.
func Called(calls ...CallSpec) Expectation {
	return Expectation{Kind: "calls", Order: "in_order", Calls: calls}
}

// CalledAnyOrder expects the calls in any order, among others.
func CalledAnyOrder(calls ...CallSpec) Expectation {
	return Expectation{Kind: "calls", Order: "any_order", Calls: calls}
}

// CalledExactly expects exactly these calls, in this order, besides
// terminate.
func CalledExactly(calls ...CallSpec) Expectation {
	return Expectation{Kind: "calls", Order: "exact", Calls: calls}
}

// GotRef expects a call of action whose param got a reference to variable
// ("" for any variable).
func GotRef(action, param, variable string) Expectation {
	return Expectation{Kind: "ref", Action: action, Param: param, Variable: variable}
}

// NoCopies expects that no argument carries, as a raw value, the value of
// a variable that existed when the call was made, where a reference to it
// would do. Values under 16 bytes of JSON do not count (a "late" or a 3 is
// not worth a reference).
func NoCopies() Expectation { return Expectation{Kind: "no_copies"} }

// MaxSteps expects at most n model calls.
func MaxSteps(n int) Expectation { return Expectation{Kind: "max_steps", N: int64(n)} }

// MaxTokens expects at most n input plus output tokens.
func MaxTokens(n int64) Expectation { return Expectation{Kind: "max_tokens", N: n} }

// MaxCachedTokens expects at most n input tokens read from the provider's
// prompt cache.
func MaxCachedTokens(n int64) Expectation { return Expectation{Kind: "max_cached_tokens", N: n} }

// MaxUncachedTokens expects at most n tokens that were not read from the
// provider's cache: input tokens past the cached ones, plus output tokens.
func MaxUncachedTokens(n int64) Expectation { return Expectation{Kind: "max_uncached_tokens", N: n} }

// MaxCost expects at most usd dollars, priced by [Options].Price.
func MaxCost(usd float64) Expectation { return Expectation{Kind: "max_cost", USD: usd} }

// NoSecrets expects no request to the model to carry any of values, nor
// the value of any secret variable.
func NoSecrets(values ...string) Expectation { return Expectation{Kind: "no_secrets", Values: values} }

// ApprovalBefore expects approval to have been asked (for the call, or for
// the plan) before every call of action that ran, and action to have been
// called at least once (approved or denied).
func ApprovalBefore(action string) Expectation {
	return Expectation{Kind: "approval_before", Action: action}
}

// Status expects the run to end in s.
func Status(s run.Status) Expectation { return Expectation{Kind: "status", Status: s} }

// FailureKind expects the run to fail with kind k.
func FailureKind(k run.FailureKind) Expectation { return Expectation{Kind: "failure_kind", Failure: k} }

// check is what a kind checks: "" when the trial meets it, else the diff.
type check struct {
	describe func(Expectation) string
	check    func(*checker, Expectation) string
}

// checker is what checks read: the trial and the runner's settings.
type checker struct {
	ctx   context.Context
	t     *Trial
	set   *Set
	c     *Case
	opts  *Options
	skips []string
}

// checks is the table of expectation kinds.
var checks = map[string]check{
	"equal":               {func(e Expectation) string { return "result equals " + canonicalText(e.Value) }, checkEqual},
	"schema":              {func(Expectation) string { return "result is valid against the schema" }, checkSchema},
	"predicate":           {func(e Expectation) string { return "predicate " + e.Name }, checkPredicate},
	"judge":               {func(e Expectation) string { return "judge: " + e.Prompt }, checkJudge},
	"calls":               {describeCalls, checkCalls},
	"ref":                 {describeRef, checkRef},
	"no_copies":           {func(Expectation) string { return "no variable's value copied into arguments" }, checkNoCopies},
	"max_steps":           {func(e Expectation) string { return fmt.Sprintf("at most %d steps", e.N) }, checkMaxSteps},
	"max_tokens":          {func(e Expectation) string { return fmt.Sprintf("at most %d tokens", e.N) }, checkMaxTokens},
	"max_cached_tokens":   {func(e Expectation) string { return fmt.Sprintf("at most %d cached tokens", e.N) }, checkMaxCached},
	"max_uncached_tokens": {func(e Expectation) string { return fmt.Sprintf("at most %d uncached tokens", e.N) }, checkMaxUncached},
	"max_cost":            {func(e Expectation) string { return fmt.Sprintf("at most $%g", e.USD) }, checkMaxCost},
	"no_secrets":          {func(Expectation) string { return "no secret in any request" }, checkNoSecrets},
	"approval_before":     {func(e Expectation) string { return "approval asked before " + e.Action }, checkApproval},
	"status":              {func(e Expectation) string { return "status " + string(e.Status) }, checkStatus},
	"failure_kind":        {func(e Expectation) string { return "failure kind " + string(e.Failure) }, checkFailureKind},
}

// Kinds returns the expectation kinds, sorted.
func Kinds() []string { return slices.Sorted(maps.Keys(checks)) }

// String describes the expectation, as reports show it.
func (e Expectation) String() string {
	if c, ok := checks[e.Kind]; ok {
		return c.describe(e)
	}
	return "unknown expectation " + e.Kind
}

func checkEqual(k *checker, e Expectation) string {
	if d := jsonDiff(e.Value, k.t.Result); d != "" {
		return d
	}
	return ""
}

func checkSchema(k *checker, e Expectation) string {
	v, err := schema.Compile(e.Schema)
	if err != nil {
		return "the expectation's schema does not compile: " + err.Error()
	}
	if len(k.t.Result) == 0 {
		return "the run has no result"
	}
	if err := v.Validate(k.t.Result); err != nil {
		return fmt.Sprintf("result %s: %v", clip(string(k.t.Result), 200), err)
	}
	return ""
}

func checkPredicate(k *checker, e Expectation) string {
	fn := e.fn
	if fn == nil {
		fn = k.set.Predicates[e.Name]
	}
	if fn == nil {
		return fmt.Sprintf("no predicate %q in Set.Predicates; add it there", e.Name)
	}
	if err := fn(k.t); err != nil {
		return err.Error()
	}
	return ""
}

func describeCalls(e Expectation) string {
	var names []string
	for _, c := range e.Calls {
		names = append(names, c.String())
	}
	order := e.Order
	if order == "" {
		order = "in_order"
	}
	return "calls (" + strings.ReplaceAll(order, "_", " ") + ") " + strings.Join(names, ", ")
}

// String writes the call as action(arg=value, ...).
func (c CallSpec) String() string {
	var args []string
	for _, k := range slices.Sorted(maps.Keys(c.Args)) {
		args = append(args, k+"="+string(c.Args[k]))
	}
	return c.Action + "(" + strings.Join(args, ", ") + ")"
}

// calls returns the trial's tool calls, without terminate.
func (t *Trial) calls() []Step {
	var out []Step
	for _, s := range t.Trajectory {
		if s.Kind == "call" && s.Action != "terminate" {
			out = append(out, s)
		}
	}
	return out
}

// matches reports whether a call fits the spec.
func (c CallSpec) matches(s Step) bool {
	if s.Action != c.Action {
		return false
	}
	if len(c.Args) == 0 {
		return true
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(s.Arguments), &args) != nil {
		return false
	}
	for k, want := range c.Args {
		if jsonDiff(want, args[k]) != "" {
			return false
		}
	}
	return true
}

func checkCalls(k *checker, e Expectation) string {
	calls := k.t.calls()
	got := make([]string, len(calls))
	for i, c := range calls {
		got[i] = c.Action + c.Arguments
	}
	made := "the run made: " + strings.Join(got, ", ")
	if len(got) == 0 {
		made = "the run made no calls"
	}
	switch e.Order {
	case "exact":
		if len(calls) != len(e.Calls) {
			return fmt.Sprintf("want %d calls, got %d; %s", len(e.Calls), len(calls), made)
		}
		for i, c := range e.Calls {
			if !c.matches(calls[i]) {
				return fmt.Sprintf("call %d: want %s; %s", i+1, c, made)
			}
		}
	case "any_order":
		used := make([]bool, len(calls))
	next:
		for _, c := range e.Calls {
			for i, s := range calls {
				if !used[i] && c.matches(s) {
					used[i] = true
					continue next
				}
			}
			return fmt.Sprintf("no call %s; %s", c, made)
		}
	default:
		i := 0
		for _, c := range e.Calls {
			for i < len(calls) && !c.matches(calls[i]) {
				i++
			}
			if i == len(calls) {
				return fmt.Sprintf("no call %s in order after the previous ones; %s", c, made)
			}
			i++
		}
	}
	return ""
}

func describeRef(e Expectation) string {
	v := "a variable"
	if e.Variable != "" {
		v = e.Variable
	}
	return fmt.Sprintf("%s.%s got a reference to %s", e.Action, e.Param, v)
}

func checkRef(k *checker, e Expectation) string {
	var seen []string
	for _, s := range k.t.calls() {
		if s.Action != e.Action {
			continue
		}
		for _, a := range s.Args {
			if a.Param != e.Param {
				continue
			}
			if a.Ref != "" && (e.Variable == "" || a.Ref == e.Variable) {
				return ""
			}
			switch {
			case a.Ref != "":
				seen = append(seen, "a reference to "+a.Ref)
			case a.Default:
				seen = append(seen, "its default")
			default:
				seen = append(seen, "the raw value "+clip(string(a.Raw), 80))
			}
		}
	}
	want := "a reference"
	if e.Variable != "" {
		want += " to " + e.Variable
	}
	if len(seen) == 0 {
		return fmt.Sprintf("want %s in %s.%s, got no call of %s that resolved %s", want, e.Action, e.Param, e.Action, e.Param)
	}
	return fmt.Sprintf("want %s in %s.%s, got %s", want, e.Action, e.Param, strings.Join(seen, "; "))
}

func checkMaxSteps(k *checker, e Expectation) string {
	if int64(k.t.Steps) > e.N {
		return fmt.Sprintf("%d steps", k.t.Steps)
	}
	return ""
}

func checkMaxTokens(k *checker, e Expectation) string {
	if int64(k.t.Tokens()) > e.N {
		return fmt.Sprintf("%d tokens (%d in, %d out)", k.t.Tokens(), k.t.InputTokens, k.t.OutputTokens)
	}
	return ""
}

func checkMaxCached(k *checker, e Expectation) string {
	if int64(k.t.CacheReadTokens) > e.N {
		return fmt.Sprintf("%d cached tokens (read from the cache, of %d input tokens)", k.t.CacheReadTokens, k.t.InputTokens)
	}
	return ""
}

func checkMaxUncached(k *checker, e Expectation) string {
	if n := k.t.Tokens() - k.t.CacheReadTokens; int64(n) > e.N {
		return fmt.Sprintf("%d uncached tokens (%d in, %d of them read from the cache, %d out)", n, k.t.InputTokens, k.t.CacheReadTokens, k.t.OutputTokens)
	}
	return ""
}

func checkMaxCost(k *checker, e Expectation) string {
	if k.opts.Price == (Price{}) {
		return "no price to count cost by; set Options.Price (byref eval run --price)"
	}
	if k.t.Cost > e.USD {
		return fmt.Sprintf("$%.6f", k.t.Cost)
	}
	return ""
}

func checkNoSecrets(k *checker, e Expectation) string {
	if len(k.t.leaks) > 0 {
		return strings.Join(k.t.leaks, "; ")
	}
	return ""
}

func checkApproval(k *checker, e Expectation) string {
	plan, asked, ran, first := false, 0, 0, 0
	for _, s := range k.t.Trajectory {
		approval := s.Kind == "await" && strings.HasPrefix(s.Text, string(run.AwaitApproval))
		switch {
		case approval && s.Action == "" && s.Code == "":
			plan = true
		case approval && s.Action == e.Action:
			asked++
		case s.Kind == "call" && s.Action == e.Action && (s.Success || len(s.Args) > 0):
			if ran == 0 {
				first = s.Step
			}
			ran++
		}
	}
	switch {
	case ran == 0 && asked == 0:
		return e.Action + " was never called"
	case plan || asked >= ran:
		return ""
	}
	return fmt.Sprintf("%s ran %d times (first at step %d), approval was asked %d times", e.Action, ran, first, asked)
}

func checkStatus(k *checker, e Expectation) string {
	if k.t.Status != e.Status {
		d := fmt.Sprintf("want status %s, got %s", e.Status, k.t.Status)
		if k.t.Reason != "" {
			d += " (" + k.t.Reason + ")"
		}
		return d
	}
	return ""
}

func checkFailureKind(k *checker, e Expectation) string {
	if k.t.FailureKind != e.Failure {
		got := string(k.t.FailureKind)
		if got == "" {
			got = "none (status " + string(k.t.Status) + ")"
		}
		return fmt.Sprintf("want failure kind %s, got %s", e.Failure, got)
	}
	return ""
}

// clip cuts s to n bytes with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
