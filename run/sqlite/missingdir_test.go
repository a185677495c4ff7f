package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// A database in a directory that does not exist is refused with the
// directory named and the fix, not SQLite's "unable to open database file".
func TestOpenNamesAMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such")
	_, err := Open(filepath.Join(dir, "runs.db"), Options{})
	if err == nil || !strings.Contains(err.Error(), dir+" does not exist") || !strings.Contains(err.Error(), "os.MkdirAll") {
		t.Fatalf("err = %v", err)
	}
}
