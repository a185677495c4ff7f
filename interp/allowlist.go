package interp

import (
	yaegi "github.com/byref/byref/internal/yaegi/interp"

	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/byref/byref/interp/internal/stdsym"
)

// AllowedPackages lists the standard packages a snippet may import, by import
// path, in the order doc.go documents them. Everything else in the standard
// library is refused with a [RefusedError]. Host packages registered through
// [Options.Symbols] are importable in addition.
var AllowedPackages = slices.Clone(stdsym.Packages)

// removedSymbols are symbols of allowed packages that are dropped from the
// table, with the reason a refusal names.
var removedSymbols = map[string]map[string]string{
	"time": {
		"AfterFunc": "it runs a function on another goroutine; use a loop with time.Sleep",
	},
	"bufio": {
		"NewReaderSize": "its size argument is an unbounded allocation; use bufio.NewReader",
		"NewWriterSize": "its size argument is an unbounded allocation; use bufio.NewWriter",
	},
	"math/rand": {
		"Perm": "its argument is an unbounded allocation; build the slice and use rand.Shuffle",
	},
	"math/rand/v2": {
		"Perm": "its argument is an unbounded allocation; build the slice and use rand.Shuffle",
	},
}

// refusedPackages explains, per package name a snippet might reach for, why it
// is not available. Names not listed get a generic explanation.
var refusedPackages = map[string]string{
	"os":       "snippets have no file, process or environment access; work on the variables you were given",
	"exec":     "snippets cannot run processes",
	"syscall":  "snippets cannot make system calls",
	"unsafe":   "snippets cannot break type safety",
	"plugin":   "snippets cannot load code",
	"runtime":  "snippets cannot control the Go runtime",
	"debug":    "snippets cannot control the Go runtime",
	"reflect":  "reflection could reach symbols outside the allow-list; use type switches and type assertions",
	"ioutil":   "snippets have no file access",
	"filepath": "snippets have no file access; use the path package for string manipulation of paths",
	"fs":       "snippets have no file access",
	"io":       "snippets have no file or stream access; use strings, bytes and bufio over in-memory data",
	"log":      "log writes to the process's standard error; use fmt.Println, whose output is returned to you",
	"net":      "snippets have no network access; call an action to fetch data",
	"http":     "snippets have no network access; call an action to fetch data",
	"url":      "the net packages are not available; use strings to take URLs apart",
	"sync":     "snippets run on one goroutine and need no locks",
	"atomic":   "snippets run on one goroutine and need no atomics",
	"context":  "the snippet's context is managed by the host",
	"signal":   "snippets cannot handle signals",
	"user":     "snippets have no access to the host's users",
	"big":      "math/big operations allocate without bound",
	"template": "templates can call methods outside the allow-list; use fmt and strings",
}

var (
	stdOnce   sync.Once
	stdTable  map[string]map[string]reflect.Value // yaegi key ("fmt/fmt") -> symbols
	stdByName map[string]string                   // package name -> import path (first allowed wins)
	stdPaths  map[string]bool
)

// loadStd loads the generated table of the allowed packages once per process,
// without the removed symbols.
func loadStd() {
	stdOnce.Do(func() {
		stdTable = map[string]map[string]reflect.Value{}
		stdByName = map[string]string{}
		stdPaths = map[string]bool{}
		keys := make([]string, 0, len(stdsym.Symbols))
		for k := range stdsym.Symbols {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, p := range AllowedPackages {
			name := path.Base(p)
			if p == "math/rand/v2" {
				name = "rand"
			}
			syms, ok := stdsym.Symbols[p+"/"+name]
			if !ok {
				continue
			}
			filtered := make(map[string]reflect.Value, len(syms))
			for s, v := range syms {
				if _, drop := removedSymbols[p][s]; drop {
					continue
				}
				filtered[s] = v
			}
			stdTable[p+"/"+name] = filtered
			stdPaths[p] = true
			if _, dup := stdByName[name]; !dup {
				stdByName[name] = p
			}
		}
		// MapTypes lets yaegi pass interpreted values implementing fmt.Stringer and
		// error to fmt functions; it only adds type information, no symbols.
		mapTypes := make(map[reflect.Value][]reflect.Type, len(stdsym.MapTypes)+16)
		for k, v := range stdsym.MapTypes {
			mapTypes[k] = v
		}
		boundPrinting(stdTable, mapTypes)
		stdTable["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(mapTypes)}
		staticOverrides()
	})
}

// symbolsFor returns the allow-listed symbol table for one yaegi instance, with
// the symbols that need the instance's guard replaced.
func symbolsFor(g *guard) map[string]map[string]reflect.Value {
	loadStd()
	out := make(map[string]map[string]reflect.Value, len(stdTable))
	for k, v := range stdTable {
		out[k] = v
	}
	out["time/time"] = override(stdTable["time/time"], map[string]reflect.Value{
		"Sleep": reflect.ValueOf(g.sleep),
	})
	out["strings/strings"] = override(stdTable["strings/strings"], map[string]reflect.Value{
		"Repeat": reflect.ValueOf(func(s string, count int) string {
			g.checkBytes(int64(len(s)), int64(count), "strings.Repeat")
			return strings.Repeat(s, count)
		}),
	})
	out["strings/strings"]["Join"] = reflect.ValueOf(func(elems []string, sep string) string {
		total := int64(0)
		for _, e := range elems {
			total = g.addBytes(total, int64(len(e)), "strings.Join")
		}
		if len(elems) > 1 {
			g.checkSum(total, int64(len(sep)), int64(len(elems)-1), "strings.Join")
		}
		return strings.Join(elems, sep)
	})
	out["strings/strings"]["Replace"] = reflect.ValueOf(func(s, old, new string, n int) string {
		g.checkReplace(len(s), len(old), len(new), n, func() int { return strings.Count(s, old) }, func() int { return utf8.RuneCountInString(s) }, "strings.Replace")
		return strings.Replace(s, old, new, n)
	})
	out["strings/strings"]["ReplaceAll"] = reflect.ValueOf(func(s, old, new string) string {
		g.checkReplace(len(s), len(old), len(new), -1, func() int { return strings.Count(s, old) }, func() int { return utf8.RuneCountInString(s) }, "strings.ReplaceAll")
		return strings.ReplaceAll(s, old, new)
	})
	out["bytes/bytes"] = override(stdTable["bytes/bytes"], map[string]reflect.Value{
		"Repeat": reflect.ValueOf(func(b []byte, count int) []byte {
			g.checkBytes(int64(len(b)), int64(count), "bytes.Repeat")
			return bytes.Repeat(b, count)
		}),
		"Join": reflect.ValueOf(func(s [][]byte, sep []byte) []byte {
			total := int64(0)
			for _, e := range s {
				total = g.addBytes(total, int64(len(e)), "bytes.Join")
			}
			if len(s) > 1 {
				g.checkSum(total, int64(len(sep)), int64(len(s)-1), "bytes.Join")
			}
			return bytes.Join(s, sep)
		}),
		"Replace": reflect.ValueOf(func(s, old, new []byte, n int) []byte {
			g.checkReplace(len(s), len(old), len(new), n, func() int { return bytes.Count(s, old) }, func() int { return utf8.RuneCount(s) }, "bytes.Replace")
			return bytes.Replace(s, old, new, n)
		}),
		"ReplaceAll": reflect.ValueOf(func(s, old, new []byte) []byte {
			g.checkReplace(len(s), len(old), len(new), -1, func() int { return bytes.Count(s, old) }, func() int { return utf8.RuneCount(s) }, "bytes.ReplaceAll")
			return bytes.ReplaceAll(s, old, new)
		}),
	})
	if _, ok := stdTable["bufio/bufio"]; ok {
		out["bufio/bufio"] = override(stdTable["bufio/bufio"], map[string]reflect.Value{
			"Scanner": reflect.ValueOf((*safeScanner)(nil)),
			"NewScanner": reflect.ValueOf(func(r io.Reader) *safeScanner {
				return &safeScanner{s: bufio.NewScanner(r), maxAlloc: g.maxAlloc}
			}),
		})
	}
	return out
}

// maxFloatPrec bounds the precision strconv.FormatFloat and AppendFloat
// accept, as fmt does: strconv allocates any precision asked for.
const maxFloatPrec = 1_000_000

// maxTabWidth bounds tabwriter's minwidth, tabwidth and padding: the writer
// pads every cell to them, so a huge width grows output without end, in a
// host call that outlives the Eval's deadline.
const maxTabWidth = 1 << 16

// argPanic is the panic value of a wrapped host function refusing an
// argument that would allocate without bound.
type argPanic struct{ msg string }

func (a argPanic) Error() string { return a.msg }

func checkFloatPrec(prec int, what string) {
	if prec > maxFloatPrec {
		panic(argPanic{fmt.Sprintf("%s: precision %d is over the limit of %d digits", what, prec, maxFloatPrec)})
	}
}

func checkTabWidths(minwidth, tabwidth, padding int) {
	if minwidth > maxTabWidth || tabwidth > maxTabWidth || padding > maxTabWidth {
		panic(argPanic{fmt.Sprintf("tabwriter: minwidth %d, tabwidth %d, padding %d: each must be at most %d", minwidth, tabwidth, padding, maxTabWidth)})
	}
}

// safeTabWriter stands for text/tabwriter.Writer in snippets, so that Init
// checks its widths too. The real writer is unexported: a snippet cannot
// reach its unchecked Init.
type safeTabWriter struct{ w tabwriter.Writer }

// Init checks the widths, then initialises the writer (see tabwriter.Writer.Init).
func (t *safeTabWriter) Init(output io.Writer, minwidth, tabwidth, padding int, padchar byte, flags uint) *safeTabWriter {
	checkTabWidths(minwidth, tabwidth, padding)
	t.w.Init(output, minwidth, tabwidth, padding, padchar, flags)
	return t
}

// Write writes buf to the writer (see tabwriter.Writer.Write).
func (t *safeTabWriter) Write(buf []byte) (int, error) { return t.w.Write(buf) }

// Flush flushes the writer (see tabwriter.Writer.Flush).
func (t *safeTabWriter) Flush() error { return t.w.Flush() }

// safeScanner stands for bufio.Scanner in snippets, so that Buffer checks
// its max against Options.MaxAlloc.
type safeScanner struct {
	s        *bufio.Scanner
	maxAlloc int64
}

// Buffer checks max, then sets the scanner's buffer (see bufio.Scanner.Buffer).
func (s *safeScanner) Buffer(buf []byte, max int) {
	if limit := s.maxAlloc; int64(max) > limit && limit > 0 || limit <= 0 && max > 256<<20 {
		panic(allocPanic{what: "bufio.Scanner.Buffer", bytes: int64(max), max: limit})
	}
	s.s.Buffer(buf, max)
}

// Scan advances the scanner (see bufio.Scanner.Scan).
func (s *safeScanner) Scan() bool { return s.s.Scan() }

// Text returns the current token (see bufio.Scanner.Text).
func (s *safeScanner) Text() string { return s.s.Text() }

// Bytes returns the current token (see bufio.Scanner.Bytes).
func (s *safeScanner) Bytes() []byte { return s.s.Bytes() }

// Err returns the first error (see bufio.Scanner.Err).
func (s *safeScanner) Err() error { return s.s.Err() }

// Split sets the split function (see bufio.Scanner.Split).
func (s *safeScanner) Split(split bufio.SplitFunc) { s.s.Split(split) }

// staticOverrides are the replaced symbols that need no guard.
func staticOverrides() {
	if t, ok := stdTable["errors/errors"]; ok {
		// errors.As and errors.Is that know the interpreter's types and
		// error wrappers (see internal/yaegi/interp/errors.go).
		stdTable["errors/errors"] = override(t, map[string]reflect.Value{
			"As": reflect.ValueOf(yaegi.ErrorsAs),
			"Is": reflect.ValueOf(yaegi.ErrorsIs),
		})
	}
	if t, ok := stdTable["strconv/strconv"]; ok {
		stdTable["strconv/strconv"] = override(t, map[string]reflect.Value{
			"FormatFloat": reflect.ValueOf(func(f float64, fmt byte, prec, bitSize int) string {
				checkFloatPrec(prec, "strconv.FormatFloat")
				return strconv.FormatFloat(f, fmt, prec, bitSize)
			}),
			"AppendFloat": reflect.ValueOf(func(dst []byte, f float64, fmt byte, prec, bitSize int) []byte {
				checkFloatPrec(prec, "strconv.AppendFloat")
				return strconv.AppendFloat(dst, f, fmt, prec, bitSize)
			}),
		})
	}
	if t, ok := stdTable["text/tabwriter/tabwriter"]; ok {
		stdTable["text/tabwriter/tabwriter"] = override(t, map[string]reflect.Value{
			"Writer": reflect.ValueOf((*safeTabWriter)(nil)),
			"NewWriter": reflect.ValueOf(func(output io.Writer, minwidth, tabwidth, padding int, padchar byte, flags uint) *safeTabWriter {
				checkTabWidths(minwidth, tabwidth, padding)
				t := &safeTabWriter{}
				t.w.Init(output, minwidth, tabwidth, padding, padchar, flags)
				return t
			}),
		})
	}
}

func override(base, with map[string]reflect.Value) map[string]reflect.Value {
	m := make(map[string]reflect.Value, len(base))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range with {
		m[k] = v
	}
	return m
}

// packageRefusal returns why a package (by import path or name) is refused.
func packageRefusal(p string) string {
	if why, ok := refusedPackages[path.Base(p)]; ok {
		return why
	}
	return "it is not on the snippet allow-list"
}

// allowedList is the allow-list as one line, for refusal messages.
func allowedList() string { return strings.Join(AllowedPackages, ", ") }
