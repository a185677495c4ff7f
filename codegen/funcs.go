package codegen

import (
	"go/token"
	"strconv"
	"strings"
)

// funcRef is where an action's function lives.
type funcRef struct {
	// Path and Name locate a package-level function callable by import
	// path; both are "" otherwise.
	Path, Name string
	// Symbol is the function's symbol name as the Go runtime reports it.
	Symbol string
	// Why says why the function cannot be called by import path (a
	// closure, a method, an unexported or unimportable function); "" when
	// it can.
	Why string
	// MainName is the name of a top-level function of package main, which
	// a replay in package main calls by that name; "" otherwise.
	MainName string
}

// inPackage returns ref as a replay in package main calls it: a function
// of package main by its bare name (Path ""), reporting whether it did so.
func (ref funcRef) inPackage(inMain bool) (funcRef, bool) {
	if !inMain || ref.MainName == "" {
		return ref, false
	}
	return funcRef{Name: ref.MainName, Symbol: ref.Symbol}, true
}

// callee is how generated code calls the function: pkg.Name, or Name for
// one of package main.
func (g *gen) callee(ref funcRef) string {
	if ref.Path == "" {
		return ref.Name
	}
	return g.imp.use(ref.Path, "") + "." + ref.Name
}

// locate finds a function's package-level name from its symbol, as the
// Go runtime names it (run.GoAction.Func).
//
// Symbol names have the shape "path/to/pkg.Func", with a dot in the last
// path element escaped as %2e. A closure is "pkg.Outer.func1" (or
// "pkg.glob..func1" for a package-level func literal), a method value
// "pkg.T.M-fm" or "pkg.(*T).M-fm", a generic instance "pkg.F[...]".
func locate(sym string) funcRef {
	if sym == "" {
		return funcRef{Why: "the log does not name its function"}
	}
	ref := funcRef{Symbol: sym}
	slash := strings.LastIndexByte(sym, '/')
	dot := strings.IndexByte(sym[slash+1:], '.')
	if dot < 0 {
		ref.Why = "its symbol " + sym + " has no package"
		return ref
	}
	path := strings.ReplaceAll(sym[:slash+1+dot], "%2e", ".")
	rest := sym[slash+1+dot+1:]
	if !validPath(path) {
		ref.Why = "its symbol " + strconv.Quote(sym) + " does not name a Go package"
		return ref
	}
	switch {
	case strings.HasSuffix(rest, "-fm") || strings.HasPrefix(rest, "("):
		ref.Why = "it is a method value (" + shortSym(sym) + ")"
	case strings.Contains(rest, "["):
		ref.Why = "it is an instance of a generic function (" + shortSym(sym) + ")"
	case strings.Contains(rest, ".func") || strings.Contains(rest, "glob."):
		ref.Why = "it is a closure (" + shortSym(sym) + ")"
	case strings.Contains(rest, "."):
		ref.Why = "it is a method (" + shortSym(sym) + ")"
	case !token.IsIdentifier(rest):
		ref.Why = "its symbol " + strconv.Quote(sym) + " does not name a Go function"
	case path == "main":
		ref.Why, ref.MainName = "it is in package main ("+shortSym(sym)+")", rest
	case !token.IsExported(rest):
		ref.Why = "it is not exported (" + shortSym(sym) + ")"
	default:
		if why := unimportable(path); why != "" {
			ref.Why = why + " (" + shortSym(sym) + ")"
			return ref
		}
		ref.Path, ref.Name = path, rest
	}
	return ref
}

// shortSym drops the import path's directories from a symbol.
func shortSym(sym string) string { return sym[strings.LastIndexByte(sym, '/')+1:] }

// validPath reports whether path can be an import path: the log is not
// trusted, and paths end up in code.
func validPath(path string) bool {
	if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "..") || strings.Contains(path, "//") {
		return false
	}
	for _, r := range path {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~+-/", r)) {
			return false
		}
	}
	return true
}
