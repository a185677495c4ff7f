package interp

import (
	"bytes"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/traefik/yaegi/stdlib"
)

// AllowedPackages lists the standard packages a snippet may import, by import
// path, in the order doc.go documents them. Everything else in the standard
// library is refused with a [RefusedError]. Host packages registered through
// [Options.Symbols] are importable in addition.
var AllowedPackages = []string{
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

// loadStd filters yaegi's stdlib.Symbols down to the allow-list once per process.
func loadStd() {
	stdOnce.Do(func() {
		stdTable = map[string]map[string]reflect.Value{}
		stdByName = map[string]string{}
		stdPaths = map[string]bool{}
		keys := make([]string, 0, len(stdlib.Symbols))
		for k := range stdlib.Symbols {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, p := range AllowedPackages {
			name := path.Base(p)
			if p == "math/rand/v2" {
				name = "rand"
			}
			syms, ok := stdlib.Symbols[p+"/"+name]
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
		if mt, ok := stdlib.Symbols["."]; ok {
			stdTable["."] = mt
		}
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
	out["bytes/bytes"] = override(stdTable["bytes/bytes"], map[string]reflect.Value{
		"Repeat": reflect.ValueOf(func(b []byte, count int) []byte {
			g.checkBytes(int64(len(b)), int64(count), "bytes.Repeat")
			return bytes.Repeat(b, count)
		}),
	})
	return out
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
