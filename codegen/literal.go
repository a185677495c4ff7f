package codegen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// errNoLiteral: the value has no Go literal (unexported fields, a complex
// number, a func); generated code decodes its JSON instead.
var errNoLiteral = errors.New("no Go literal")

// value writes v as a Go expression of exactly v's type (typed=false), or
// of a type the context supplies (typed=true, where untyped constants
// convert). Values without a literal are decoded from their JSON with
// replay.JSON.
func (g *gen) value(v reflect.Value, typed bool) (string, error) {
	s, err := g.literal(v, typed, false)
	if !errors.Is(err, errNoLiteral) {
		return s, err
	}
	b, jerr := json.Marshal(v.Interface())
	if jerr != nil {
		return "", fmt.Errorf("a value of type %s has neither a Go literal nor JSON: %w", v.Type(), jerr)
	}
	return g.decodeExpr(v.Type(), b)
}

// decodeExpr is replay.JSON[T](`text`).
func (g *gen) decodeExpr(t reflect.Type, text []byte) (string, error) {
	ts, err := g.typeExpr(t)
	if err != nil {
		return "", err
	}
	if g.snippet {
		return "", fmt.Errorf("a value of type %s has no Go literal, and snippets cannot decode it", t)
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

// literal writes v; elide drops the type of a composite literal (inside
// another composite literal).
func (g *gen) literal(v reflect.Value, typed, elide bool) (string, error) {
	t := v.Type()
	conv := func(s string, natural reflect.Type) (string, error) {
		if typed || t == natural {
			return s, nil
		}
		ts, err := g.typeExpr(t)
		return ts + "(" + s + ")", err
	}
	switch t.Kind() {
	case reflect.Bool:
		return conv(strconv.FormatBool(v.Bool()), basicTypes["bool"])
	case reflect.String:
		return conv(quote(v.String()), basicTypes["string"])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return conv(strconv.FormatInt(v.Int(), 10), basicTypes["int"])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return conv(strconv.FormatUint(v.Uint(), 10), nil)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "", errNoLiteral
		}
		s := strconv.FormatFloat(f, 'g', -1, t.Bits())
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return conv(s, basicTypes["float64"])
	case reflect.Interface:
		if v.IsNil() {
			return g.nilExpr(t, typed)
		}
		return g.literal(v.Elem(), false, false)
	case reflect.Pointer:
		if v.IsNil() {
			return g.nilExpr(t, typed)
		}
		switch t.Elem().Kind() {
		case reflect.Struct, reflect.Slice, reflect.Map, reflect.Array:
			s, err := g.literal(v.Elem(), false, false)
			return "&" + s, err
		}
		s, err := g.literal(v.Elem(), false, false)
		if err != nil {
			return "", err
		}
		if g.snippet {
			return "", fmt.Errorf("%w: a pointer to a %s", errNoLiteral, t.Elem())
		}
		return g.imp.use(replayPath, "replay") + ".Ptr(" + s + ")", nil
	case reflect.Slice, reflect.Map:
		if v.IsNil() {
			return g.nilExpr(t, typed)
		}
	case reflect.Struct, reflect.Array:
	default:
		return "", fmt.Errorf("%w: a %s", errNoLiteral, t)
	}
	// Composite literals.
	var elems []string
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			s, err := g.element(v.Index(i))
			if err != nil {
				return "", err
			}
			elems = append(elems, s)
		}
	case reflect.Map:
		type kv struct{ k, v string }
		var kvs []kv
		for it := v.MapRange(); it.Next(); {
			k, err := g.element(it.Key())
			if err != nil {
				return "", err
			}
			e, err := g.element(it.Value())
			if err != nil {
				return "", err
			}
			kvs = append(kvs, kv{k, e})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
		for _, p := range kvs {
			elems = append(elems, p.k+": "+p.v)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			fv := v.Field(i)
			if fv.IsZero() {
				continue
			}
			if !f.IsExported() {
				return "", fmt.Errorf("%w: %s has unexported fields", errNoLiteral, t)
			}
			// A field's value keeps its type: Go elides the types of
			// elements, keys and values only.
			s, err := g.literal(fv, true, false)
			if err != nil {
				return "", err
			}
			elems = append(elems, f.Name+": "+s)
		}
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

// element writes a composite literal's element, key or field value.
func (g *gen) element(v reflect.Value) (string, error) {
	if v.Kind() == reflect.Interface {
		return g.literal(v, true, false)
	}
	switch v.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map, reflect.Array:
		if v.Kind() == reflect.Struct || !v.IsNil() || v.Kind() == reflect.Array {
			return g.literal(v, true, true)
		}
	}
	return g.literal(v, true, false)
}

// nilExpr is nil, converted to t when the context does not give the type.
func (g *gen) nilExpr(t reflect.Type, typed bool) (string, error) {
	if typed {
		return "nil", nil
	}
	ts, err := g.typeExpr(t)
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Func || t.Kind() == reflect.Chan {
		ts = "(" + ts + ")"
	}
	return ts + "(nil)", err
}

// zero writes the zero value of t, for the error returns.
func (g *gen) zero(t reflect.Type) (string, error) {
	switch t.Kind() {
	case reflect.Bool:
		return "false", nil
	case reflect.String:
		return `""`, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Float32, reflect.Float64,
		reflect.Complex64, reflect.Complex128:
		return "0", nil
	case reflect.Struct, reflect.Array:
		ts, err := g.typeExpr(t)
		return ts + "{}", err
	}
	return "nil", nil
}
