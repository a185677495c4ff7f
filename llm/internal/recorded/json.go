package recorded

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// This file holds the small helpers that walk decoded JSON.

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func list(v any) []any {
	a, _ := v.([]any)
	return a
}

// path walks a decoded JSON value by object keys; nil when one is missing.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// contentText is a message's content as text: a string, or the text of
// its parts.
func contentText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	out := ""
	for _, p := range list(v) {
		out += str(path(p, "text"))
	}
	return out
}

// compact returns v without the null members of its objects.
func compact(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if x != nil {
			out[k] = compact(x)
		}
	}
	return out
}

// equal compares two decoded JSON values.
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// short is v as compact JSON, cut to 200 bytes, for messages.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
