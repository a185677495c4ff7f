package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/byref/byref/action"
)

// typeRegistry resolves the type names of a stored log ("[]shop.Item") to
// reflect types, by the types the actions mention.
type typeRegistry map[string]reflect.Type

var basicTypes = map[string]reflect.Type{
	"bool": reflect.TypeFor[bool](), "string": reflect.TypeFor[string](),
	"int": reflect.TypeFor[int](), "int8": reflect.TypeFor[int8](), "int16": reflect.TypeFor[int16](),
	"int32": reflect.TypeFor[int32](), "int64": reflect.TypeFor[int64](),
	"uint": reflect.TypeFor[uint](), "uint8": reflect.TypeFor[uint8](), "uint16": reflect.TypeFor[uint16](),
	"uint32": reflect.TypeFor[uint32](), "uint64": reflect.TypeFor[uint64](), "uintptr": reflect.TypeFor[uintptr](),
	"float32": reflect.TypeFor[float32](), "float64": reflect.TypeFor[float64](),
	"complex64": reflect.TypeFor[complex64](), "complex128": reflect.TypeFor[complex128](),
	"byte": reflect.TypeFor[byte](), "rune": reflect.TypeFor[rune](),
	"error": reflect.TypeFor[error](), "any": reflect.TypeFor[any](),
}

func newTypeRegistry(actions *action.Set) typeRegistry {
	reg := typeRegistry{}
	for _, a := range actions.All() {
		reg.add(reflect.TypeOf(a.Func()))
	}
	return reg
}

// add records t and every type it is built from.
func (reg typeRegistry) add(t reflect.Type) {
	if t == nil {
		return
	}
	if _, seen := reg[t.String()]; seen {
		return
	}
	reg[t.String()] = t
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		reg.add(t.Elem())
	case reflect.Map:
		reg.add(t.Key())
		reg.add(t.Elem())
	case reflect.Func:
		for i := range t.NumIn() {
			reg.add(t.In(i))
		}
		for i := range t.NumOut() {
			reg.add(t.Out(i))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			reg.add(t.Field(i).Type)
		}
	}
}

// resolve returns the type named name, or nil.
func (reg typeRegistry) resolve(name string) reflect.Type {
	if t, ok := reg[name]; ok {
		return t
	}
	if t, ok := basicTypes[name]; ok {
		return t
	}
	e, err := parser.ParseExpr(name)
	if err != nil {
		return nil
	}
	t, _ := reg.build(e)
	return t
}

// build makes the reflect type of a type expression.
func (reg typeRegistry) build(e ast.Expr) (t reflect.Type, ok bool) {
	defer func() {
		if recover() != nil { // reflect refuses, e.g. an invalid map key
			t, ok = nil, false
		}
	}()
	switch e := e.(type) {
	case *ast.Ident:
		t, ok = basicTypes[e.Name]
		return t, ok
	case *ast.SelectorExpr:
		t, ok = reg[types(e)]
		return t, ok
	case *ast.ParenExpr:
		return reg.build(e.X)
	case *ast.StarExpr:
		if el, ok := reg.build(e.X); ok {
			return reflect.PointerTo(el), true
		}
	case *ast.ArrayType:
		el, ok := reg.build(e.Elt)
		if !ok {
			return nil, false
		}
		if e.Len == nil {
			return reflect.SliceOf(el), true
		}
		if lit, isLit := e.Len.(*ast.BasicLit); isLit {
			if n, err := strconv.Atoi(lit.Value); err == nil {
				return reflect.ArrayOf(n, el), true
			}
		}
	case *ast.MapType:
		k, ok1 := reg.build(e.Key)
		v, ok2 := reg.build(e.Value)
		if ok1 && ok2 {
			return reflect.MapOf(k, v), true
		}
	case *ast.InterfaceType:
		if len(e.Methods.List) == 0 {
			return basicTypes["any"], true
		}
	case *ast.StructType:
		var fields []reflect.StructField
		for _, f := range e.Fields.List {
			ft, ok := reg.build(f.Type)
			if !ok || len(f.Names) == 0 {
				return nil, false
			}
			tag := ""
			if f.Tag != nil {
				tag, _ = strconv.Unquote(f.Tag.Value)
			}
			for _, n := range f.Names {
				fields = append(fields, reflect.StructField{Name: n.Name, Type: ft, Tag: reflect.StructTag(tag)})
			}
		}
		return reflect.StructOf(fields), true
	}
	return nil, false
}

// types renders a selector expression as reflect's String does.
func types(e *ast.SelectorExpr) string {
	if x, ok := e.X.(*ast.Ident); ok {
		return x.Name + "." + e.Sel.Name
	}
	return ""
}

// imports allocates the names of a generated file's imports.
type imports struct {
	byPath map[string]string // path -> name
	names  *namer
	// pkgNames are the packages' real names, when known, to decide whether
	// an import needs an explicit name.
	pkgNames map[string]string
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
	if _, ok := im.pkgNames[path]; !ok {
		im.pkgNames[path] = want
	}
	return name
}

// fixed records an import whose name is imposed (a snippet's).
func (im *imports) fixed(path, name string) {
	im.byPath[path] = name
	im.pkgNames[path] = defaultName(path)
	im.names.reserve(name)
}

// spec returns the import block's lines, standard library first.
func (im *imports) spec() string {
	var std, other []string
	for path, name := range im.byPath {
		line := strconv.Quote(path)
		if name != im.pkgNames[path] || name != defaultName(path) {
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
func (g *gen) typeExpr(t reflect.Type) (string, error) {
	if t == nil {
		return "any", nil
	}
	if t.Name() != "" {
		if t.PkgPath() == "" {
			if t == basicTypes["any"] {
				return "any", nil
			}
			return t.Name(), nil
		}
		if strings.ContainsAny(t.Name(), "[") {
			return "", fmt.Errorf("type %s is an instance of a generic type, which replay code cannot name yet", t)
		}
		if t.PkgPath() == "main" && g.inMain() {
			// The replay is a file of the user's own package main: it
			// names main's types as main does.
			g.usesMain = true
			return t.Name(), nil
		}
		if !token.IsExported(t.Name()) {
			return "", fmt.Errorf("type %s is not exported from %s, so replay code cannot name it", t, t.PkgPath())
		}
		if why := unimportable(t.PkgPath()); why != "" {
			return "", fmt.Errorf("type %s cannot be named: %s", t, why)
		}
		pkg := t.String()
		pkg = pkg[:strings.LastIndexByte(pkg, '.')]
		if i := strings.LastIndexAny(pkg, "*[]) "); i >= 0 {
			pkg = pkg[i+1:]
		}
		return g.imp.use(t.PkgPath(), pkg) + "." + t.Name(), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		el, err := g.typeExpr(t.Elem())
		return "*" + el, err
	case reflect.Slice:
		el, err := g.typeExpr(t.Elem())
		return "[]" + el, err
	case reflect.Array:
		el, err := g.typeExpr(t.Elem())
		return "[" + strconv.Itoa(t.Len()) + "]" + el, err
	case reflect.Map:
		k, err := g.typeExpr(t.Key())
		if err != nil {
			return "", err
		}
		el, err := g.typeExpr(t.Elem())
		return "map[" + k + "]" + el, err
	case reflect.Chan:
		el, err := g.typeExpr(t.Elem())
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + el, err
		case reflect.SendDir:
			return "chan<- " + el, err
		}
		return "chan " + el, err
	case reflect.Func:
		return g.funcType(t, false)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any", nil
		}
		return "", fmt.Errorf("unnamed interface type %s cannot be written yet", t)
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("struct {")
		for i := range t.NumField() {
			f := t.Field(i)
			ft, err := g.typeExpr(f.Type)
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(";")
			}
			if f.Anonymous {
				b.WriteString(" " + ft)
			} else {
				b.WriteString(" " + f.Name + " " + ft)
			}
			if f.Tag != "" {
				b.WriteString(" " + strconv.Quote(string(f.Tag)))
			}
		}
		b.WriteString(" }")
		return b.String(), nil
	}
	return "", fmt.Errorf("type %s cannot be written", t)
}

// funcType writes a func type; dropCtx leaves out a leading context.
func (g *gen) funcType(t reflect.Type, dropCtx bool) (string, error) {
	var in, out []string
	for i := range t.NumIn() {
		if i == 0 && dropCtx && t.In(0) == contextType {
			continue
		}
		s, err := g.typeExpr(t.In(i))
		if err != nil {
			return "", err
		}
		in = append(in, s)
	}
	for i := range t.NumOut() {
		s, err := g.typeExpr(t.Out(i))
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	s := "func(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		s += " " + out[0]
	default:
		s += " (" + strings.Join(out, ", ") + ")"
	}
	return s, nil
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
