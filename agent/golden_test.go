package agent_test

import (
	"bytes"
	"encoding/json"
	"testing"

	goldenfile "github.com/byref/byref/internal/golden"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

func indent(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
