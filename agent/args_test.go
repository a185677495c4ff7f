package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// splitObject accepts exactly the objects encoding/json accepts, and
// splits them into the members encoding/json decodes.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,"b":[1,2,{"c":null}],"d":"x\"y"}`, `{"a":-0.5e+3}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":"\u00e9\ud83d"}`, `{"a":"\x"}`,
		`{"a":"` + "\x01" + `"}`, `{"a":tru}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `[1]`, `null`, `"x"`,
		`{"a":1}}`, `{"a":1} x`, `{"a":[1,]}`, `{"a":{"b":1,}}`, `{"\u0061":1}`, `{"a":"\u12G4"}`,
		`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		`{"a":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`,
		`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		"{\"a\":\"\xff\"}", `{"a":-}`, `{"a":--1}`, `{"a":1E+}`, `{"a":[}`, `{"a":{]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := []byte(s)
		fs, err := splitObject(text, nil)
		var m map[string]json.RawMessage
		jerr := json.Unmarshal(text, &m)
		if !json.Valid(text) {
			if err == nil {
				t.Fatalf("%q: accepted invalid JSON", s)
			}
			return
		}
		if jerr != nil || m == nil { // valid JSON, not an object
			if err == nil {
				t.Fatalf("%q: accepted a non-object", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: refused a valid object: %v", s, err)
		}
		for _, f := range fs {
			if _, dup := fs.duplicate(); dup {
				return
			}
			if got, want := string(f.raw), string(m[string(f.key)]); got != want {
				t.Fatalf("%q: member %q = %q, encoding/json has %q", s, f.key, got, want)
			}
		}
		if len(fs) != len(m) {
			t.Fatalf("%q: %d members, encoding/json has %d", s, len(fs), len(m))
		}
	})
}

// BenchmarkSplitObject: the one pass over a call's arguments.
func BenchmarkSplitObject(b *testing.B) {
	text := []byte(`{"location":"Paris","unit":"c","days":3}`)
	var fs fields
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if fs, err = splitObject(text, fs); err != nil || len(fs) != 3 {
			b.Fatal(err)
		}
	}
}
