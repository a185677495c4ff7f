package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"unicode/utf8"

	"github.com/byref/byref/schema"
)

// bounds are a parameter's Min, Max, MinLength, MaxLength and Pattern,
// compiled when the action is built and checked on the scalar fast path
// (other types are checked by their schema, which carries the same
// keywords).
type bounds struct {
	any                  bool
	hasMin, hasMax       bool
	min, max             float64
	minLength, maxLength int
	pattern              *regexp.Regexp
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// buildBounds checks a parameter's bounds against its type and compiles
// them.
func buildBounds(p Param, t reflect.Type) (bounds, error) {
	var b bounds
	num := func(v any, name string) (float64, error) {
		rv := reflect.ValueOf(v)
		if !isNumber(rv.Kind()) {
			return 0, fmt.Errorf("%s %v is not a number", name, v)
		}
		return rv.Convert(reflect.TypeFor[float64]()).Float(), nil
	}
	if p.Min != nil || p.Max != nil {
		if !isNumber(t.Kind()) {
			return b, fmt.Errorf("the bounds Min and Max are for numbers, and %s is not one; use MinLength, MaxLength or Pattern for strings", t)
		}
		var err error
		if p.Min != nil {
			if b.min, err = num(p.Min, "Min"); err != nil {
				return b, err
			}
			b.hasMin = true
		}
		if p.Max != nil {
			if b.max, err = num(p.Max, "Max"); err != nil {
				return b, err
			}
			b.hasMax = true
		}
		if b.hasMin && b.hasMax && b.min > b.max {
			return b, fmt.Errorf("the bound Min %v is more than Max %v", p.Min, p.Max)
		}
	}
	if p.MinLength > 0 || p.MaxLength > 0 || p.Pattern != "" {
		if t.Kind() != reflect.String {
			return b, fmt.Errorf("the bounds MinLength, MaxLength and Pattern are for strings, and %s is not one; use Min and Max for numbers", t)
		}
		if p.MinLength < 0 || p.MaxLength < 0 || p.MaxLength > 0 && p.MinLength > p.MaxLength {
			return b, errors.New("the lengths must be positive, with MinLength at most MaxLength")
		}
		b.minLength, b.maxLength = p.MinLength, p.MaxLength
		if p.Pattern != "" {
			re, err := regexp.Compile(p.Pattern)
			if err != nil {
				return b, fmt.Errorf("the Pattern is not a Go regular expression: %w", err)
			}
			b.pattern = re
		}
	}
	b.any = b.hasMin || b.hasMax || b.minLength > 0 || b.maxLength > 0 || b.pattern != nil
	return b, nil
}

// check reports how the scalar v breaks the bounds, as schema.ErrInvalid.
func (b *bounds) check(v reflect.Value) error {
	var f float64
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if n := utf8.RuneCountInString(s); b.minLength > 0 && n < b.minLength || b.maxLength > 0 && n > b.maxLength {
			return fmt.Errorf("%w: %q has %d characters, want %s", schema.ErrInvalid, s, n, lengthText(b.minLength, b.maxLength))
		}
		if b.pattern != nil && !b.pattern.MatchString(s) {
			return fmt.Errorf("%w: %q does not match the pattern %s", schema.ErrInvalid, s, b.pattern)
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		f = v.Float()
	default:
		return nil
	}
	if b.hasMin && f < b.min || b.hasMax && f > b.max {
		return fmt.Errorf("%w: %v is out of range, want %s", schema.ErrInvalid, f, rangeText(b))
	}
	return nil
}

func rangeText(b *bounds) string {
	switch {
	case b.hasMin && b.hasMax:
		return fmt.Sprintf("%v to %v", b.min, b.max)
	case b.hasMin:
		return fmt.Sprintf("at least %v", b.min)
	default:
		return fmt.Sprintf("at most %v", b.max)
	}
}

func lengthText(lo, hi int) string {
	switch {
	case lo > 0 && hi > 0:
		return fmt.Sprintf("%d to %d", lo, hi)
	case lo > 0:
		return fmt.Sprintf("at least %d", lo)
	default:
		return fmt.Sprintf("at most %d", hi)
	}
}

// addBounds returns raw with the JSON Schema keywords of p's bounds.
func addBounds(raw json.RawMessage, p Param) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if p.Min != nil {
		s["minimum"] = p.Min
	}
	if p.Max != nil {
		s["maximum"] = p.Max
	}
	if p.MinLength > 0 {
		s["minLength"] = p.MinLength
	}
	if p.MaxLength > 0 {
		s["maxLength"] = p.MaxLength
	}
	if p.Pattern != "" {
		s["pattern"] = p.Pattern
	}
	return json.Marshal(s)
}
