package schema_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/byref/byref/schema"
)

// TestAppendStringMatchesEncodingJSON holds AppendString to encoding/json
// (HTML escaping off) on random texts of ASCII, escapes, multi-byte and
// invalid UTF-8, U+2028 and U+2029.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "Paris", " ", `"`, `\`, "\n", "\t", "\x01", "\x7f", "é", "日本", "\u2028", "\u2029", "\xff", "\xe2\x80", "<", ">", "&", "forecast{Location: "}
	for range 50000 {
		var s string
		for range r.IntN(12) {
			s += pieces[r.IntN(len(pieces))]
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := schema.AppendString(nil, s); string(got) != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want.Bytes())
		}
	}
}

// BenchmarkAppendString writes a typical preview: a struct with quoted
// strings and a list of numbers.
func BenchmarkAppendString(b *testing.B) {
	s := `forecast{Location: "Paris", Unit: "c", Days: 3, Temps: [18.5, 19, 21.25]}`
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = schema.AppendString(buf[:0], s)
	}
}
