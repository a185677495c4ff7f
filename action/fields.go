package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/byref/byref/schema"
)

// A function whose one parameter (after an optional context.Context) is a
// plain struct takes that struct's fields as its arguments: each field is a
// Parameter of its own, and Call builds the struct. This file works out the
// fields and their tags.

// argsStruct returns the struct whose fields are the arguments of a
// function of type ft (first is 1 after a leading context), or nil when the
// function takes ordinary parameters: it does not take exactly one
// parameter, the parameter is no struct, the struct decodes or describes
// itself (time.Time, a type with UnmarshalJSON, UnmarshalText or a
// JSONSchema method), it has fields but none that JSON can set (a handle
// such as struct{ fd int }: a value passed by reference), or Params
// declares it whole.
func argsStruct(ft reflect.Type, first int, params []Param) reflect.Type {
	if ft.NumIn()-first != 1 {
		return nil
	}
	t := ft.In(first)
	if t.Kind() != reflect.Struct || selfDecoding(t) {
		return nil
	}
	if len(params) == 1 && params[0].Whole {
		return nil
	}
	if t.NumField() > 0 && !hasArgField(t) {
		return nil
	}
	return t
}

// hasArgField reports whether encoding/json can set a field of st.
func hasArgField(st reflect.Type) bool {
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		if sf.Tag.Get("json") == "-" {
			continue
		}
		if sf.IsExported() {
			return true
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && hasArgField(sf.Type) {
			return true
		}
	}
	return false
}

// selfDecoding reports whether t (or *t) decodes itself from JSON or
// describes its own schema, so that its fields are not its JSON object's
// properties.
func selfDecoding(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(jsonUnmarshalerType) || u.Implements(textUnmarshalerType) || schema.DescribesItself(u) {
			return true
		}
	}
	return false
}

// checkWhole refuses Param.Whole where it means nothing: on a function that
// does not take exactly one struct.
func checkWhole(ft reflect.Type, first int, params []Param) error {
	for i, p := range params {
		if !p.Whole {
			continue
		}
		if ft.NumIn()-first != 1 || ft.In(first).Kind() != reflect.Struct {
			return fmt.Errorf("Spec.Params[%d] (%q) sets Whole, which is for a function whose one parameter is a struct; remove it", i, p.Name)
		}
	}
	return nil
}

// field is one argument field of a struct: its parameter and where it is.
type field struct {
	param Param
	index []int  // reflect index path, through embedded structs
	path  string // Go field names joined by dots
	typ   reflect.Type
}

// structFields returns the parameters of an arguments struct st, in field
// order, with Spec.Params (given by JSON name) laid over the ones derived
// from the tags.
func structFields(st reflect.Type, overrides []Param) ([]field, error) {
	fields, err := collectFields(st, nil, "")
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(fields))
	for i, f := range fields {
		if j, dup := byName[f.param.Name]; dup {
			return nil, fmt.Errorf("fields %s and %s of %s are both named %q in JSON; rename one with a json tag", fields[j].path, f.path, st, f.param.Name)
		}
		byName[f.param.Name] = i
	}
	seen := make(map[string]bool, len(overrides))
	for i, o := range overrides {
		j, ok := byName[o.Name]
		if !ok {
			return nil, unknownField(st, fields, i, o.Name)
		}
		if seen[o.Name] {
			return nil, fmt.Errorf("Spec.Params names field %q twice; merge the two entries", o.Name)
		}
		seen[o.Name] = true
		fields[j].param = overlay(fields[j].param, o)
	}
	return fields, nil
}

// unknownField is the error for a Spec.Params entry that names no field.
func unknownField(st reflect.Type, fields []field, i int, name string) error {
	names := make([]string, len(fields))
	for k, f := range fields {
		names[k] = f.param.Name
		if strings.EqualFold(f.path, name) && f.path != f.param.Name {
			return fmt.Errorf("Spec.Params[%d] names %q, the Go name of field %q; Params name fields by their JSON names: write %q", i, name, f.param.Name, f.param.Name)
		}
	}
	return fmt.Errorf("Spec.Params[%d] names %q, which is no field of %s (its fields are %s); name a field by its JSON name, or set Param.Whole to take the whole struct as one parameter", i, name, st, strings.Join(names, ", "))
}

// overlay returns p with what o sets: o's description, bounds, enum,
// default and modes replace p's; Optional only adds.
func overlay(p, o Param) Param {
	if o.Description != "" {
		p.Description = o.Description
	}
	if o.Optional {
		p.Optional = true
	}
	if o.Default != nil {
		p.Default = o.Default
	}
	if o.Enum != nil {
		p.Enum = o.Enum
	}
	if o.Min != nil {
		p.Min = o.Min
	}
	if o.Max != nil {
		p.Max = o.Max
	}
	if o.MinLength != 0 {
		p.MinLength = o.MinLength
	}
	if o.MaxLength != 0 {
		p.MaxLength = o.MaxLength
	}
	if o.Pattern != "" {
		p.Pattern = o.Pattern
	}
	if o.RefOnly {
		p.RefOnly = true
	}
	if o.RawOnly {
		p.RawOnly = true
	}
	if o.Schema != nil {
		p.Schema = o.Schema
	}
	return p
}

// collectFields lists the argument fields of st as encoding/json sees them:
// exported fields, not tagged "-", with the fields of untagged embedded
// structs promoted in place.
func collectFields(st reflect.Type, index []int, prefix string) ([]field, error) {
	var out []field
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), index...), i)
		path := prefix + sf.Name
		if sf.Anonymous && name == "" {
			t := sf.Type
			if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
				return nil, fmt.Errorf("field %s embeds %s through a pointer; embed %s by value, or give the field a json tag to take it as one argument", path, t, t.Elem())
			}
			if t.Kind() == reflect.Struct && !selfDecoding(t) {
				inner, err := collectFields(t, idx, path+".")
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		p := Param{Name: name}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				p.Optional = true
			case "string":
				return nil, fmt.Errorf("field %s has the json option \",string\", which arguments do not support; declare the field as a string and convert it", path)
			}
		}
		if sf.Type.Kind() == reflect.Pointer {
			p.Optional = true
		}
		if err := checkFieldName(name); err != nil {
			return nil, fmt.Errorf("field %s: %w", path, err)
		}
		if err := readTags(&p, sf, path); err != nil {
			return nil, err
		}
		out = append(out, field{param: p, index: idx, path: path, typ: sf.Type})
	}
	return out, nil
}

// tagKeys are the keys of invopop/jsonschema's `jsonschema` struct tag that
// an argument field may use, as invopop/jsonschema (and so Eino and Genkit)
// read them.
const tagKeys = "description, enum, minimum, maximum, minLength, maxLength, pattern, default, required"

// readTags sets p's description, enum, bounds, default and requiredness
// from the field's `jsonschema:"key=value,…"` and `jsonschema_description`
// tags.
func readTags(p *Param, sf reflect.StructField, path string) error {
	if d := sf.Tag.Get("jsonschema_description"); d != "" {
		p.Description = d
	}
	tag, ok := sf.Tag.Lookup("jsonschema")
	if !ok || tag == "" {
		return nil
	}
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	required := false
	for _, part := range splitTag(tag) {
		key, val, hasVal := strings.Cut(part, "=")
		bad := func(err error) error {
			return fmt.Errorf("field %s: the jsonschema tag's %s=%s: %w", path, key, val, err)
		}
		switch {
		case key == "required" && !hasVal:
			required = true
		case key == "description" && hasVal:
			p.Description = val
		case key == "enum" && hasVal:
			v, err := tagValue(val, t)
			if err != nil {
				return bad(err)
			}
			p.Enum = append(p.Enum, v)
		case (key == "minimum" || key == "maximum") && hasVal:
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return bad(fmt.Errorf("not a number"))
			}
			var n any = f
			if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				n = int64(f)
			}
			if key == "minimum" {
				p.Min = n
			} else {
				p.Max = n
			}
		case (key == "minLength" || key == "maxLength") && hasVal:
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return bad(fmt.Errorf("not a length"))
			}
			if key == "minLength" {
				p.MinLength = n
			} else {
				p.MaxLength = n
			}
		case key == "pattern" && hasVal:
			p.Pattern = val
		case key == "default" && hasVal:
			if sf.Type.Kind() == reflect.Pointer {
				return fmt.Errorf("field %s: a pointer field is nil when not given, so it cannot have a default; drop default= or make the field a %s", path, t)
			}
			v, err := tagValue(val, t)
			if err != nil {
				return bad(err)
			}
			p.Default = v
		default:
			return fmt.Errorf("field %s: the jsonschema tag has %q, which action arguments do not read; use %s (jsonschema:\"description=…,minimum=1\"), or describe the field in Spec.Params", path, part, tagKeys)
		}
	}
	if required {
		if p.Default != nil {
			return fmt.Errorf("field %s: the jsonschema tag says both required and a default; keep one", path)
		}
		p.Optional = false
	}
	return nil
}

// tagValue converts the text of an enum or default value to a value of type
// elem: a string type takes the text as it is, other types read it as JSON.
func tagValue(text string, elem reflect.Type) (any, error) {
	if elem.Kind() == reflect.String {
		v := reflect.New(elem).Elem()
		v.SetString(text)
		return v.Interface(), nil
	}
	ptr := reflect.New(elem)
	if err := json.Unmarshal([]byte(text), ptr.Interface()); err != nil {
		return nil, fmt.Errorf("not a %s", elem)
	}
	return ptr.Elem().Interface(), nil
}

// splitTag splits a jsonschema tag on commas not escaped with a backslash,
// and unescapes them, as invopop/jsonschema does.
func splitTag(tag string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		switch {
		case tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case tag[i] == ',':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(tag[i])
		}
	}
	return append(parts, cur.String())
}

// checkFieldName checks the JSON name of an argument field: a word of
// letters, digits and _ (a Go keyword such as "type" is fine: snippets pass
// fields by position), not "return".
func checkFieldName(name string) error {
	switch {
	case name == schema.ReturnProperty:
		return errors.New(`"return" is reserved for naming the variable that receives the result; name the field with a json tag (json:"result")`)
	case token.IsKeyword(name):
		return nil
	}
	if err := checkParamName(name); err != nil {
		return fmt.Errorf("%w; name the field with a json tag (json:\"%s\")", err, fieldNameSuggestion(name))
	}
	return nil
}

// fieldNameSuggestion turns name into a word checkFieldName accepts.
func fieldNameSuggestion(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte("f_"), b...)
	}
	return string(b)
}
