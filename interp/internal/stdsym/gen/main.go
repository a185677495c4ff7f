// Command gen writes the zz_*.go symbol tables of package stdsym, one per
// allowed standard package, and the compiler export data of the same
// packages in export/ (their types, for type-checking snippets without a
// toolchain), from the Go toolchain it runs with. Run it
// with go generate in interp/internal/stdsym.
package main

import (
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/byref/byref/internal/yaegi/extract"
	"github.com/byref/byref/interp/internal/stdsym"
)

func main() {
	files, err := generate()
	if err != nil {
		log.Fatal(err)
	}
	old, _ := filepath.Glob("zz_*.go")
	for _, f := range old {
		if _, keep := files[f]; !keep {
			if err := os.Remove(f); err != nil {
				log.Fatal(err)
			}
		}
	}
	for name, src := range files {
		if err := os.WriteFile(name, src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	exports, err := exportData()
	if err != nil {
		log.Fatal(err)
	}
	old, _ = filepath.Glob(filepath.Join("export", "*"))
	for _, f := range old {
		if _, keep := exports[filepath.Base(f)]; !keep {
			if err := os.Remove(f); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll("export", 0o755); err != nil {
		log.Fatal(err)
	}
	for name, data := range exports {
		if err := os.WriteFile(filepath.Join("export", name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// fileName is the generated file of an import path.
func fileName(path string) string {
	return "zz_" + strings.NewReplacer("/", "_").Replace(path) + ".go"
}

// generate returns the generated files by name.
func generate() (map[string][]byte, error) {
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	e := extract.Extractor{Dest: "stdsym", NoVersionTag: true, Generator: "interp/internal/stdsym/gen"}
	files := map[string][]byte{}
	for _, p := range stdsym.Packages {
		var b bytes.Buffer
		if err := e.ExtractWith(imp, p, &b); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		files[fileName(p)] = b.Bytes()
	}
	return files, nil
}
