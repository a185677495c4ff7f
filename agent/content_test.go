package agent

import (
	"testing"
)

// appendContent writes what marshal(toolContent{…}) writes, for every
// kind of text.
func TestAppendContentMatchesEncodingJSON(t *testing.T) {
	texts := []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\r\b\f", "ctrl \x01\x1f", "<b>&amp;</b>", "é ü 日本", "bad \xff utf8", "line\u2028sep\u2029", "<<var:x>>"}
	for _, s := range texts {
		for _, ok := range []bool{true, false} {
			vars := []VariableChange{{Name: "x", Type: "[]string", Preview: s, Change: "created"}, {Name: "y", Type: "int", Preview: "1", Change: "modified"}}
			for _, v := range [][]VariableChange{nil, vars} {
				want, err := marshal(toolContent{ok, s, s, s, v, nil})
				if err != nil {
					t.Fatal(err)
				}
				if got := string(appendContent(nil, ok, s, s, s, v)); got != string(want) {
					t.Errorf("text %q:\ngot  %s\nwant %s", s, got, want)
				}
			}
		}
	}
}
