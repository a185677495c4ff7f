package agent

import (
	"errors"
	"maps"
	"reflect"
	"slices"

	"github.com/byref/byref/interp"
	"github.com/byref/byref/variable"
)

// Taint: what is derived from a secret is handled like the secret.
//
// The runtime keeps, per run, the names of its sensitive variables: the
// secrets the host handed in and the variables tainted since. A value is
// tainted when it is the result of an action that was given a sensitive
// variable (unless the action declassifies its result), when it is a
// variable passed by reference to such a call that could have been changed
// through it, or when a snippet that read a sensitive variable created or
// changed it. The output and errors of such calls and snippets are hidden
// from the model. Every text bound for the model or the log also goes
// through a variable.Redactor of the sensitive values, as a second line.

// minTaintedText is the shortest text of a tainted value that the redactor
// hides: shorter derived texts ("true", "done") would hide ordinary words.
const minTaintedText = 8

// anySensitive reports whether any of the named variables is sensitive.
func (sc *scope) anySensitive(names []string) []string {
	var out []string
	for _, n := range names {
		if sc.secrets[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// taint marks the named variables as derived from a secret.
func (sc *scope) taint(names ...string) {
	for _, n := range names {
		if sc.vars.Taint(n) != nil {
			continue
		}
		if sc.secrets == nil {
			sc.secrets = map[string]bool{}
		}
		sc.secrets[n] = true
	}
}

// sensitiveArgs returns the variables passed by reference to a prepared
// call that are sensitive.
func (sc *scope) sensitiveArgs(p *prepared) []string {
	var out []string
	for _, a := range p.record {
		if a.Ref != "" && sc.secrets[a.Ref] && !slices.Contains(out, a.Ref) {
			out = append(out, a.Ref)
		}
	}
	return out
}

// carriers returns the variables passed by reference to a prepared call
// whose values the action could change in place (pointers, maps, slices,
// interfaces, channels): after a call that was given a secret, they may
// hold it.
func (sc *scope) carriers(p *prepared) []string {
	var out []string
	for _, a := range p.record {
		if a.Ref == "" || sc.secrets[a.Ref] {
			continue
		}
		if _, t, ok := sc.vars.Value(a.Ref); ok && mutable(t) {
			out = append(out, a.Ref)
		}
	}
	return out
}

func mutable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	}
	return false
}

// hideError is the message the model gets for a failed call that was given
// a secret: the action's name, never its error's text. Compile errors of
// snippets are kept: they are about the code, not the values.
func hideError(name string, err error) string {
	var ce *interp.CompileError
	if err != nil && errors.As(err, &ce) {
		return err.Error()
	}
	return name + " " + hiddenError
}

// redacted is redact for a caller that does not hold mu (a Handle).
func (st *State) redacted(text string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.redact(text)
}

// showsSecret is holdsSecret for a caller that does not hold mu (a
// Handle).
func (st *State) showsSecret(text string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.holdsSecret(text)
}

// redact hides the texts of sensitive variables, and their common
// encodings, in text the model or the log will read.
func (sc *scope) redact(text string) string {
	if text == "" || len(sc.secrets) == 0 {
		return text
	}
	return sc.redactor().Redact(text)
}

// redactor returns the Redactor of the run's sensitive values, rebuilt when
// they changed.
func (sc *scope) redactor() *variable.Redactor {
	// The texts are collected again only when a sensitive variable was
	// added, removed or changed since: the walk uses reflection, and
	// redact runs on every call of a run with secrets.
	if c := sc.redaction; c != nil && len(c.changes) == len(sc.secrets) {
		same := true
		for name, n := range c.changes {
			if !sc.secrets[name] || sc.vars.Changes(name) != n {
				same = false
				break
			}
		}
		if same {
			return c.r
		}
	}
	changes := make(map[string]int, len(sc.secrets))
	texts := map[string]string{}
	for name := range sc.secrets {
		changes[name] = sc.vars.Changes(name)
		v, ok := sc.vars.Head(name)
		if !ok {
			continue
		}
		min := variable.MinRedactable
		if !v.Secret {
			min = minTaintedText
		}
		mask := v.Preview(0)
		collectTexts(reflect.ValueOf(v.Value), 0, func(s string) {
			if len(s) >= min {
				texts[s] = mask
			}
		})
	}
	if sc.redaction == nil || !maps.Equal(sc.redaction.texts, texts) {
		sc.redaction = &redaction{texts: texts, r: variable.NewRedactor(texts)}
	}
	sc.redaction.changes = changes
	return sc.redaction.r
}

// Bounds of the walk that collects the texts inside a sensitive value.
const (
	maxTextDepth = 4
	maxTexts     = 64
)

// collectTexts calls fn with the strings held in v (a string, []byte, or
// the strings inside structs, slices, maps and pointers), bounded in depth
// and count.
func collectTexts(v reflect.Value, depth int, fn func(string)) int {
	if !v.IsValid() || depth > maxTextDepth {
		return 0
	}
	n := 0
	switch v.Kind() {
	case reflect.String:
		fn(v.String())
		return 1
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Kind() == reflect.Slice {
				fn(string(v.Bytes()))
			}
			return 1
		}
		for i := 0; i < v.Len() && n < maxTexts; i++ {
			n += collectTexts(v.Index(i), depth+1, fn)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			n += collectTexts(v.Elem(), depth+1, fn)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField() && n < maxTexts; i++ {
			if v.Type().Field(i).IsExported() {
				n += collectTexts(v.Field(i), depth+1, fn)
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() && n < maxTexts {
			n += collectTexts(it.Key(), depth+1, fn)
			n += collectTexts(it.Value(), depth+1, fn)
		}
	}
	return n
}

// holdsSecret reports whether text contains the value of a secret
// variable.
func (sc *scope) holdsSecret(text string) bool {
	return len(sc.secrets) > 0 && sc.redact(text) != text
}
