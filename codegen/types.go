package codegen

import (
	"fmt"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// imports allocates the names of a generated file's imports.
type imports struct {
	byPath map[string]string // path -> name
	names  *namer
}

// use returns the name under which path is imported, importing it under
// want (or a variant of it, on a collision) the first time.
func (im *imports) use(path, want string) string {
	if name, ok := im.byPath[path]; ok {
		return name
	}
	if want == "" {
		want = defaultName(path)
	}
	name := im.names.fresh(want)
	im.byPath[path] = name
	return name
}

// fixed records an import whose name is imposed (a snippet's).
func (im *imports) fixed(path, name string) {
	im.byPath[path] = name
	im.names.reserve(name)
}

// spec returns the import block's lines, standard library first. An
// import is named unless its name is the path's last element: the log
// records import paths, not package names.
func (im *imports) spec() string {
	var std, other []string
	for path, name := range im.byPath {
		line := strconv.Quote(path)
		if name != path[strings.LastIndexByte(path, '/')+1:] {
			line = name + " " + line
		}
		if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	sort.Slice(std, func(i, j int) bool { return unnamed(std[i]) < unnamed(std[j]) })
	sort.Slice(other, func(i, j int) bool { return unnamed(other[i]) < unnamed(other[j]) })
	var b strings.Builder
	b.WriteString("import (\n")
	for _, l := range std {
		b.WriteString("\t" + l + "\n")
	}
	if len(std) > 0 && len(other) > 0 {
		b.WriteString("\n")
	}
	for _, l := range other {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString(")\n")
	return b.String()
}

func unnamed(line string) string { return line[strings.IndexByte(line, '"'):] }

// defaultName is the package name an import path most likely binds: its
// last element, without a major-version suffix.
func defaultName(path string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if i := strings.LastIndex(path, "/"); i > 0 {
			return defaultName(path[:i])
		}
	}
	base = strings.TrimPrefix(base, "go-")
	base = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, base)
	if !token.IsIdentifier(base) {
		return "pkg"
	}
	return base
}

// namer hands out identifiers that collide with nothing in the file.
type namer struct{ taken map[string]bool }

func newNamer() *namer { return &namer{taken: map[string]bool{}} }

func (n *namer) reserve(names ...string) {
	for _, s := range names {
		n.taken[s] = true
	}
}

// fresh returns base, or base2, base3…, whichever is free, and takes it.
func (n *namer) fresh(base string) string {
	name := base
	for i := 2; n.taken[name] || token.IsKeyword(name) || predeclared[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	n.taken[name] = true
	return name
}

var predeclared = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64
		int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
		true false iota nil append cap clear close complex copy delete imag len make max min new panic
		print println real recover`) {
		predeclared[s] = true
	}
}

// typeExpr writes t as Go source, importing what it names.
func (g *gen) typeExpr(t *gotype) (string, error) {
	if t == nil {
		return "any", nil
	}
	switch t.kind {
	case kBasic:
		if t.name == "unsafe.Pointer" {
			return "", fmt.Errorf("type unsafe.Pointer cannot be named by replay code")
		}
		return t.name, nil
	case kError:
		return "error", nil
	case kAny:
		return "any", nil
	case kIface:
		return "", fmt.Errorf("an unnamed interface type with methods cannot be written yet")
	case kNamed:
		if t.path == "" {
			return "", fmt.Errorf("type %s has no import path in the log (a log written before byref recorded them); run it again to replay it", t.name)
		}
		if !token.IsIdentifier(t.name) || !validPath(t.path) {
			return "", fmt.Errorf("the recorded type %q is not a Go type name", t)
		}
		if t.path == "main" && g.inMain() {
			// The replay is a file of the user's own package main: it
			// names main's types as main does.
			g.usesMain = true
			return t.name, nil
		}
		if !token.IsExported(t.name) {
			return "", fmt.Errorf("type %s is not exported from %s, so replay code cannot name it", t.name, t.path)
		}
		if why := unimportable(t.path); why != "" {
			return "", fmt.Errorf("type %s cannot be named: %s", t, why)
		}
		return g.imp.use(t.path, "") + "." + t.name, nil
	case kPointer:
		el, err := g.typeExpr(t.elem)
		return "*" + el, err
	case kSlice:
		el, err := g.typeExpr(t.elem)
		return "[]" + el, err
	case kArray:
		el, err := g.typeExpr(t.elem)
		return "[" + strconv.Itoa(t.n) + "]" + el, err
	case kMap:
		k, err := g.typeExpr(t.key)
		if err != nil {
			return "", err
		}
		el, err := g.typeExpr(t.elem)
		return "map[" + k + "]" + el, err
	case kChan:
		el, err := g.typeExpr(t.elem)
		return t.dir + " " + el, err
	case kFunc:
		return g.funcType(t, false)
	case kStruct:
		var b strings.Builder
		b.WriteString("struct {")
		for i, f := range t.fields {
			ft, err := g.typeExpr(f.typ)
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(";")
			}
			if f.name != "" && !token.IsIdentifier(f.name) {
				return "", fmt.Errorf("the recorded field name %q is not a Go identifier", f.name)
			}
			if f.name == "" {
				b.WriteString(" " + ft)
			} else {
				b.WriteString(" " + f.name + " " + ft)
			}
			if f.tag != "" {
				b.WriteString(" " + strconv.Quote(f.tag))
			}
		}
		b.WriteString(" }")
		return b.String(), nil
	}
	return "", fmt.Errorf("type %s cannot be written", t)
}

// funcType writes a func type; dropCtx leaves out a leading context.
func (g *gen) funcType(t *gotype, dropCtx bool) (string, error) {
	var in, out []string
	for i, p := range t.in {
		if i == 0 && dropCtx && p.isContext() {
			continue
		}
		s, err := g.typeExpr(p)
		if err != nil {
			return "", err
		}
		if t.variadic && i == len(t.in)-1 {
			s = "..." + strings.TrimPrefix(s, "[]")
		}
		in = append(in, s)
	}
	for _, r := range t.out {
		s, err := g.typeExpr(r)
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return funcType(in, out), nil
}

// funcType writes a func type from its parameter and result types.
func funcType(in, out []string) string {
	s := "func(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		s += " " + out[0]
	default:
		s += " (" + strings.Join(out, ", ") + ")"
	}
	return s
}

// unimportable says why a package cannot be imported by a replay program,
// or "".
func unimportable(path string) string {
	switch {
	case path == "main":
		return "it is in package main (generate the replay as package main, codegen.Options.Package, and put it next to your main package)"
	case strings.HasSuffix(path, "_test") || strings.HasSuffix(path, ".test"):
		return "it is in a test package"
	case strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") || strings.HasPrefix(path, "internal/"):
		return "it is in an internal package"
	}
	return ""
}
