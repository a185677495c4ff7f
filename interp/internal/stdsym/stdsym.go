// Package stdsym is the interpreter's table of standard-library symbols: the
// packages snippets may import, and nothing else, extracted from the Go
// toolchain byref is built with. It replaces yaegi's stdlib package, which
// holds the whole standard library (and registers net/http/pprof and expvar
// handlers on http.DefaultServeMux when linked).
//
// The zz_*.go files are generated, and so is export/, the compiler export
// data of the same packages (and io) that snippets are type-checked
// against ([ExportData]): run `go generate ./interp/internal/stdsym` after
// changing [Packages] or the Go version; TestUpToDate and
// TestExportDataUpToDate in ./gen fail when they are stale.
package stdsym

//go:generate go run ./gen

import (
	"encoding"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"reflect"
)

// Packages are the import paths whose symbols are generated, in the order
// interp documents them.
var Packages = []string{
	"fmt", "errors", "strings", "strconv", "bytes", "bufio",
	"unicode", "unicode/utf8", "unicode/utf16",
	"math", "math/bits", "math/cmplx", "math/rand", "math/rand/v2",
	"sort", "slices", "maps", "cmp",
	"time", "regexp",
	"encoding/json", "encoding/base64", "encoding/hex", "encoding/csv", "encoding/xml",
	"html", "path", "text/tabwriter",
	"container/list", "container/heap", "container/ring",
	"hash/crc32", "hash/fnv", "crypto/md5", "crypto/sha1", "crypto/sha256", "crypto/sha512",
}

// Symbols maps "import/path/name" to the package's exported symbols, in
// yaegi's form; "." holds MapTypes.
var Symbols = map[string]map[string]reflect.Value{}

// MapTypes tells yaegi which interfaces an interpreted value passed to these
// functions may implement (fmt.Stringer for fmt.Println...), as yaegi's
// stdlib does.
var MapTypes = map[reflect.Value][]reflect.Type{}

func init() {
	Symbols["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(MapTypes)}
	// error before fmt.Stringer, as fmt prefers Error to String; an
	// interpreted error passed to fmt.Errorf's %w must reach it as an
	// error.
	mt := []reflect.Type{
		reflect.TypeFor[fmt.Formatter](),
		reflect.TypeFor[error](),
		reflect.TypeFor[fmt.Stringer](),
	}
	for _, f := range []any{fmt.Errorf, fmt.Fprint, fmt.Fprintf, fmt.Fprintln, fmt.Print, fmt.Printf, fmt.Println, fmt.Sprint, fmt.Sprintf, fmt.Sprintln, fmt.Append, fmt.Appendf, fmt.Appendln} {
		MapTypes[reflect.ValueOf(f)] = mt
	}
	MapTypes[reflect.ValueOf(json.Marshal)] = []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	MapTypes[reflect.ValueOf(json.MarshalIndent)] = MapTypes[reflect.ValueOf(json.Marshal)]
	MapTypes[reflect.ValueOf(json.Unmarshal)] = []reflect.Type{reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()}
	MapTypes[reflect.ValueOf(xml.Marshal)] = []reflect.Type{reflect.TypeFor[xml.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	MapTypes[reflect.ValueOf(xml.Unmarshal)] = []reflect.Type{reflect.TypeFor[xml.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()}
}
