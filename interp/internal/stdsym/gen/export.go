package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/byref/byref/interp/internal/stdsym"
)

// exportPackages are the packages whose compiler export data is written:
// the allowed ones, and io, whose Writer is the type of the os.Stdout a
// snippet sees.
func exportPackages() []string {
	return append(append([]string(nil), stdsym.Packages...), "io")
}

// exportData returns, per export file name, the compiler's export data of
// each package (the archive's first member, __.PKGDEF, without the object
// code), as `go list -export` builds it for linux/amd64 with no GOFLAGS.
func exportData() (map[string][]byte, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-json=ImportPath,Export"}, exportPackages()...)...)
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.String())
	}
	files := map[string][]byte{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p.Export)
		if err != nil {
			return nil, err
		}
		def, err := pkgdef(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		files[stdsym.ExportFile(p.ImportPath)] = def
	}
	return files, nil
}

// pkgdef cuts an archive down to its first member, which must be
// __.PKGDEF (the export data go/importer reads).
func pkgdef(ar []byte) ([]byte, error) {
	const magic = "!<arch>\n"
	if !bytes.HasPrefix(ar, []byte(magic)) || len(ar) < len(magic)+60 {
		return nil, fmt.Errorf("not an archive")
	}
	hdr := ar[len(magic) : len(magic)+60]
	if name := strings.TrimSpace(string(hdr[:16])); name != "__.PKGDEF" {
		return nil, fmt.Errorf("first member is %q, not __.PKGDEF", name)
	}
	size, err := strconv.Atoi(strings.TrimSpace(string(hdr[48:58])))
	if err != nil {
		return nil, fmt.Errorf("member size: %v", err)
	}
	end := len(magic) + 60 + size
	if end%2 == 1 {
		end++
	}
	if end > len(ar) {
		return nil, fmt.Errorf("truncated archive")
	}
	return ar[:end], nil
}
