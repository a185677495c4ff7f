package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// jsonDiff compares two JSON texts as values: "" when they are equal, else
// where they first differ.
func jsonDiff(want, got json.RawMessage) string {
	if len(bytes.TrimSpace(got)) == 0 {
		got = json.RawMessage("null")
	}
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return "the expected value is not JSON: " + err.Error()
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return "the value is not JSON: " + err.Error()
	}
	return diffValues("", w, g)
}

func diffValues(path string, w, g any) string {
	at := ""
	if path != "" {
		at = " at " + path
	}
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(wv)) {
			x, ok := gv[k]
			if !ok {
				return fmt.Sprintf("missing key %q%s", k, at)
			}
			if d := diffValues(path+"."+k, wv[k], x); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(gv)) {
			if _, ok := wv[k]; !ok {
				return fmt.Sprintf("unexpected key %q%s", k, at)
			}
		}
		return ""
	case []any:
		gv, ok := g.([]any)
		if !ok {
			break
		}
		if len(wv) != len(gv) {
			return fmt.Sprintf("want %d elements%s, got %d", len(wv), at, len(gv))
		}
		for i := range wv {
			if d := diffValues(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(w, g) {
		return ""
	}
	return fmt.Sprintf("want %s%s, got %s", compact(w), at, compact(g))
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b), 200)
}

// marshalIndent writes v as indented JSON without HTML escaping, ending in
// a newline.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// canonicalText returns JSON compacted, without HTML escaping.
func canonicalText(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// canonical returns v's JSON with keys sorted and no spaces, for
// comparisons by text.
func canonical(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
