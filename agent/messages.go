package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// ErrUnknownAction is wrapped by the error for a call to an action the
// runtime does not have.
var ErrUnknownAction = errors.New("agent: unknown action")

// unknownAction names the available actions, closest first.
func (sc *scope) unknownAction(name string) error {
	var names []string
	for _, r := range sc.m.rows {
		if r.unavailable(sc.opts.HideFromAI) == "" && sc.isAttached(r.act.Name()) {
			names = append(names, r.act.Name())
		}
	}
	hint := ""
	if best := closest(name, names); best != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", best)
	}
	return fmt.Errorf("%w %q%s; available actions: %s", ErrUnknownAction, name, hint, strings.Join(names, ", "))
}

// creators names the actions whose result could satisfy r's missing
// reference parameters.
func (sc *scope) creators(r *row) string {
	var makers []string
	for i, g := range r.params {
		p := r.act.Param(i)
		if p.Raw != nil || (g != nil && len(g.vars) > 0) {
			continue
		}
		for _, other := range sc.m.rows {
			if t := other.act.Result(); t != nil && sc.m.assignable(t, p.Type) && other.unavailable(sc.opts.HideFromAI) == "" {
				makers = append(makers, other.act.Name())
			}
		}
	}
	if len(makers) == 0 {
		return ""
	}
	return "; first create one with " + strings.Join(makers, " or ")
}

// closest returns the name at edit distance 2 or less from s, if any.
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// example writes a call's arguments object with placeholders, e.g.
// {"location": <string>, "unit": "c", "return": null}.
func example(r *row, plain bool) string {
	var b strings.Builder
	b.WriteString("{")
	n := 0
	for i := 0; i < r.act.NumParams(); i++ {
		p := r.act.Param(i)
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		fmt.Fprintf(&b, "%q: ", p.Name)
		switch {
		case len(p.Enum) > 0:
			e, _ := json.Marshal(p.Enum[0])
			b.Write(e)
		case !plain && r.params[i] != nil && len(r.params[i].vars) > 0:
			b.WriteString(strconv.Quote(schema.Ref(r.params[i].vars[0])))
		default:
			b.WriteString("<" + variable.TypeName(p.Type) + ">")
		}
	}
	if !plain && r.result != nil {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"return": null`)
	}
	b.WriteString("}")
	return b.String()
}

// paramList names a row's parameters, with "return" where it applies.
func paramList(r *row, plain bool) string {
	names := make([]string, 0, r.act.NumParams()+1)
	for i := 0; i < r.act.NumParams(); i++ {
		names = append(names, r.act.Param(i).Name)
	}
	if !plain && r.result != nil {
		names = append(names, "return")
	}
	return strings.Join(names, ", ")
}

// describeParam says what parameter i accepts.
func describeParam(r *row, i int, plain bool) string {
	p := r.act.Param(i)
	parts := []string{}
	switch {
	case len(p.Enum) > 0:
		parts = append(parts, "one of "+enumList(p.Enum))
	case p.Raw != nil:
		parts = append(parts, "a JSON "+variable.TypeName(p.Type))
	}
	if !plain && p.Refs() {
		if g := r.params[i]; g != nil && len(g.vars) > 0 {
			parts = append(parts, "a reference to one of: "+refList(g))
		}
	}
	if len(parts) == 0 {
		return variable.TypeName(p.Type)
	}
	return strings.Join(parts, ", or ")
}

func missingOrNull(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return "null"
}

// refList writes a group's members as references.
func refList(g *group) string {
	if g == nil || len(g.vars) == 0 {
		return "(none: no variable has a compatible type yet)"
	}
	refs := make([]string, len(g.vars))
	for i, v := range g.vars {
		refs[i] = schema.Ref(v)
	}
	return strings.Join(refs, ", ")
}

func nameList(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}
