package stdsym

import (
	"embed"
	"strings"
)

// exports holds the compiler export data of the allowed packages (and of
// io), generated with the symbol tables: the types a snippet is checked
// against, in a binary that has no Go toolchain.
//
//go:embed export
var exports embed.FS

// ExportFile is the name of the export data file of an import path.
func ExportFile(path string) string {
	return strings.ReplaceAll(path, "/", "_") + ".a"
}

// ExportData returns the export data of an allowed package (or io), as an
// archive go/importer's "gc" importer reads, or false.
func ExportData(path string) ([]byte, bool) {
	b, err := exports.ReadFile("export/" + ExportFile(path))
	return b, err == nil
}
