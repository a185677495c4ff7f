package codegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// errNoLiteral: the value has no Go literal the log can vouch for (a type
// that decodes its JSON itself, embedded fields, a type the log does not
// describe); generated code decodes its JSON instead.
var errNoLiteral = errors.New("no Go literal")

// jsonValue writes raw, a recorded JSON value, as a Go expression of type
// t: a Go literal where the log describes t well enough to write one
// exactly as encoding/json would decode it, and replay.JSON[T](`raw`)
// otherwise. typed reports a context that gives the type (an argument, an
// assignment to a declared variable), where untyped constants convert.
func (g *gen) jsonValue(raw json.RawMessage, t *gotype, typed bool) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("the recorded value %.80s is not JSON: %w", raw, err)
	}
	s, err := g.literal(v, t, typed, false)
	if !errors.Is(err, errNoLiteral) {
		return s, err
	}
	return g.decodeExpr(t, raw)
}

// decodeExpr is replay.JSON[T](`text`).
func (g *gen) decodeExpr(t *gotype, text []byte) (string, error) {
	ts, err := g.typeExpr(t)
	if err != nil {
		return "", err
	}
	if g.snippet {
		return "", fmt.Errorf("a value of type %s has no Go literal, and snippets cannot decode it", t)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, text) == nil {
		text = buf.Bytes()
	}
	return g.imp.use(replayPath, "replay") + ".JSON[" + ts + "](" + quote(string(text)) + ")", nil
}

// quote writes s as a raw string literal when it reads better that way
// (it has quotes or backslashes) and a raw literal can hold it exactly
// (strconv.CanBackquote: no backquote, control character but tab, byte
// order mark or invalid UTF-8; a carriage return would be dropped).
func quote(s string) string {
	if strings.ContainsAny(s, "\"\\") && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// literal writes v, decoded JSON (numbers as json.Number), as a Go
// expression of type t; elide drops the type of a composite literal
// (an element of another composite literal).
func (g *gen) literal(v any, t *gotype, typed, elide bool) (string, error) {
	if t == nil {
		return g.anyLiteral(v)
	}
	u, unmarshals := g.cat.underlying(t)
	if unmarshals || u == nil {
		return "", errNoLiteral
	}
	named := t.kind == kNamed
	conv := func(s string, natural string) (string, error) {
		if typed || (!named && u.kind == kBasic && u.name == natural) {
			return s, nil
		}
		ts, err := g.typeExpr(t)
		return ts + "(" + s + ")", err
	}
	if v == nil {
		return g.nilLiteral(t, u, typed)
	}
	switch u.kind {
	case kAny:
		return g.anyLiteral(v)
	case kBasic:
		switch x := v.(type) {
		case bool:
			if u.name == "bool" {
				return conv(strconv.FormatBool(x), "bool")
			}
		case string:
			if u.name == "string" {
				return conv(quote(x), "string")
			}
		case json.Number:
			switch {
			case strings.HasPrefix(u.name, "int") || strings.HasPrefix(u.name, "uint") || u.name == "byte" || u.name == "rune":
				s, ok := integer(x)
				if !ok {
					return "", errNoLiteral
				}
				return conv(s, "int")
			case strings.HasPrefix(u.name, "float"):
				s := x.String()
				if !strings.ContainsAny(s, ".eE") {
					s += ".0"
				}
				return conv(s, "float64")
			}
		}
		return "", errNoLiteral
	case kPointer:
		return g.pointerLiteral(v, u)
	}
	// Composite literals.
	var elems []string
	switch u.kind {
	case kSlice, kArray:
		list, ok := v.([]any)
		if !ok || (u.kind == kArray && len(list) > u.n) {
			return "", errNoLiteral // a []byte is base64 text
		}
		for _, e := range list {
			s, err := g.element(e, u.elem)
			if err != nil {
				return "", err
			}
			elems = append(elems, s)
		}
	case kMap:
		var err error
		if elems, err = g.mapElems(v, u); err != nil {
			return "", err
		}
	case kStruct:
		var err error
		if elems, err = g.structElems(v, u); err != nil {
			return "", err
		}
	default:
		return "", errNoLiteral
	}
	body := "{" + strings.Join(elems, ", ") + "}"
	if len(elems) > 3 || len(body) > 80 {
		body = "{\n" + strings.Join(elems, ",\n") + ",\n}"
	}
	if elide {
		return body, nil
	}
	ts, err := g.typeExpr(t)
	return ts + body, err
}

// nilLiteral writes JSON's null as a value of type t (underlying u): nil,
// converted unless typed, or t's zero value.
func (g *gen) nilLiteral(t, u *gotype, typed bool) (string, error) {
	switch u.kind {
	case kPointer, kSlice, kMap, kAny, kIface, kError, kFunc, kChan:
		if typed {
			return "nil", nil
		}
		ts, err := g.typeExpr(t)
		if u.kind == kPointer || u.kind == kFunc || u.kind == kChan {
			ts = "(" + ts + ")"
		}
		return ts + "(nil)", err
	}
	return g.zero(t)
}

// pointerLiteral writes v as a pointer of underlying type u: &T{…} for a
// composite, replay.Ptr[T](v) for a basic value.
func (g *gen) pointerLiteral(v any, u *gotype) (string, error) {
	el, _ := g.cat.underlying(u.elem)
	if el != nil && (el.kind == kStruct || el.kind == kSlice || el.kind == kMap || el.kind == kArray) {
		s, err := g.literal(v, u.elem, false, false)
		return "&" + s, err
	}
	s, err := g.literal(v, u.elem, true, false)
	if err != nil {
		return "", err
	}
	if g.snippet {
		return "", fmt.Errorf("%w: a pointer to a %s", errNoLiteral, u.elem)
	}
	ts, err := g.typeExpr(u.elem)
	return g.imp.use(replayPath, "replay") + ".Ptr[" + ts + "](" + s + ")", err
}

// mapElems writes the keys and values of map literal v, of underlying
// type u, sorted by key.
func (g *gen) mapElems(v any, u *gotype) (elems []string, err error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errNoLiteral
	}
	ku, unm := g.cat.underlying(u.key)
	if unm || ku == nil || ku.kind != kBasic {
		return nil, errNoLiteral
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var ks string
		if ku.name == "string" {
			ks, err = g.literal(k, u.key, true, false)
		} else {
			ks, err = g.literal(json.Number(k), u.key, true, false)
		}
		if err != nil {
			return nil, err
		}
		e, err := g.element(obj[k], u.elem)
		if err != nil {
			return nil, err
		}
		elems = append(elems, ks+": "+e)
	}
	return elems, nil
}

// structElems writes the fields of struct literal v, of underlying type
// u, that are not their zero value.
func (g *gen) structElems(v any, u *gotype) (elems []string, err error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errNoLiteral
	}
	for _, f := range u.fields {
		if f.name == "" || !token.IsIdentifier(f.name) {
			return nil, errNoLiteral // embedded fields promote theirs
		}
		key, opts, _ := strings.Cut(jsonTag(f.tag), ",")
		if key == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			return nil, errNoLiteral
		}
		if key == "" {
			key = f.name
		}
		fv, ok := obj[key]
		if !ok {
			for k, x := range obj { // encoding/json matches case-insensitively
				if strings.EqualFold(k, key) {
					fv, ok = x, true
					break
				}
			}
		}
		if !ok || isZeroJSON(fv) {
			continue // the zero value, as Go leaves it
		}
		// A field's value keeps its type: Go elides the types of
		// elements, keys and values only.
		s, err := g.literal(fv, f.typ, true, false)
		if err != nil {
			return nil, err
		}
		elems = append(elems, f.name+": "+s)
	}
	return elems, nil
}

// element writes a composite literal's element or map value.
func (g *gen) element(v any, t *gotype) (string, error) {
	u, _ := g.cat.underlying(t)
	if v != nil && u != nil && (u.kind == kStruct || u.kind == kSlice || u.kind == kMap || u.kind == kArray) {
		return g.literal(v, t, true, true)
	}
	return g.literal(v, t, true, false)
}

// anyLiteral writes decoded JSON as the value encoding/json puts in an
// any: map[string]any, []any, float64, string, bool or nil.
func (g *gen) anyLiteral(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "nil", nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return quote(x), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return "", errNoLiteral
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	case []any:
		var elems []string
		for _, e := range x {
			s, err := g.anyLiteral(e)
			if err != nil {
				return "", err
			}
			elems = append(elems, s)
		}
		return "[]any{" + strings.Join(elems, ", ") + "}", nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var elems []string
		for _, k := range keys {
			s, err := g.anyLiteral(x[k])
			if err != nil {
				return "", err
			}
			elems = append(elems, quote(k)+": "+s)
		}
		body := "{" + strings.Join(elems, ", ") + "}"
		if len(elems) > 3 || len(body) > 80 {
			body = "{\n" + strings.Join(elems, ",\n") + ",\n}"
		}
		return "map[string]any" + body, nil
	}
	return "", errNoLiteral
}

// integer writes a JSON number as Go integer text, when it is a whole
// number (the runtime decodes 3.0 and 1e3 into integer parameters).
func integer(n json.Number) (string, bool) {
	s := n.String()
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s, true
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return s, true
	}
	f, ok := new(big.Float).SetString(s)
	if !ok || !f.IsInt() {
		return "", false
	}
	i, _ := f.Int(nil)
	return i.String(), true
}

// jsonTag is the json key of a struct tag.
func jsonTag(tag string) string {
	s, _ := lookupTag(tag, "json")
	return s
}

// lookupTag is reflect.StructTag.Lookup on a tag string.
func lookupTag(tag, key string) (string, bool) {
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := tag[:i]
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		qvalue := tag[:i+1]
		tag = tag[i+1:]
		if key == name {
			value, err := strconv.Unquote(qvalue)
			return value, err == nil
		}
	}
	return "", false
}

// zero writes the zero value of t, in a context that gives the type.
func (g *gen) zero(t *gotype) (string, error) {
	u, _ := g.cat.underlying(t)
	if u == nil {
		ts, err := g.typeExpr(t)
		return "*new(" + ts + ")", err
	}
	switch u.kind {
	case kBasic:
		switch {
		case u.name == "bool":
			return "false", nil
		case u.name == "string":
			return `""`, nil
		case u.name == "unsafe.Pointer":
			return "nil", nil
		}
		return "0", nil
	case kStruct, kArray:
		ts, err := g.typeExpr(t)
		return ts + "{}", err
	}
	return "nil", nil
}

// isZeroJSON reports decoded JSON that decodes to a Go zero value: null,
// false, 0 and "".
func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	return false
}
