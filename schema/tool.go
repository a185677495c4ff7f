package schema

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Tool is what a model provider needs to offer one action: its name, its
// description and the JSON Schema of its arguments object.
type Tool struct {
	// Name is the action's name, what the model calls.
	Name string
	// Description says what the action does.
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

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
	// not accepted.
	Refs []string
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

// ReturnProperty is the name of the property through which the model names
// the variable that receives an action's result.
const ReturnProperty = "return"

// RefDefName is the name of the $defs entry listing the references a
// parameter accepts.
func RefDefName(param string) string { return param + "_possible_variables" }

// ReturnDefName is the name of the $defs entry listing the variables a result
// may be assigned to.
const ReturnDefName = "possible_return_assignment"

const returnDescription = "The variable to assign the result to: the name of a compatible existing variable, or null to create a new variable."

// BuildTool writes the reference-mode schema of an action as the package
// documentation describes. It does no reflection and allocates little: it
// is called for every available action whenever the variables change.
func BuildTool(spec ToolSpec) Tool {
	return Tool{Name: spec.Name, Description: spec.Description, Parameters: buildObject(spec, true)}
}

// BuildPlainTool writes an ordinary schema of an action: raw values only, no
// references and no return property. Parameters with no raw schema are
// skipped; callers leave such actions out in plain mode.
func BuildPlainTool(spec ToolSpec) Tool {
	return Tool{Name: spec.Name, Description: spec.Description, Parameters: buildObject(spec, false)}
}

func buildObject(spec ToolSpec, refs bool) json.RawMessage {
	size := 128 + len(spec.Description)
	for _, p := range spec.Params {
		size += 96 + len(p.Description) + len(p.Raw) + len(p.TypeName)
		if refs {
			size += len(p.Refs) * 16
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"type":"object"`...)
	if spec.Description != "" {
		b = append(b, `,"description":`...)
		b = appendString(b, spec.Description)
	}
	b = append(b, `,"properties":{`...)
	n := 0
	for _, p := range spec.Params {
		if p.Raw == nil && (!refs || len(p.Refs) == 0) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendString(b, p.Name)
		b = append(b, ':')
		b = appendParam(b, p, refs)
	}
	hasReturn := refs && spec.Return != nil
	if hasReturn {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `"return":{`...)
		if len(spec.Return.Targets) > 0 {
			b = append(b, `"anyOf":[{"$ref":"#/$defs/`+ReturnDefName+`"},{"type":"null"}]`...)
		} else {
			b = append(b, `"type":"null"`...)
		}
		b = append(b, `,"description":`...)
		b = appendString(b, returnDescription+" (type: "+spec.Return.TypeName+")")
		b = append(b, '}')
	}
	b = append(b, `},"required":[`...)
	n = 0
	for _, p := range spec.Params {
		if p.Raw == nil && (!refs || len(p.Refs) == 0) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendString(b, p.Name)
	}
	if hasReturn {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `"return"`...)
	}
	b = append(b, `],"additionalProperties":false`...)
	if refs {
		b = appendDefs(b, spec)
	}
	return append(b, '}')
}

func appendParam(b []byte, p Param, refs bool) []byte {
	withRefs := refs && len(p.Refs) > 0
	desc := "(type: " + p.TypeName
	if p.Raw == nil {
		desc += ", by reference only"
	}
	desc += ")"
	if p.Description != "" {
		desc += " " + p.Description
	}
	if p.Optional {
		if p.Default != "" {
			desc += " Optional: null means the default, " + p.Default + "."
		} else {
			desc += " Optional: null means the zero value."
		}
	}
	if !withRefs && !p.Optional {
		// The raw schema itself, with the description added.
		return appendWithDescription(b, p.Raw, desc)
	}
	b = append(b, `{"anyOf":[`...)
	alt := 0
	if p.Raw != nil {
		b = append(b, p.Raw...)
		alt++
	}
	if withRefs {
		if alt > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"$ref":"#/$defs/`...)
		b = append(b, RefDefName(p.Name)...)
		b = append(b, `"}`...)
	}
	if p.Optional {
		b = append(b, `,{"type":"null"}`...)
	}
	b = append(b, `],"description":`...)
	b = appendString(b, desc)
	return append(b, '}')
}

// appendWithDescription writes the object schema raw with a description
// property added in front.
func appendWithDescription(b []byte, raw json.RawMessage, desc string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] != '{' {
		// A boolean schema such as true: wrap it.
		b = append(b, `{"anyOf":[`...)
		b = append(b, raw...)
		b = append(b, `],"description":`...)
		b = appendString(b, desc)
		return append(b, '}')
	}
	b = append(b, `{"description":`...)
	b = appendString(b, desc)
	if len(raw) > 0 {
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			b = append(b, ',')
			return append(b, rest...)
		}
	}
	return append(b, '}')
}

func appendDefs(b []byte, spec ToolSpec) []byte {
	first := true
	open := func() {
		if first {
			b = append(b, `,"$defs":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
	}
	for _, p := range spec.Params {
		if len(p.Refs) == 0 {
			continue
		}
		open()
		b = appendString(b, RefDefName(p.Name))
		b = append(b, `:{"type":"string","enum":[`...)
		for i, r := range p.Refs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, RefPrefix...)
			b = append(b, r...)
			b = append(b, RefSuffix...)
			b = append(b, '"')
		}
		b = append(b, `],"description":`...)
		b = appendString(b, "A reference <<var:NAME>> to a variable compatible with '"+p.Name+"' (type "+p.TypeName+").")
		b = append(b, '}')
	}
	if spec.Return != nil && len(spec.Return.Targets) > 0 {
		open()
		b = append(b, `"`+ReturnDefName+`":{"type":"string","enum":[`...)
		for i, r := range spec.Return.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, `],"description":"An existing variable that can hold the result."}`...)
	}
	if !first {
		b = append(b, '}')
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
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
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
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
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
