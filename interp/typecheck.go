package interp

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/byref/byref/interp/internal/stdsym"
	"github.com/byref/byref/variable"
)

// A snippet is type-checked with go/types before it runs, in the shape it
// runs in:
//
//   - one file per part of the snippet, each with line 1 holding the
//     package clause and the imports, so a snippet line L is line L+1 of
//     its file and columns are the snippet's;
//   - func and type declarations as they are, at package level;
//   - top-level statements as the body of a function, except the
//     declarations among them (x := ..., var x = ..., const), which are
//     package-level variables and constants, as they are in the
//     interpreter: later snippets and the snippet's own funcs see them;
//   - the run's variables and the actions as package-level variables of
//     their real types, and declarations of earlier snippets as files of
//     their own;
//   - the allowed packages' types from the compiler's export data
//     generated with the symbol table (interp/internal/stdsym/export), the
//     host's types built from reflection, and an os package of two
//     io.Writer variables, Stdout and Stderr.
//
// What go/types rejects is returned as a [CompileError] at the snippet's
// line and column, with go/types' message (the one `go build` prints).

// stdTypes imports the allowed packages from the embedded export data, once
// per process: imported packages are immutable and shared by every
// Interpreter.
var stdTypes struct {
	mu   sync.Mutex
	imp  types.Importer
	pkgs map[string]*types.Package
	os   *types.Package
}

// importStd returns the types of an allowed standard package (or io).
func importStd(path string) (*types.Package, error) {
	stdTypes.mu.Lock()
	defer stdTypes.mu.Unlock()
	if p, ok := stdTypes.pkgs[path]; ok {
		return p, nil
	}
	if stdTypes.imp == nil {
		stdTypes.pkgs = map[string]*types.Package{}
		stdTypes.imp = importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
			data, ok := stdsym.ExportData(path)
			if !ok {
				return nil, fmt.Errorf("no type information for package %q", path)
			}
			return io.NopCloser(strings.NewReader(string(data))), nil
		})
	}
	if _, ok := stdsym.ExportData(path); !ok {
		return nil, fmt.Errorf("no type information for package %q", path)
	}
	p, err := stdTypes.imp.Import(path)
	if err != nil {
		return nil, err
	}
	stdTypes.pkgs[path] = p
	return p, nil
}

// prefetchOnce starts loading the types of the packages most snippets use
// on another goroutine, when the first Interpreter is made, so the first
// snippet's check finds them ready or in progress (on one core less).
// Only fmt and strings: each package costs about 0.5 ms of CPU and 400 KB
// of garbage, and prefetching seven (strconv, sort, slices, errors and time
// too) competed with the first snippet on a busy machine (TestFirstSnippet,
// 15 fresh processes each: median 4.5 ms with seven, 3.3 ms with two); the
// others are imported when a snippet names them.
var prefetchOnce sync.Once

func prefetchTypes() {
	prefetchOnce.Do(func() {
		go func() {
			for _, p := range []string{"fmt", "strings"} {
				_, _ = importStd(p)
			}
		}()
	})
}

// osTypes is the os package a snippet sees: Stdout and Stderr, its own
// output streams, as io.Writers.
func osTypes() (*types.Package, error) {
	ioPkg, err := importStd("io")
	if err != nil {
		return nil, err
	}
	stdTypes.mu.Lock()
	defer stdTypes.mu.Unlock()
	if stdTypes.os == nil {
		p := types.NewPackage("os", "os")
		w := ioPkg.Scope().Lookup("Writer").Type()
		p.Scope().Insert(types.NewVar(token.NoPos, p, "Stdout", w))
		p.Scope().Insert(types.NewVar(token.NoPos, p, "Stderr", w))
		p.MarkComplete()
		stdTypes.os = p
	}
	return stdTypes.os, nil
}

// goVersion is the language version snippets are checked at: the Go byref
// is built with.
var goVersion = func() string {
	v := runtime.Version()
	if !strings.HasPrefix(v, "go1.") {
		return ""
	}
	parts := strings.SplitN(v, ".", 3)
	return parts[0] + "." + strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
}()

// typeChecker holds what one Interpreter's checks share: the host's types
// built from reflection, by reflect.Type and by package, and the parsed
// declarations of earlier snippets. Used under the Interpreter's lock.
type typeChecker struct {
	fset  *token.FileSet
	host  map[reflect.Type]types.Type
	pkgs  map[string]*types.Package // host packages by import path
	decls map[string]*ast.File      // earlier snippets' declarations, by source
	sizes types.Sizes
	last  checkMemo // the last snippet that passed, and what it passed against
	// lastDefs are the types of the top-level variables of the last
	// snippet checked successfully, in lastPkg; learn reads them.
	lastDefs map[string]types.Type
	lastPkg  *types.Package
	// varTypes are the types, as Go source, of the variables, by name,
	// whose types are the snippets' own (a []pair): yaegi hands them over
	// as reflect types without the name, so a later snippet's check
	// declares them in source, against the earlier snippets' declarations.
	varTypes map[string]carriedType
	// generics are the generic host types found in variables and
	// actions, which snippets cannot name: the name a snippet would
	// write without its type arguments (page.Page) to the type's name
	// (page.Page[page.Item]).
	generics map[string]string
}

// carriedType is a variable's type as Go source in a snippet, the imports
// it needs (path to name), and the reflect type the variable had when it
// was created (the type applies while the variable still has it).
type carriedType struct {
	expr    string
	imports map[string]string
	rtype   reflect.Type
}

// learn records the types of the variables a successful snippet created
// whose types involve the snippet's own declarations.
func (tc *typeChecker) learn(values map[string]reflect.Value, created []string) {
	for _, name := range created {
		t, ok := tc.lastDefs[name]
		v, okv := values[name]
		if !ok || !okv || !v.IsValid() {
			continue
		}
		own := false
		imports := map[string]string{}
		expr := types.TypeString(t, func(p *types.Package) string {
			if p == tc.lastPkg {
				own = true
				return ""
			}
			imports[p.Path()] = p.Name()
			return p.Name()
		})
		if own {
			tc.varTypes[name] = carriedType{expr, imports, v.Type()}
		} else {
			delete(tc.varTypes, name)
		}
	}
}

// checkMemo is a snippet that passed the check and everything it was
// checked against: the same snippet over the same environment passes
// again without being checked.
type checkMemo struct {
	code       string
	vars       []Var
	funcs      []Var
	imports    []checkImport
	decls      []string
	arrayLens  map[[2]int]int64 // the snippet's array sizes (program.arrayLens)
	litIndexes map[[2]int]int64 // and literal indexes (program.litIndexes)
}

// same reports whether in is the memo's snippet and environment.
func (m *checkMemo) same(in checkInput) bool {
	if m.code != in.prog.src.code || len(m.vars) != len(in.vars) || len(m.funcs) != len(in.funcs) ||
		!slices.Equal(m.imports, in.imports) || len(m.decls) != len(in.decls) {
		return false
	}
	for i, v := range in.vars {
		if m.vars[i].Name != v.Name || m.vars[i].Value.Type() != v.Value.Type() {
			return false
		}
	}
	for _, f := range m.funcs {
		g, ok := in.funcs[f.Name]
		if !ok || g.Type() != f.Value.Type() {
			return false
		}
	}
	for i, d := range in.decls {
		if m.decls[i] != d.orig {
			return false
		}
	}
	return true
}

// remember records a snippet that passed, reusing the memo's storage.
func (m *checkMemo) remember(in checkInput) {
	m.code = in.prog.src.code
	m.arrayLens, m.litIndexes = in.prog.arrayLens, in.prog.litIndexes
	m.vars = append(m.vars[:0], in.vars...)
	m.funcs = m.funcs[:0]
	for name, f := range in.funcs {
		m.funcs = append(m.funcs, Var{Name: name, Value: f})
	}
	m.imports = append(m.imports[:0], in.imports...)
	m.decls = m.decls[:0]
	for _, d := range in.decls {
		m.decls = append(m.decls, d.orig)
	}
}

func newTypeChecker() *typeChecker {
	return &typeChecker{
		fset:     token.NewFileSet(),
		host:     map[reflect.Type]types.Type{},
		pkgs:     map[string]*types.Package{},
		decls:    map[string]*ast.File{},
		sizes:    types.SizesFor("gc", runtime.GOARCH),
		lastDefs: map[string]types.Type{},
		varTypes: map[string]carriedType{},
	}
}

// reset takes a new yaegi instance's FileSet (analyze parses the
// statements there, and the check reads them), so no FileSet grows without
// bound; the host's types stay.
func (tc *typeChecker) reset(fset *token.FileSet) {
	tc.fset = fset
	clear(tc.decls)
	tc.last.code = ""
}

// addExports makes a host package of [Options.Symbols] importable by the
// check: its types, functions, variables and constants.
func (tc *typeChecker) addExports(ex Exports) {
	for key, syms := range ex {
		i := strings.LastIndex(key, "/")
		if i <= 0 {
			continue
		}
		pkg := tc.hostPackage(key[:i], key[i+1:])
		for name, v := range syms {
			if !v.IsValid() || pkg.Scope().Lookup(name) != nil {
				continue
			}
			switch {
			case v.Kind() == reflect.Pointer && v.IsNil():
				t := v.Type().Elem()
				if t.Name() == name && t.PkgPath() == key[:i] {
					tc.typeOf(t) // declares it in pkg
				} else {
					pkg.Scope().Insert(types.NewTypeName(token.NoPos, pkg, name, tc.typeOf(t)))
				}
			case v.Kind() == reflect.Func:
				pkg.Scope().Insert(types.NewFunc(token.NoPos, pkg, name, tc.signature(v.Type(), 0, nil)))
			default:
				if c, ok := v.Interface().(constant.Value); ok {
					pkg.Scope().Insert(types.NewConst(token.NoPos, pkg, name, types.Typ[untypedKind(c)], c))
					continue
				}
				pkg.Scope().Insert(types.NewVar(token.NoPos, pkg, name, tc.typeOf(v.Type())))
			}
		}
	}
}

// untypedKind is the untyped basic kind of a constant value.
func untypedKind(c constant.Value) types.BasicKind {
	switch c.Kind() {
	case constant.Bool:
		return types.UntypedBool
	case constant.String:
		return types.UntypedString
	case constant.Int:
		return types.UntypedInt
	case constant.Float:
		return types.UntypedFloat
	case constant.Complex:
		return types.UntypedComplex
	}
	return types.Invalid
}

// Import implements types.Importer for a snippet's imports.
func (tc *typeChecker) Import(path string) (*types.Package, error) {
	if path == "os" {
		return osTypes()
	}
	if p, ok := tc.pkgs[path]; ok {
		return p, nil
	}
	return importStd(path)
}

// checkImport is an import of the check's files.
type checkImport struct{ name, path string }

// withImports returns f with an import declaration of imports first (a
// shallow copy: the declarations are shared). The declaration has no
// position, so what go/types says of it (an unused import) is on no
// snippet line.
func withImports(f *ast.File, imports []checkImport) *ast.File {
	if len(imports) == 0 {
		return f
	}
	gd := &ast.GenDecl{Tok: token.IMPORT}
	for _, im := range imports {
		gd.Specs = append(gd.Specs, &ast.ImportSpec{Name: ast.NewIdent(im.name), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(im.path)}})
	}
	c := *f
	c.Decls = append([]ast.Decl{gd}, f.Decls...)
	return &c
}

// unresolvedQualifiers adds the names f uses as x in x.Sel that the parser
// did not resolve in f: the packages it may name.
func unresolvedQualifiers(f *ast.File, into map[string]bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := se.X.(*ast.Ident); ok && x.Obj == nil {
				into[x.Name] = true
			}
		}
		return true
	})
}

// declaredNames are the names a declaration segment declares: funcs,
// methods as T.M, and types.
func declaredNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				name = recvName(d.Recv.List[0].Type) + "." + name
			}
			names = append(names, name)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	return names
}

// checkInput is what a snippet is checked against.
type checkInput struct {
	prog *program
	// stmts are the statement segments as analyze parsed them, by segment
	// (nil for a declaration segment), in the check's FileSet; when nil,
	// check parses them itself.
	stmts []*ast.File
	// imports are the snippet's own and earlier snippets' imports;
	// resolve names the package a name used as a qualifier refers to,
	// when the snippet uses one without importing it.
	imports []checkImport
	resolve func(name string) (checkImport, bool)
	vars    []Var // run variables
	funcs   map[string]reflect.Value
	decls   []declRecord // earlier snippets' declarations still in force
	// defs, when not nil, receives the type of every variable the
	// snippet declares at top level (for the differential test, which
	// compiles snippets with those variables at package level).
	defs map[string]types.Type
}

// check type-checks a snippet; a nil error means go/types accepts it.
func (tc *typeChecker) check(in checkInput) error {
	if tc.last.same(in) {
		in.prog.arrayLens, in.prog.litIndexes = tc.last.arrayLens, tc.last.litIndexes
		return nil
	}
	err := tc.checkFiles(in)
	if err == nil {
		tc.last.remember(in)
	}
	return err
}

func (tc *typeChecker) checkFiles(in checkInput) error {
	src := in.prog.src
	var files []*ast.File
	var errs []types.Error
	snippetFile := map[*token.File]bool{}
	// Every file starts with "package main;" on line 1, so a snippet line
	// L is line L+1; the imports are added as nodes (see withImports).
	parse := func(text string, name string) (*ast.File, error) {
		f, err := parser.ParseFile(tc.fset, name, text, 0)
		if f != nil {
			snippetFile[tc.fset.File(f.Pos())] = true
		}
		return f, err
	}
	var declNames []string
	for i, seg := range src.segs {
		body := string(seg.text(src.body))
		if seg.decl {
			f, err := parse("package main;\n"+body, "snippet")
			if err != nil {
				return nil // analyze reports what does not parse
			}
			declNames = append(declNames, declaredNames(f)...)
			files = append(files, f)
			continue
		}
		if i < len(in.stmts) && in.stmts[i] != nil {
			// The statements as analyze parsed them (line 1 is its
			// wrapper's), in a function of the check's own.
			orig := in.stmts[i]
			fd, ok := orig.Decls[0].(*ast.FuncDecl)
			if len(orig.Decls) != 1 || !ok || fd.Body == nil {
				return nil // analyze reports the stray brace
			}
			top := &ast.FuncDecl{Name: &ast.Ident{NamePos: fd.Name.NamePos, Name: "_byrefTop" + strconv.Itoa(i)}, Type: fd.Type,
				Body: &ast.BlockStmt{Lbrace: fd.Body.Lbrace, List: slices.Clone(fd.Body.List), Rbrace: fd.Body.Rbrace}}
			f := &ast.File{Package: orig.Package, Name: &ast.Ident{NamePos: orig.Name.NamePos, Name: "main"}, Decls: []ast.Decl{top}, FileStart: orig.FileStart, FileEnd: orig.FileEnd}
			snippetFile[tc.fset.File(f.Pos())] = true
			files = append(files, f)
			continue
		}
		f, err := parse("package main;func _byrefTop"+strconv.Itoa(i)+"(){\n"+body+"\n}", "snippet")
		if err != nil {
			return nil
		}
		files = append(files, f)
	}
	h := &hoister{declared: map[string]bool{}, runVars: map[string]bool{}, hoisted: map[string]span{}}
	for _, v := range in.vars {
		h.runVars[v.Name] = true
	}
	for _, n := range declNames {
		if !strings.Contains(n, ".") {
			h.declared[n] = true
		}
	}
	// Qualifiers are read before hoisting, which moves declarations.
	qualifiers := map[string]bool{}
	for _, f := range files {
		unresolvedQualifiers(f, qualifiers)
	}
	for _, f := range files {
		h.file(f)
	}
	if h.errMsg != "" {
		return tc.compileError(src, h.errPos, h.errMsg)
	}

	// Declarations of earlier snippets, unless this one redeclares them.
	redecl := h.declared // every top-level name of this snippet
	for _, n := range declNames {
		redecl[n] = true
	}
	for _, d := range in.decls {
		hit := false
		for _, n := range d.names {
			typ, _, _ := strings.Cut(n, ".")
			hit = hit || redecl[n] || redecl[typ]
		}
		if hit || d.orig == "" {
			continue
		}
		f, ok := tc.decls[d.orig]
		if !ok {
			var err error
			f, err = parser.ParseFile(tc.fset, "earlier", "package main;\n"+d.orig, 0)
			if err != nil {
				continue
			}
			tc.decls[d.orig] = f
		}
		unresolvedQualifiers(f, qualifiers)
		files = append(files, f)
	}

	// The imports: the snippet's and earlier snippets' (in.imports), and
	// the packages its code names without importing them, except names
	// the snippet or the run declares.
	imports := slices.Clone(in.imports)
	named := map[string]bool{}
	for _, im := range imports {
		named[im.name] = true
	}
	for _, q := range slices.Sorted(maps.Keys(qualifiers)) {
		if named[q] || redecl[q] || h.runVars[q] || in.funcs[q].IsValid() || in.resolve == nil {
			continue
		}
		if im, ok := in.resolve(q); ok {
			named[q] = true
			imports = append(imports, im)
		}
	}
	for i, f := range files {
		files[i] = withImports(f, imports)
	}
	pkg := types.NewPackage("main", "main")
	scope := pkg.Scope()
	var carried strings.Builder // variables of snippet types, declared in source
	carriedImports := map[string]string{}
	for _, v := range in.vars {
		if h.varDecl[v.Name] {
			continue // the snippet declares it anew with var
		}
		if st, ok := tc.varTypes[v.Name]; ok && st.rtype == v.Value.Type() && !redecl[v.Name] {
			carried.WriteString("var " + v.Name + " " + st.expr + ";")
			for p, n := range st.imports {
				carriedImports[p] = n
			}
			continue
		}
		scope.Insert(types.NewVar(token.NoPos, pkg, v.Name, tc.typeOf(v.Value.Type())))
	}
	if carried.Len() > 0 {
		var b strings.Builder
		b.WriteString("package main;import(")
		for p, n := range carriedImports {
			b.WriteString(n + " " + strconv.Quote(p) + ";")
		}
		b.WriteString(")\n")
		b.WriteString(carried.String())
		if f, err := parser.ParseFile(tc.fset, "variables", b.String(), parser.SkipObjectResolution); err == nil {
			files = append(files, f)
		}
	}
	for name, f := range in.funcs {
		scope.Insert(types.NewVar(token.NoPos, pkg, name, tc.typeOf(f.Type())))
	}
	// Uses are recorded only when a name declared at top level appears
	// before its declaration ends (in the statements' text), to tell an
	// early use from a local of the same name.
	var info *types.Info
	if h.early(files) || in.defs != nil {
		info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	}
	// Array lengths that are not literals (a constant declared later,
	// len of an array) are read from the check, for the sandbox's bound
	// on array sizes (checkArray).
	var lengths []*ast.ArrayType
	var keys []ast.Expr // keys of literals that are neither a literal nor a name (len(x): 1)
	for _, f := range files {
		if !snippetFile[tc.fset.File(f.Pos())] {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ArrayType:
				if _, lit := n.Len.(*ast.BasicLit); n.Len != nil && !lit {
					lengths = append(lengths, n)
				}
			case *ast.KeyValueExpr:
				switch n.Key.(type) {
				case *ast.BasicLit, *ast.Ident:
				default:
					keys = append(keys, n.Key)
				}
			}
			return true
		})
	}
	if len(lengths) > 0 || len(keys) > 0 {
		if info == nil {
			info = &types.Info{}
		}
		info.Types = map[ast.Expr]types.TypeAndValue{}
	}
	conf := types.Config{
		GoVersion: goVersion,
		Importer:  tc,
		Sizes:     tc.sizes,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				errs = append(errs, te)
			}
		},
	}
	_ = types.NewChecker(&conf, tc.fset, pkg, info).Files(files) // errors come through conf.Error
	// A top-level variable is visible only after its declaration: uses
	// before (or in) it are undefined, and the initialization cycle
	// go/types sees in `x := f(x)` is that.
	var first *types.Error
	if info != nil {
		for id, obj := range info.Uses {
			if at, ok := h.hoisted[obj.Name()]; ok && obj.Pos() == at.pos && id.Pos() < at.end && id.Pos() != at.pos && h.inTop(id.Pos()) {
				if first == nil || id.Pos() < first.Pos {
					first = &types.Error{Fset: tc.fset, Pos: id.Pos(), Msg: "undefined: " + id.Name}
				}
			}
		}
	}
	if first == nil {
		// The first error by position; a soft one (declared and not
		// used) only when there is no other.
		for i := range errs {
			e := &errs[i]
			p := tc.fset.Position(e.Pos)
			if p.Line <= 1 || !snippetFile[tc.fset.File(e.Pos)] || ignoredTypeError(e.Msg) {
				continue // the wrapper's line, or an earlier snippet's declaration
			}
			if first == nil || (first.Soft && !e.Soft) || (first.Soft == e.Soft && e.Pos < first.Pos) {
				first = e
			}
		}
	}
	if first == nil {
		in.prog.arrayLens = arrayLens(tc.fset, info, lengths)
		in.prog.litIndexes = litIndexes(tc.fset, info, keys)
		// The types of the variables the snippet declares, for learn.
		clear(tc.lastDefs)
		for name := range h.hoisted {
			if obj, ok := scope.Lookup(name).(*types.Var); ok {
				tc.lastDefs[name] = obj.Type()
			}
		}
		tc.lastPkg = pkg
		if in.defs != nil {
			for id, obj := range info.Defs {
				if at, ok := h.hoisted[id.Name]; ok && at.pos == id.Pos() && obj != nil {
					in.defs[id.Name] = obj.Type()
				}
			}
		}
		return nil
	}
	msg := first.Msg
	if q, ok := strings.CutPrefix(msg, "undefined: "); ok && tc.generics[q] != "" {
		msg += fmt.Sprintf(" (%s is a generic type of the host, which a snippet cannot name; take the value from the variable that holds it, v := name, and name only the types of its fields and elements)", tc.generics[q])
	}
	return tc.compileError(src, first.Pos, msg)
}

// arrayLens returns the number of elements of each array type in lengths
// (its length times those of the arrays directly nested in it), by its
// snippet line and column, from the check's info.
func arrayLens(fset *token.FileSet, info *types.Info, lengths []*ast.ArrayType) map[[2]int]int64 {
	if len(lengths) == 0 {
		return nil
	}
	m := make(map[[2]int]int64, len(lengths))
	for _, at := range lengths {
		tv, ok := info.Types[at]
		if !ok {
			continue
		}
		total := int64(1)
		for arr, ok := tv.Type.(*types.Array); ok; arr, ok = arr.Elem().(*types.Array) {
			if n := arr.Len(); n > 0 {
				total = satMul(total, n)
			}
		}
		p := fset.Position(at.Lbrack)
		m[[2]int{p.Line - 1, p.Column}] = total
	}
	return m
}

// litIndexes returns the value of each integer constant among keys (of
// composite literals), by its snippet line and column, from the check's
// info.
func litIndexes(fset *token.FileSet, info *types.Info, keys []ast.Expr) map[[2]int]int64 {
	var m map[[2]int]int64
	for _, k := range keys {
		tv, ok := info.Types[k]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
			continue
		}
		v, exact := constant.Int64Val(tv.Value)
		if !exact {
			v = 1<<63 - 1
		}
		if m == nil {
			m = map[[2]int]int64{}
		}
		p := fset.Position(k.Pos())
		m[[2]int{p.Line - 1, p.Column}] = v
	}
	return m
}

// satMul is a*b for non-negative a and b, or the largest int64 when that
// overflows.
func satMul(a, b int64) int64 {
	if b > 0 && a > (1<<63-1)/b {
		return 1<<63 - 1
	}
	return a * b
}

// compileError is a CompileError at a position of a check file, whose line
// 1 is the wrapper's.
func (tc *typeChecker) compileError(src *source, pos token.Pos, msg string) error {
	p := tc.fset.Position(pos)
	line := p.Line - 1
	srcLine := ""
	if line >= 1 && line <= len(src.lines) {
		srcLine = src.lines[line-1]
	}
	return &CompileError{Line: line, Column: p.Column, Source: srcLine, Msg: msg}
}

// ignoredTypeError reports messages that are not errors of a snippet:
// packages persist across snippets, so an import need not be used.
func ignoredTypeError(msg string) bool {
	return strings.HasPrefix(msg, "\t") || strings.HasSuffix(msg, "imported and not used") || strings.Contains(msg, "imported as ") && strings.HasSuffix(msg, "and not used")
}

// hoister moves the declarations among top-level statements to package
// level, as the interpreter declares them.
type hoister struct {
	declared map[string]bool // names declared at top level so far
	runVars  map[string]bool // the run's variables
	varDecl  map[string]bool // run variables the snippet declares anew with var
	hoisted  map[string]span // hoisted variables: declaring identifier, end of declaration
	tops     [][2]token.Pos  // the top-level functions' bodies
	errPos   token.Pos       // an error found while hoisting
	errMsg   string
}

// span is where a hoisted variable is declared: its identifier, and the
// end of the statement that declares it (where its scope begins).
type span struct{ pos, end token.Pos }

// early reports whether an identifier in top-level statements names a
// hoisted variable before the end of its declaration.
func (h *hoister) early(files []*ast.File) bool {
	if len(h.hoisted) == 0 {
		return false
	}
	found := false
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fd.Name.Name, "_byrefTop") || found {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if at, ok := h.hoisted[id.Name]; ok && id.Pos() < at.end && id.Pos() != at.pos {
						found = true
					}
				}
				return !found
			})
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR || found {
				continue
			}
			ast.Inspect(gd, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if at, ok := h.hoisted[id.Name]; ok && id.Pos() < at.end && id.Pos() != at.pos {
						found = true
					}
				}
				return !found
			})
		}
	}
	return found
}

func (h *hoister) inTop(p token.Pos) bool {
	for _, r := range h.tops {
		if p >= r[0] && p < r[1] {
			return true
		}
	}
	return false
}

func (h *hoister) file(f *ast.File) {
	var top *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fd.Name.Name, "_byrefTop") && fd.Recv == nil {
			top = fd
		}
	}
	if top == nil || h.errMsg != "" {
		return
	}
	h.tops = append(h.tops, [2]token.Pos{top.Body.Lbrace, top.Body.Rbrace})
	kept := top.Body.List[:0:0]
	for _, st := range top.Body.List {
		switch st := st.(type) {
		case *ast.DeclStmt:
			gd := st.Decl.(*ast.GenDecl)
			if gd.Tok == token.VAR || gd.Tok == token.CONST {
				for _, sp := range gd.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						if id.Name == "_" {
							continue
						}
						if h.runVars[id.Name] && gd.Tok == token.VAR {
							if h.varDecl == nil {
								h.varDecl = map[string]bool{}
							}
							h.varDecl[id.Name] = true
						}
						h.declared[id.Name] = true
						if gd.Tok == token.VAR {
							h.hoisted[id.Name] = span{id.Pos(), sp.End()}
						}
					}
				}
				f.Decls = append(f.Decls, gd)
				continue
			}
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				if keep := h.define(f, st); keep != nil {
					kept = append(kept, keep)
				}
				continue
			}
		}
		kept = append(kept, st)
	}
	top.Body.List = kept
}

// define hoists a top-level x, y := ...: the new names become a
// package-level var; names already declared are assigned in place (a run
// variable keeps its type, as `x := v` writes the variable). It returns
// the statement that stays in the function, if any.
func (h *hoister) define(f *ast.File, st *ast.AssignStmt) ast.Stmt {
	var fresh, old bool
	earlier := false
	for _, e := range st.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		switch {
		case h.declared[id.Name]:
			old, earlier = true, true
		case h.runVars[id.Name]:
			old = true
		default:
			fresh = true
		}
	}
	if !fresh {
		if earlier {
			h.errPos, h.errMsg = st.TokPos, "no new variables on left side of :="
			return nil
		}
		return &ast.AssignStmt{Lhs: st.Lhs, TokPos: st.TokPos, Tok: token.ASSIGN, Rhs: st.Rhs}
	}
	blank := func(id *ast.Ident) *ast.Ident { return &ast.Ident{NamePos: id.NamePos, Name: "_"} }
	spec := &ast.ValueSpec{Values: st.Rhs}
	var assign []ast.Expr
	for _, e := range st.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok {
			// not an identifier: go/types reports it on the assignment
			return &ast.AssignStmt{Lhs: st.Lhs, TokPos: st.TokPos, Tok: token.ASSIGN, Rhs: st.Rhs}
		}
		if id.Name != "_" && !h.declared[id.Name] && !h.runVars[id.Name] {
			spec.Names = append(spec.Names, id)
			assign = append(assign, blank(id))
			h.declared[id.Name] = true
			h.hoisted[id.Name] = span{id.Pos(), st.End()}
		} else {
			spec.Names = append(spec.Names, blank(id))
			assign = append(assign, id)
		}
	}
	f.Decls = append(f.Decls, &ast.GenDecl{TokPos: st.Pos(), Tok: token.VAR, Specs: []ast.Spec{spec}})
	if old {
		return &ast.AssignStmt{Lhs: assign, TokPos: st.TokPos, Tok: token.ASSIGN, Rhs: st.Rhs}
	}
	return nil
}

// typeOf returns the go/types type of a host type: the allowed packages'
// own types by name, the host's named types built from reflection with
// their exported fields and methods (once per Interpreter).
func (tc *typeChecker) typeOf(t reflect.Type) types.Type {
	if tt, ok := tc.host[t]; ok {
		return tt
	}
	if t.Name() != "" {
		if t.PkgPath() == "" {
			if t == errorType {
				return types.Universe.Lookup("error").Type()
			}
			return tc.basic(t)
		}
		if p, err := importStd(t.PkgPath()); err == nil {
			if obj, ok := p.Scope().Lookup(t.Name()).(*types.TypeName); ok {
				tc.host[t] = obj.Type()
				return obj.Type()
			}
		}
		pkg := tc.hostPackage(t.PkgPath(), variable.PackageQualifier(t.PkgPath(), hostPkgName(t)))
		tn := types.NewTypeName(token.NoPos, pkg, t.Name(), nil)
		named := types.NewNamed(tn, nil, nil)
		tc.host[t] = named
		if pkg.Scope().Lookup(t.Name()) == nil {
			pkg.Scope().Insert(tn)
		}
		named.SetUnderlying(tc.underlying(t, pkg))
		if t.Kind() != reflect.Interface {
			pt := reflect.PointerTo(t)
			for i := 0; i < pt.NumMethod(); i++ {
				m := pt.Method(i)
				recv := types.Type(named)
				if _, ok := t.MethodByName(m.Name); !ok {
					recv = types.NewPointer(named)
				}
				sig := tc.signature(m.Type, 1, types.NewVar(token.NoPos, pkg, "", recv))
				named.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
			}
		}
		return named
	}
	tt := tc.underlying(t, nil)
	tc.host[t] = tt
	return tt
}

// hostPkgName is the package name of a named type, from its string.
func hostPkgName(t reflect.Type) string {
	s := t.String()
	if i := strings.IndexByte(s, '.'); i > 0 {
		return s[:i]
	}
	return defaultName(t.PkgPath())
}

func (tc *typeChecker) hostPackage(path, name string) *types.Package {
	p, ok := tc.pkgs[path]
	if !ok {
		p = types.NewPackage(path, name)
		p.MarkComplete()
		tc.pkgs[path] = p
	}
	return p
}

// basicKinds are the go/types kinds of reflect's basic kinds.
var basicKinds = [...]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

func (tc *typeChecker) basic(t reflect.Type) types.Type {
	if k := t.Kind(); int(k) < len(basicKinds) && basicKinds[k] != types.Invalid {
		return types.Typ[basicKinds[k]]
	}
	return tc.underlying(t, nil)
}

// underlying builds the structure of t; pkg owns its fields when t is named.
func (tc *typeChecker) underlying(t reflect.Type, pkg *types.Package) types.Type {
	switch t.Kind() {
	case reflect.Pointer:
		return types.NewPointer(tc.typeOf(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(tc.typeOf(t.Elem()))
	case reflect.Array:
		return types.NewArray(tc.typeOf(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(tc.typeOf(t.Key()), tc.typeOf(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, tc.typeOf(t.Elem()))
	case reflect.Func:
		return tc.signature(t, 0, nil)
	case reflect.Struct:
		fields := make([]*types.Var, t.NumField())
		tags := make([]string, t.NumField())
		for i := range fields {
			f := t.Field(i)
			fp := pkg
			if f.PkgPath != "" {
				fp = tc.hostPackage(f.PkgPath, defaultName(f.PkgPath))
				if pkg != nil && pkg.Path() == f.PkgPath {
					fp = pkg
				}
			}
			fields[i] = types.NewField(token.NoPos, fp, f.Name, tc.typeOf(f.Type), f.Anonymous)
			tags[i] = string(f.Tag)
		}
		return types.NewStruct(fields, tags)
	case reflect.Interface:
		var ms []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			mp := pkg
			if m.PkgPath != "" {
				mp = tc.hostPackage(m.PkgPath, defaultName(m.PkgPath))
			}
			ms = append(ms, types.NewFunc(token.NoPos, mp, m.Name, tc.signature(m.Type, 0, nil)))
		}
		return types.NewInterfaceType(ms, nil).Complete()
	}
	return tc.basic(t)
}

// signature converts a func type, skipping its first skip parameters (the
// receiver of a method value's type).
func (tc *typeChecker) signature(t reflect.Type, skip int, recv *types.Var) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", tc.typeOf(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", tc.typeOf(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}
