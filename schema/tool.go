package schema

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/byref/byref/run"
)

// Tool is what a model provider needs to offer one action: its name, its
// description and the JSON Schema of its arguments object (and whether
// the provider should hold the arguments to it, Strict, which BuildTool
// leaves false). It is [run.Tool], the one tool type of byref, which
// llm.Tool names too.
type Tool = run.Tool

// Param describes one parameter to BuildTool.
type Param struct {
	// Name is the parameter's name, the property of the arguments object.
	Name string
	// Description is the parameter's own description (may be empty).
	Description string
	// TypeName is the Go type shown to the model, e.g. "string" or
	// "*browser.Browser".
	TypeName string
	// Raw is the schema of a raw value, or nil when the parameter takes
	// references only.
	Raw json.RawMessage
	// Refs are the names of the variables compatible with the parameter, in
	// the order to offer them. Empty when none is, or when references are
	// not accepted. The schema does not list them (see BuildTool); a
	// parameter with Refs takes references as if Referable were set.
	Refs []string
	// Referable reports that the parameter takes references whether or
	// not a variable fits it yet. Its schema offers the reference pattern
	// and stays the same as variables come and go, so that a tool list
	// built once serves a whole run.
	Referable bool
	// Optional parameters accept null, which means Default.
	Optional bool
	// Default is the default's JSON text, shown to the model for optional
	// parameters (may be empty).
	Default string
}

// Return describes the result of an action to BuildTool.
type Return struct {
	// TypeName is the Go type of the result.
	TypeName string
	// Targets are the existing variables the result may be assigned to.
	Targets []string
}

// ToolSpec is the input of BuildTool and BuildPlainTool.
type ToolSpec struct {
	// Name and Description are the action's.
	Name        string
	Description string
	// Params are the action's parameters, in order.
	Params []Param
	// Return is nil for an action that returns nothing but an error.
	Return *Return
}

// ReturnProperty is the name of the argument through which the model may
// name an existing variable to receive an action's result. The schemas do
// not offer it (results go to new variables, which the system prompt
// says); the runtime still accepts it.
const ReturnProperty = "return"

// RefDefName is the name of the $defs entry holding the reference pattern,
// the one alternative a non-string parameter gets for references.
const RefDefName = "ref"

// RefPattern is the regular expression a reference matches: the exact
// string <<var:NAME>>, NAME a Go identifier.
const RefPattern = `^<<var:[A-Za-z_][A-Za-z0-9_]*>>$`

// BuildTool writes the reference-mode schema of an action, lean: what the
// model reads is paid for on every call.
//
//   - A parameter that takes references and has compatible variables
//     accepts "<<var:NAME>>": a plain string parameter as it is (a
//     reference is a string), any other as anyOf its raw schema and the
//     reference pattern ($defs.ref, written once per tool). The compatible
//     variables are not listed: the system prompt names each variable once,
//     with its type, and a reference to an incompatible one is refused with
//     the list.
//   - A parameter that takes references only is a string matching the
//     reference pattern, described by its Go type. Its compatible
//     variables are not listed either: the schema must not change when a
//     variable is made, or a prompt cache would lose everything after
//     the tools (the variables are announced in the messages, where they
//     are made).
//   - Descriptions are the parameters' own; the action's description is
//     not repeated inside its parameters, and there is no return property
//     (see ReturnProperty).
//
// The schema depends on the spec's names, descriptions, types and whether
// each parameter takes references, never on which variables exist: a run
// builds its tool list once. It does no reflection and allocates little.
func BuildTool(spec ToolSpec) Tool {
	return Tool{Name: spec.Name, Description: spec.Description, Parameters: buildObject(spec, true)}
}

// BuildPlainTool writes an ordinary schema of an action: raw values only, no
// references. Parameters with no raw schema are skipped; callers leave such
// actions out in plain mode.
func BuildPlainTool(spec ToolSpec) Tool {
	return Tool{Name: spec.Name, Description: spec.Description, Parameters: buildObject(spec, false)}
}

func buildObject(spec ToolSpec, refs bool) json.RawMessage {
	size := 96
	for _, p := range spec.Params {
		size += 48 + len(p.Description) + len(p.Raw)
		if refs && p.Raw == nil {
			size += len(RefPattern) + 32
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"type":"object","properties":{`...)
	n := 0
	pattern := false
	for _, p := range spec.Params {
		if !offered(p, refs) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = AppendString(b, p.Name)
		b = append(b, ':')
		var usesPattern bool
		b, usesPattern = appendParam(b, p, refs)
		pattern = pattern || usesPattern
	}
	b = append(b, `},"required":[`...)
	n = 0
	for _, p := range spec.Params {
		if !offered(p, refs) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = AppendString(b, p.Name)
	}
	b = append(b, `],"additionalProperties":false`...)
	if pattern {
		b = append(b, `,"$defs":{"`+RefDefName+`":{"type":"string","pattern":`...)
		b = AppendString(b, RefPattern)
		b = append(b, `}}`...)
	}
	return append(b, '}')
}

// offered reports whether a parameter is in the schema: it has a raw
// schema, or takes references in reference mode.
func offered(p Param, refs bool) bool {
	return p.Raw != nil || (refs && p.takesRefs())
}

// takesRefs reports whether p accepts references.
func (p Param) takesRefs() bool { return p.Referable || len(p.Refs) > 0 }

// appendParam writes one parameter's schema and reports whether it uses
// the reference pattern.
func appendParam(b []byte, p Param, refs bool) ([]byte, bool) {
	desc := p.Description
	if p.Optional && p.Default != "" {
		if desc != "" {
			desc += " "
		}
		desc += "Optional (null: " + p.Default + ")."
	}
	if p.Raw == nil {
		// References only: the pattern, and the type the variable needs.
		if desc != "" {
			desc = " " + desc
		}
		b = append(b, `{"type":"string","pattern":`...)
		b = AppendString(b, RefPattern)
		b = append(b, `,"description":`...)
		b = AppendString(b, "A "+p.TypeName+" variable, passed as \"<<var:NAME>>\"."+desc)
		return append(b, '}'), false
	}
	withRefs := refs && p.takesRefs() && !plainString(p.Raw)
	if !withRefs && !p.Optional {
		return appendWithDescription(b, p.Raw, desc), false
	}
	if !withRefs && plainString(p.Raw) {
		// An optional string: nullable, the shortest way.
		return appendWithDescription(b, json.RawMessage(`{"type":["string","null"]}`), desc), false
	}
	b = append(b, `{"anyOf":[`...)
	b = append(b, p.Raw...)
	if withRefs {
		b = append(b, `,{"$ref":"#/$defs/`+RefDefName+`"}`...)
	}
	if p.Optional {
		b = append(b, `,{"type":"null"}`...)
	}
	b = append(b, ']')
	if desc != "" {
		b = append(b, `,"description":`...)
		b = AppendString(b, desc)
	}
	return append(b, '}'), withRefs
}

// plainString reports whether raw is the schema of any string, which a
// reference already satisfies.
func plainString(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == `{"type":"string"}`
}

// appendWithDescription writes the object schema raw with a description
// property added in front (none when desc is empty).
func appendWithDescription(b []byte, raw json.RawMessage, desc string) []byte {
	raw = bytes.TrimSpace(raw)
	if desc == "" {
		return append(b, raw...)
	}
	if len(raw) > 0 && raw[0] != '{' {
		// A boolean schema such as true: wrap it.
		b = append(b, `{"anyOf":[`...)
		b = append(b, raw...)
		b = append(b, `],"description":`...)
		b = AppendString(b, desc)
		return append(b, '}')
	}
	b = append(b, `{"description":`...)
	b = AppendString(b, desc)
	if len(raw) > 0 {
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			b = append(b, ',')
			return append(b, rest...)
		}
	}
	return append(b, '}')
}

const hex = "0123456789abcdef"

// plainJSON reports, per byte, whether it is ASCII that a JSON string
// holds as it is: printable, not a quote nor a backslash.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s to b as a JSON string the way encoding/json does
// with HTML escaping off: control characters, quotes and backslashes
// escaped, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// A run of ASCII that needs no escaping, the common text, is
		// passed over with one lookup per byte and appended at once.
		for i < len(s) && plainJSON[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
