package variable

import (
	"errors"
	"fmt"
	"go/token"
)

// ErrInvalidName is returned for a name that cannot name a variable.
var ErrInvalidName = errors.New("variable: invalid name")

// predeclared lists Go's predeclared identifiers. A variable may not shadow
// them, because snippets see variables as Go identifiers.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true,
	"complex128": true, "error": true, "float32": true, "float64": true, "int": true,
	"int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "true": true, "false": true, "iota": true,
	"nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true,
	"make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// snippetPackages are the names of the standard packages Go snippets may
// use (interp.AllowedPackages; runtime tests that the two agree). A
// variable named like one would hide the package from every snippet.
var snippetPackages = map[string]bool{
	"fmt": true, "errors": true, "strings": true, "strconv": true, "bytes": true, "bufio": true,
	"unicode": true, "utf8": true, "utf16": true, "math": true, "bits": true, "cmplx": true,
	"rand": true, "sort": true, "slices": true, "maps": true, "cmp": true, "time": true,
	"regexp": true, "json": true, "base64": true, "hex": true, "csv": true, "xml": true,
	"html": true, "path": true, "tabwriter": true, "list": true, "heap": true, "ring": true,
	"crc32": true, "fnv": true, "md5": true, "sha1": true, "sha256": true, "sha512": true,
}

// reserved holds every name ValidName refuses by name: keywords,
// predeclared identifiers, snippet packages and the blank identifier.
var reserved = func() map[string]bool {
	m := map[string]bool{"_": true}
	for _, set := range []map[string]bool{predeclared, snippetPackages} {
		for k := range set {
			m[k] = true
		}
	}
	for t := token.BREAK; t <= token.VAR; t++ {
		if t.IsKeyword() {
			m[t.String()] = true
		}
	}
	return m
}()

// asciiIdentifier reports whether name is an identifier of ASCII letters,
// digits and underscores, not starting with a digit; false for any other,
// which ValidName then looks at closely.
func asciiIdentifier(name string) bool {
	if name == "" || '0' <= name[0] && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// IsSnippetPackage reports whether name is the name of a standard package
// that Go snippets may use, which no variable may take.
func IsSnippetPackage(name string) bool { return snippetPackages[name] }

// ValidName reports whether name can name a variable: a Go identifier that is
// neither a keyword, a predeclared identifier, the name of a package
// snippets use, nor the blank identifier. The error, wrapping
// [ErrInvalidName], says why and how to fix it.
func ValidName(name string) error {
	if !reserved[name] && asciiIdentifier(name) {
		// The common case, with one lookup: a plain ASCII identifier
		// that is not taken.
		return nil
	}
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty; use a Go identifier such as result", ErrInvalidName)
	case name == "_":
		return fmt.Errorf("%w: %q is the blank identifier; use a Go identifier such as result", ErrInvalidName, name)
	case token.IsKeyword(name):
		return fmt.Errorf("%w: %q is a Go keyword; use another name such as %s_", ErrInvalidName, name, name)
	case !token.IsIdentifier(name):
		return fmt.Errorf("%w: %q is not a Go identifier (letters, digits and _ only, not starting with a digit)", ErrInvalidName, name)
	case predeclared[name]:
		return fmt.Errorf("%w: %q is a predeclared Go identifier; use another name such as %s_", ErrInvalidName, name, name)
	case snippetPackages[name]:
		return fmt.Errorf("%w: %q is the name of a package Go snippets use, which a variable would hide; use another name such as %s_", ErrInvalidName, name, name)
	}
	return nil
}
