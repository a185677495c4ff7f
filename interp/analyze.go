package interp

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// Access is what a snippet does with the variables it is given, found
// statically (go/parser; reflect types where given) before it runs.
type Access struct {
	Reads   []string // variables whose value the snippet may read
	Writes  []string // variables the snippet assigns, or mutates through a field, element, pointer, &x, delete/clear/copy or a pointer-receiver method
	Creates []string // new top-level variables, in declaration order
	Imports []string // import paths the snippet uses, explicit or implied by a package name
}

// Analyze reports which of vars (name → type; a nil type means unknown) a
// snippet reads and writes, and which variables it creates, without running
// it. Names follow order of first appearance.
//
// The pass is syntactic, with reflect types used only for method calls:
//   - x = v, x := v at top level, var x = v at top level: write of x.
//   - x op= v, x++, x--: read and write of x.
//   - x.f = v, x[i] = v, *x = v, x.f.g[i]++: write of x (the variable or what
//     it points to changes).
//   - &x anywhere, delete(x, k), clear(x), copy(x, y), for k, v = range with
//     x as k or v: write of x.
//   - x.M(...) where M has a pointer receiver (known only when vars gives x's
//     type): write of x.
//   - any other mention: read.
//
// Passing x to a function that mutates it (sort.Ints(x)) counts as a read;
// callers that need certainty compare values before and after. Names shadowed
// by a local declaration are not the variable. Analyze returns the same
// [CompileError] and [RefusedError] Eval would return before running.
func Analyze(code string, vars map[string]reflect.Type) (Access, error) {
	names := make(map[string]bool, len(vars))
	for n := range vars {
		names[n] = true
	}
	p, err := analyze(NormalizeCode(code), names, nil, nil, vars, nil, nil)
	if err != nil {
		return Access{}, err
	}
	return p.access, nil
}

// program is an analysed snippet, ready to be handed to yaegi: each
// statement segment as an instrumented AST (parsed once, in the FileSet
// analyze was given), each declaration segment as text with edits.
type program struct {
	src      *source
	edits    edits // insertions into the declaration segments
	access   Access
	decls    [][]string // names declared by each decl segment, in order
	autoImps []importSpec
	bodies   []*ast.BlockStmt // per segment of src.segs: the instrumented statements; nil for a decl segment
	// arrayLens are the sizes of the array types whose length is not a
	// literal (with the arrays nested in them), by snippet line and
	// column of their '[', as the type check found them.
	arrayLens map[[2]int]int64
	// litIndexes are the values of the keys of composite literals that
	// are neither literals nor names (len(x): 1), by snippet line and
	// column, as the type check found them.
	litIndexes map[[2]int]int64
	// unsized: there is no type check (Analyze, which runs nothing) or it
	// failed (its error is returned), so an array length or literal index
	// the sandbox does not fold is not refused.
	unsized bool
}

const (
	stmtPrefix = "package p;func _(){\n"
	declPrefix = "package p;\n"
)

// known reports whether a name is defined for the snippet besides its
// variables (host functions, earlier declarations, imported packages).
type known func(name string) bool

// analyze parses a normalised snippet, applies the static refusals, computes
// the access sets and the instrumentation. Statement segments are parsed in
// fset (the interpreter's, so yaegi can compile their AST; a new one when
// nil) with the name yaegi gives its own sources.
//
// check, when not nil, type-checks the snippet with its statement
// segments as parsed here, before they are instrumented; its error is
// returned when the snippet has no other (a refusal or a syntax error
// comes first, as it did when the check ran after analyze).
func analyze(code string, vars map[string]bool, isKnown known, hostNames map[string]string, types map[string]reflect.Type, fset *token.FileSet, check func(*program, []*ast.File) error) (*program, error) {
	if isKnown == nil {
		isKnown = func(string) bool { return false }
	}
	src, err := splitSource(code)
	if err != nil {
		return nil, err
	}
	if fset == nil {
		fset = token.NewFileSet()
	}
	p := &program{src: src, bodies: make([]*ast.BlockStmt, len(src.segs))}
	a := &walker{p: p, stmtFset: fset, vars: vars, known: isKnown, hostNames: hostNames, types: types, topObj: map[*object]bool{}, consts: map[string]constant.Value{}, constPrev: map[*ast.ValueSpec][]ast.Expr{}, typeDecls: map[string]ast.Expr{}, osNames: map[string]bool{}}
	explicit := map[string]bool{}
	for _, im := range src.imports {
		if err := a.checkImport(im); err != nil {
			return nil, err
		}
		alias := im.Alias
		if alias == "" {
			alias = defaultName(im.Path)
		}
		if explicit[alias] && alias != "_" {
			// As in a Go file: import "time" twice, or math/rand and
			// crypto/rand.
			return nil, &CompileError{Line: im.Line, Column: im.Col, Source: src.lines[im.Line-1], Msg: alias + " redeclared in this block"}
		}
		explicit[alias] = true
		a.addList("imports", &p.access.Imports, im.Path)
	}
	a.imported = explicit
	if !vars["os"] {
		a.osNames["os"] = true // os used without an import
	}
	var parsed []*ast.File
	var checkErr error
	p.unsized = check == nil
	if check != nil {
		parsed = make([]*ast.File, len(src.segs))
		for i, seg := range src.segs {
			if seg.decl {
				continue
			}
			f, err := a.parseStmts(seg)
			if err != nil {
				return nil, err
			}
			parsed[i] = f
		}
		checkErr = check(p, parsed)
		p.unsized = checkErr != nil // the check's error comes instead
	}
	for i, seg := range src.segs {
		var f *ast.File
		if parsed != nil {
			f = parsed[i]
		}
		if err := a.segment(i, seg, f); err != nil {
			return nil, err
		}
	}
	if checkErr != nil {
		return nil, checkErr
	}
	p.edits.sort()
	return p, nil
}

// parseStmts parses a statement segment in the wrapper segment gives it.
func (a *walker) parseStmts(seg segment) (*ast.File, error) {
	a.fset, a.prefix = a.stmtFset, len(stmtPrefix)
	f, err := parser.ParseFile(a.fset, yaegi.DefaultSourceName, stmtPrefix+string(seg.text(a.p.src.body))+"\n}", 0)
	if err != nil {
		return nil, a.parseError(err)
	}
	return f, nil
}

type walker struct {
	p         *program
	vars      map[string]bool
	known     known
	types     map[string]reflect.Type
	imported  map[string]bool
	hostNames map[string]string
	osNames   map[string]bool // names the os package goes by
	seen      map[string]map[string]bool
	topObj    map[*object]bool
	consts    map[string]constant.Value     // top-level constants of earlier parts
	constPrev map[*ast.ValueSpec][]ast.Expr // implicit values of const specs
	typeDecls map[string]ast.Expr           // top-level types of earlier parts
	fset      *token.FileSet
	stmtFset  *token.FileSet // where statement segments are parsed
	prefix    int

	// AST edits of the statement segment being walked (astMode); in a
	// declaration segment the same edits are text insertions (p.edits).
	astMode bool
	replace map[ast.Stmt]ast.Stmt // the statement is replaced
	enters  []*ast.BlockStmt      // a function body gets the call-depth guard
	exprOps []func()              // expression rewrites, applied after the walks
	renames []*ast.Ident          // locals that get localSuffix, unless declared at top level
	marks   []mark                // line markers, by list (lists)
	stack   []ast.Node            // walk's path, reused
	scanner stmtScan              // scan's visitor, reused
	lists   []markedList          // statement lists with markers
}

// object is the parser's identifier resolution. It is deprecated because it
// cannot see through types (T{K: 0}); the analysis is syntactic by design
// and treats such keys conservatively (see Analyze).
//
//lint:ignore SA1019 syntactic scope resolution is what this pass needs
type object = ast.Object

// addList appends name to list once. A short list is searched (a map per
// kind was 15 of a warm snippet's ~500 allocations); from seenMin names
// on, a map of the list's names is kept.
func (a *walker) addList(kind string, list *[]string, name string) {
	if len(*list) < seenMin {
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
		return
	}
	m := a.seen[kind]
	if m == nil {
		if a.seen == nil {
			a.seen = map[string]map[string]bool{}
		}
		m = make(map[string]bool, 2*len(*list))
		for _, n := range *list {
			m[n] = true
		}
		a.seen[kind] = m
	}
	if !m[name] {
		m[name] = true
		*list = append(*list, name)
	}
}

// seenMin is the length from which addList keeps a map of a list's names.
const seenMin = 32

func (a *walker) read(name string)  { a.addList("r", &a.p.access.Reads, name) }
func (a *walker) write(name string) { a.addList("w", &a.p.access.Writes, name) }

func (a *walker) checkImport(im importSpec) error {
	if im.Alias == "." {
		return &RefusedError{What: fmt.Sprintf("dot import of %q", im.Path), Why: "it would hide names across snippets; import the package normally", Line: im.Line}
	}
	if im.Path == "os" {
		a.osNames[cmpOr(im.Alias, "os")] = true
		return nil
	}
	if !stdPathsAllowed(im.Path) && !a.known("pkg:"+im.Path) {
		return &RefusedError{What: fmt.Sprintf("import %q", im.Path), Why: packageRefusal(im.Path) + "; allowed packages: " + allowedList(), Line: im.Line}
	}
	return nil
}

// osRule is why only two variables of os are allowed.
const osRule = "of package os a snippet may use only os.Stdout and os.Stderr, its own output streams (for fmt.Fprintf, tabwriter.NewWriter, json.NewEncoder); it has no files, processes or environment"

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func stdPathsAllowed(p string) bool {
	loadStd()
	return stdPaths[p]
}

// defaultName is the package name of an import path.
func defaultName(p string) string {
	base := p[strings.LastIndex(p, "/")+1:]
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if i := strings.LastIndex(p, "/"); i > 0 {
			return defaultName(p[:i])
		}
	}
	return base
}

// pos converts a position in a parsed segment to a snippet line and column.
func (a *walker) pos(p token.Pos) (line, col int) {
	pp := a.fset.Position(p)
	return pp.Line - 1, pp.Column
}

func (a *walker) off(p token.Pos) int { return a.fset.Position(p).Offset - a.prefix }

func (a *walker) segment(i int, seg segment, parsed *ast.File) error {
	src := a.p.src
	prefix := stmtPrefix
	if seg.decl {
		prefix = declPrefix
	}
	text := prefix + string(seg.text(src.body))
	a.astMode = !seg.decl
	name := ""
	if seg.decl {
		a.fset = token.NewFileSet()
	} else {
		text += "\n}"
		a.fset = a.stmtFset
		name = yaegi.DefaultSourceName
		clear(a.replace)
		a.enters, a.exprOps, a.renames, a.lists, a.marks = a.enters[:0], a.exprOps[:0], a.renames[:0], a.lists[:0], a.marks[:0]
	}
	a.prefix = len(prefix)
	f := parsed
	if f == nil {
		var err error
		if f, err = parser.ParseFile(a.fset, name, text, 0); err != nil {
			return a.parseError(err)
		}
	}
	if seg.decl {
		a.collectConsts(f)
		var names []string
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv == nil && (name == "main" || name == "init") {
					l, _ := a.pos(d.Pos())
					return &RefusedError{What: "func " + name, Why: "a snippet is not a program; write its statements at top level instead of in func " + name, Line: l}
				}
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
		a.p.decls = append(a.p.decls, names)
		return a.walk(f)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	// The statements must be exactly the wrapper's body: a stray closing
	// brace would end the wrapper early and turn what follows into
	// file-level declarations (an init, say) that this pass never sees.
	if len(f.Decls) != 1 || a.fset.Position(body.Rbrace).Offset != len(text)-1 {
		line, col := a.pos(body.Rbrace)
		if line < 1 || line > len(a.p.src.lines) {
			line, col = 1, 1
		}
		return &CompileError{Line: line, Column: col, Source: a.p.src.lines[line-1], Msg: strayBraceMsg}
	}
	facts := make([]stmtFacts, len(body.List))
	for i, st := range body.List {
		var err error
		if facts[i], err = a.scan(st, len(a.p.access.Creates)); err != nil {
			return err
		}
		a.topLevel(st)
		if ds, ok := st.(*ast.DeclStmt); ok {
			if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				a.topConsts(gd)
			}
		}
	}
	a.track(&body.List)
	a.wrapMultiDefines(body.List, facts)
	if err := a.walk(f); err != nil {
		return err
	}
	a.applyAST(body)
	a.p.bodies[i] = body
	return nil
}

// scan is one walk over a top-level statement of a statement segment that
// gathers what the passes before the main walk need:
//   - top-level returns (outside function literals) become
//     `_byref.Return(n)`, which ends the snippet successfully (see
//     [guard.ret]); n is how many variables the snippet created before st,
//     so the ones declared after the return are not read back; a top-level
//     return with values is a compile error;
//   - the facts wrapMultiDefines needs;
//   - the locals to rename (see localSuffix; top-level declarations are
//     left out when the renames are applied);
//   - implicit values of const specs (constSpecs).
func (a *walker) scan(st ast.Stmt, created int) (stmtFacts, error) {
	v := &a.scanner
	*v = stmtScan{a: a, created: created, stack: v.stack[:0]}
	ast.Walk(v, st)
	return v.facts, v.err
}

// stmtScan is scan's visitor, kept in the walker so scanning a statement
// allocates nothing of its own.
type stmtScan struct {
	a       *walker
	created int
	facts   stmtFacts
	err     error
	inFunc  int          // function literals around the node
	fields  []*ast.Ident // field names of struct types seen
	stack   []ast.Node
}

func (v *stmtScan) Visit(n ast.Node) ast.Visitor {
	if n == nil {
		if _, ok := v.stack[len(v.stack)-1].(*ast.FuncLit); ok {
			v.inFunc--
		}
		v.stack = v.stack[:len(v.stack)-1]
		return nil
	}
	if v.err != nil {
		return nil
	}
	a := v.a
	switch n := n.(type) {
	case *ast.FuncLit:
		if v.inFunc == 0 && v.inDeclaringLoop() {
			v.facts.loopCapture = true
		}
		v.inFunc++
	case *ast.UnaryExpr:
		if n.Op == token.AND && v.inFunc == 0 && v.inDeclaringLoop() {
			v.facts.loopCapture = true
		}
	case *ast.DeferStmt:
		if v.inFunc == 0 {
			v.facts.deferTop = true
		}
	case *ast.ReturnStmt:
		if v.inFunc > 0 {
			break
		}
		if len(n.Results) > 0 {
			line, col := a.pos(n.Pos())
			v.err = &CompileError{Line: line, Column: col, Source: a.p.src.lines[line-1], Msg: returnValuesMsg}
			return nil
		}
		a.replaceStmt(n, &ast.ExprStmt{X: sandboxCall("Return", n.Pos(), intLit(v.created, n.Pos()))})
	case *ast.AssignStmt:
		if v.inFunc == 0 && n.Tok == token.DEFINE && len(n.Lhs) > 1 && len(n.Rhs) == 1 {
			v.facts.multiDefine = true
		}
	case *ast.ValueSpec:
		if v.inFunc == 0 && len(n.Names) > 1 && len(n.Values) == 1 {
			v.facts.multiDefine = true
		}
	case *ast.BranchStmt:
		if v.inFunc == 0 && n.Tok == token.GOTO {
			v.facts.gotos = true
		}
	case *ast.GenDecl:
		if n.Tok == token.CONST {
			a.constSpecs(n)
		}
	case *ast.StructType:
		// Field names resolve to ast.Var objects too; they are not
		// locals and keep their names.
		for _, f := range n.Fields.List {
			v.fields = append(v.fields, f.Names...)
		}
	case *ast.Ident:
		if n.Obj != nil && n.Obj.Kind == ast.Var && n.Name != "_" && !slices.Contains(v.fields, n) {
			a.renames = append(a.renames, n)
		}
	}
	v.stack = append(v.stack, n)
	return v
}

// inDeclaringLoop reports whether the node being visited is in a loop
// that declares its variables (for i := ...; ...; ... or for k, v := range).
func (v *stmtScan) inDeclaringLoop() bool {
	for _, n := range v.stack {
		switch n := n.(type) {
		case *ast.ForStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				return true
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				return true
			}
		}
	}
	return false
}

const strayBraceMsg = "unexpected }: this closing brace matches no opening brace, so the code after it is not part of the snippet's statements; remove it or balance the braces"

const returnValuesMsg = "a snippet's top-level return takes no values; assign what you want to keep to variables and write a bare return to stop the snippet there"

// wrapMultiDefines runs a top-level statement in a function literal,
// `func(){stmt}()`, when a block inside it declares several variables from
// one multi-value expression (a, err := f(); v, ok := m[k]; var a, b = f()).
// yaegi v0.16.1 compiles such a declaration only in global scope (the
// statement itself at top level) or in a function body; in a block of
// top-level code it drops the variables ("undefined: a"). The statement
// declares only block-local names, so running it in a closure changes
// nothing else. A top-level return in it has already become a call that
// ends the whole snippet (topReturns), so it keeps its meaning; a goto would
// not, so such statements are left alone, as is a labeled statement when
// top-level code has a goto (its label may be the target).
//
// A top-level loop that declares its variables and may capture them (a
// function literal or an address inside it) runs in a function literal
// too, unless it holds a top-level defer (which must run at the end of the
// snippet): the interpreter keeps a top-level loop's variables in its
// global frame, which closures read live, so the variables of each
// iteration (Go 1.22, internal/yaegi's loopvar.go) need a function's frame.
func (a *walker) wrapMultiDefines(list []ast.Stmt, facts []stmtFacts) {
	hasGoto := false
	for _, f := range facts {
		hasGoto = hasGoto || f.gotos
	}
	for i, st := range list {
		switch st.(type) {
		case *ast.AssignStmt, *ast.DeclStmt:
			continue // at top level yaegi declares globals itself
		}
		if f := facts[i]; !(f.multiDefine || f.loopCapture && !f.deferTop) || f.gotos {
			continue
		}
		if _, labeled := st.(*ast.LabeledStmt); labeled && hasGoto {
			continue
		}
		pos, end := st.Pos(), st.End()
		a.replaceStmt(st, &ast.ExprStmt{X: &ast.CallExpr{
			Fun: &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
				Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: end},
			},
			Lparen: end, Rparen: end,
		}})
	}
}

// stmtFacts is what wrapMultiDefines needs to know of a statement, outside
// function literals (see scan).
type stmtFacts struct{ multiDefine, loopCapture, deferTop, gotos bool }

// localSuffix is appended to every local variable of top-level code.
// yaegi v0.16.1 evaluates top-level statements in the global scope, and there
// a block-local `n := 5` (even inside a function literal) overwrites a global
// n instead of shadowing it; renamed locals cannot collide.
const localSuffix = "_byrefL"

// track inserts a line marker before every statement of a block that may
// panic (not of nested function literals, which are tracked on their own),
// so a panic can be placed on its line: yaegi's own trace names only the
// function. A statement that cannot panic needs none: the line is read only
// after a panic, and the statement that raised it has set it.
func (a *walker) track(list *[]ast.Stmt) {
	from := len(a.marks)
	for i, st := range *list {
		if mayPanic(st) {
			line, _ := a.pos(st.Pos())
			if a.astMode {
				a.marks = append(a.marks, mark{i, line})
			} else {
				a.p.edits.add(a.off(st.Pos()), "_byrefLine="+strconv.Itoa(line)+";")
			}
		}
	}
	if len(a.marks) > from {
		a.lists = append(a.lists, markedList{list, from, len(a.marks)})
	}
	for _, st := range *list {
		a.trackInner(st)
	}
}

// mayPanic reports whether running st might panic, conservatively and by
// syntax alone: only simple statements (assignments, declarations,
// increments, branches) built from identifiers, literals and operators
// that cannot fail are certain not to. A call, an index, a slice, a
// selector (it may go through a nil pointer), a dereference, a type
// assertion, a receive, division, a shift, a comparison (of interfaces
// holding uncomparable values), a function literal or a keyed composite
// literal (a map key may be unhashable) may.
func mayPanic(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		switch st.Tok {
		case token.QUO_ASSIGN, token.REM_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN:
			return true
		}
	case *ast.IncDecStmt, *ast.DeclStmt, *ast.BranchStmt, *ast.EmptyStmt:
	default:
		return true
	}
	var v panicScan
	ast.Walk(&v, st)
	return bool(v)
}

// panicScan is mayPanic's visitor: true once it has seen an expression
// that may panic.
type panicScan bool

func (v *panicScan) Visit(n ast.Node) ast.Visitor {
	if *v {
		return nil
	}
	switch n := n.(type) {
	case *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.SelectorExpr,
		*ast.StarExpr, *ast.TypeAssertExpr, *ast.FuncLit, *ast.KeyValueExpr:
		*v = true
	case *ast.UnaryExpr:
		*v = n.Op == token.ARROW
	case *ast.BinaryExpr:
		switch n.Op {
		case token.QUO, token.REM, token.SHL, token.SHR, token.EQL, token.NEQ:
			*v = true
		}
	}
	if *v {
		return nil
	}
	return v
}

func (a *walker) trackInner(st ast.Stmt) {
	switch st := st.(type) {
	case *ast.BlockStmt:
		a.track(&st.List)
	case *ast.IfStmt:
		a.track(&st.Body.List)
		if st.Else != nil {
			a.trackInner(st.Else)
		}
	case *ast.ForStmt:
		a.track(&st.Body.List)
	case *ast.RangeStmt:
		a.track(&st.Body.List)
	case *ast.SwitchStmt:
		a.trackClauses(st.Body)
	case *ast.TypeSwitchStmt:
		a.trackClauses(st.Body)
	case *ast.SelectStmt:
		a.trackClauses(st.Body)
	case *ast.CaseClause:
		a.track(&st.Body)
	case *ast.CommClause:
		a.track(&st.Body)
	case *ast.LabeledStmt:
		a.trackInner(st.Stmt)
	}
}

// trackClauses tracks the bodies of a switch or select; the clauses
// themselves are not statements and take no marker.
func (a *walker) trackClauses(body *ast.BlockStmt) {
	for _, c := range body.List {
		a.trackInner(c)
	}
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

func (a *walker) parseError(err error) error {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		e := list[0]
		line, col := e.Pos.Line-1, e.Pos.Column
		if line > len(a.p.src.lines) {
			line = len(a.p.src.lines)
			col = len(a.p.src.lines[line-1]) + 1
		}
		if line < 1 {
			line, col = 1, 1
		}
		return &CompileError{Line: line, Column: col, Source: a.p.src.lines[line-1], Msg: e.Msg}
	}
	return &CompileError{Msg: err.Error()}
}

// topLevel records variables a top-level statement declares: new ones are
// created, redeclared input variables are written.
func (a *walker) topLevel(st ast.Stmt) {
	declare := func(id *ast.Ident) {
		if id.Name == "_" {
			return
		}
		if id.Obj != nil {
			a.topObj[id.Obj] = true
		}
		if a.vars[id.Name] {
			a.write(id.Name)
			return
		}
		a.addList("c", &a.p.access.Creates, id.Name)
	}
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			fresh := false
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					declare(id)
					fresh = fresh || (id.Name != "_" && !a.vars[id.Name])
				}
			}
			if !fresh && a.astMode {
				// x := e of a run variable x writes x, as the type check
				// reads it (yaegi declared a zero x before evaluating e).
				st.Tok = token.ASSIGN
			}
		}
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, sp := range gd.Specs {
				for _, id := range sp.(*ast.ValueSpec).Names {
					declare(id)
				}
			}
		}
	}
}

// global reports whether an identifier names a snippet-level (global) name:
// not declared locally, or declared by a top-level statement.
func (a *walker) global(id *ast.Ident) bool {
	return id.Obj == nil || a.topObj[id.Obj]
}

// root returns the variable an lvalue expression is rooted at, and whether
// the expression is the bare identifier.
func root(e ast.Expr) (*ast.Ident, bool) {
	bare := true
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x, bare
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		default:
			return nil, false
		}
		bare = false
	}
}

func (a *walker) walk(f *ast.File) error {
	var err error
	pureWrite := map[*ast.Ident]bool{}
	refuse := func(n ast.Node, what, why string) {
		if err == nil {
			l, _ := a.pos(n.Pos())
			err = &RefusedError{What: what, Why: why, Line: l}
		}
	}
	writeRoot := func(e ast.Expr, pure bool) {
		if id, bare := root(e); id != nil && a.vars[id.Name] && a.global(id) {
			a.write(id.Name)
			if bare && pure {
				pureWrite[id] = true
			}
		}
	}
	// Reads: every other mention of a variable that refers to it, found in
	// the same walk. Inside the operand of a selector every identifier
	// counts (not the selected name); inside a key-value pair every
	// identifier but a key that is a field name (an unresolved identifier).
	const (
		readIdents = iota
		readOperand
		readPair
	)
	mode := readIdents
	var modeNode ast.Node // the selector or pair that set mode
	var sel, key *ast.Ident
	stack := a.stack[:0]
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			if stack[len(stack)-1] == modeNode {
				mode, modeNode = readIdents, nil
			}
			stack = stack[:len(stack)-1]
			return false
		}
		if err != nil {
			return false
		}
		switch mode {
		case readIdents:
			switch n := n.(type) {
			case *ast.SelectorExpr:
				mode, modeNode, sel = readOperand, n, n.Sel
			case *ast.KeyValueExpr:
				mode, modeNode = readPair, n
				key, _ = n.Key.(*ast.Ident)
			case *ast.Ident:
				a.readIdent(n, pureWrite)
			}
		case readOperand:
			if id, ok := n.(*ast.Ident); ok && id != sel && a.vars[id.Name] && a.global(id) && !pureWrite[id] {
				a.read(id.Name)
			}
		case readPair:
			if id, ok := n.(*ast.Ident); ok && (id != key || id.Obj != nil) {
				a.readIdent(id, pureWrite)
			}
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			refuse(n, "the go statement", "snippets cannot start goroutines (a panic on one would crash the host, and it could outlive the snippet); call the function directly")
		case *ast.Ident:
			if strings.HasPrefix(n.Name, "_byref") {
				refuse(n, "the name "+n.Name, "names starting with _byref are reserved for the sandbox; rename it")
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if n.Tok == token.DEFINE {
					continue // handled by topLevel; nested := declares locals
				}
				writeRoot(l, n.Tok == token.ASSIGN)
			}
		case *ast.IncDecStmt:
			writeRoot(n.X, false)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					writeRoot(n.Key, true)
				}
				if n.Value != nil {
					writeRoot(n.Value, true)
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				writeRoot(n.X, false)
			}
		case *ast.FuncLit:
			a.enter(n.Body)
			a.track(&n.Body.List)
		case *ast.FuncDecl:
			if n.Body != nil && n.Name.Name != "_" {
				a.enter(n.Body)
				a.track(&n.Body.List)
			}
		case *ast.ArrayType:
			a.checkArray(n, refuse)
		case *ast.CompositeLit:
			if n.Type != nil {
				a.checkLit(n, n.Type, refuse, 0)
			}
		case *ast.CallExpr:
			a.call(n, writeRoot, refuse)
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && !a.vars[x.Name] {
				if p, ok := stdByNameLookup(x.Name); ok {
					if why, removed := removedSymbols[p][n.Sel.Name]; removed {
						refuse(n, p+"."+n.Sel.Name, why)
					}
				}
			}
			if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && !a.vars[x.Name] && a.osNames[x.Name] && n.Sel.Name != "Stdout" && n.Sel.Name != "Stderr" {
				refuse(n, "os."+n.Sel.Name, osRule)
			}
			switch n.Sel.Name {
			case "Grow":
				refuse(n, "Grow", "it allocates a size given at once, beyond the sandbox's allocation check (method values and method expressions too); let append and Write grow the value")
			case "Perm":
				refuse(n, "Perm", "its argument is an unbounded allocation; build the slice and use Shuffle")
			}
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "main" && x.Obj == nil && !a.vars["main"] && a.hostNames["main"] == mainPath {
				// The host's package main, which the interpreter knows
				// as _byrefmain.
				if a.astMode {
					a.exprOps = append(a.exprOps, func() { x.Name = mainAlias })
				} else {
					a.p.edits.add(a.off(x.Pos()), "_byref")
				}
				if !a.known(mainAlias) && !a.imported[mainAlias] {
					a.imported[mainAlias] = true
					a.p.autoImps = append(a.p.autoImps, importSpec{Alias: mainAlias, Path: mainPath})
					a.addList("imports", &a.p.access.Imports, "main")
				}
			} else if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && !a.vars[x.Name] && !a.known(x.Name) && !a.imported[x.Name] {
				p, ok := a.hostNames[x.Name]
				if !ok {
					p, ok = stdByNameLookup(x.Name)
				}
				if !ok && x.Name == "os" {
					p, ok = "os", true
					if n.Sel.Name != "Stdout" && n.Sel.Name != "Stderr" {
						refuse(n, "os."+n.Sel.Name, osRule)
					}
				}
				if ok {
					a.imported[x.Name] = true
					a.p.autoImps = append(a.p.autoImps, importSpec{Alias: x.Name, Path: p})
					a.addList("imports", &a.p.access.Imports, p)
				} else if why, bad := refusedPackages[x.Name]; bad && types.Universe.Lookup(x.Name) == nil {
					refuse(n, "package "+x.Name, why)
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	a.stack = stack
	return err
}

func (a *walker) readIdent(n ast.Node, pureWrite map[*ast.Ident]bool) bool {
	if id, ok := n.(*ast.Ident); ok && a.vars[id.Name] && a.global(id) && !pureWrite[id] && !declaring(id) {
		a.read(id.Name)
	}
	return true
}

// declaring reports whether id is the name being declared by its own
// declaration (x in x := v or var x = v).
func declaring(id *ast.Ident) bool {
	if id.Obj == nil || id.Obj.Decl == nil {
		return false
	}
	switch d := id.Obj.Decl.(type) {
	case *ast.AssignStmt:
		return containsIdent(d.Lhs, id)
	case *ast.ValueSpec:
		for _, n := range d.Names {
			if n == id {
				return true
			}
		}
	}
	return false
}

func containsIdent(list []ast.Expr, id *ast.Ident) bool {
	for _, e := range list {
		if e == id {
			return true
		}
	}
	return false
}

// call handles builtins that write (delete, clear, copy), pointer-receiver
// method calls, the make guard and calls that are refused.
func (a *walker) call(n *ast.CallExpr, writeRoot func(ast.Expr, bool), refuse func(ast.Node, string, string)) {
	switch fn := n.Fun.(type) {
	case *ast.Ident:
		if fn.Obj != nil {
			return
		}
		switch fn.Name {
		case "delete", "clear", "copy":
			if len(n.Args) > 0 {
				writeRoot(n.Args[0], false)
			}
		case "make":
			if len(n.Args) >= 2 && !a.vars[fn.Name] {
				typ := n.Args[0]
				typText := ""
				if !a.astMode {
					typText = strings.ReplaceAll(a.p.src.body[a.off(typ.Pos()):a.off(typ.End())], "\n", ";")
				}
				for i := range n.Args[1:] {
					a.wrap(&n.Args[1+i], "_byref.Size(", ", ("+typText+")(nil))", func(x ast.Expr) ast.Expr {
						conv := &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: x.Pos(), X: typ, Rparen: x.Pos()}, Lparen: x.Pos(), Args: []ast.Expr{ident("nil", x.Pos())}, Rparen: x.Pos()}
						return sandboxCall("Size", x.Pos(), x, conv)
					})
				}
			}
		}
	case *ast.SelectorExpr:
		if id, ok := fn.X.(*ast.Ident); ok && a.vars[id.Name] && a.global(id) {
			if t := a.types[id.Name]; t != nil && pointerMethod(t, fn.Sel.Name) {
				writeRoot(id, false)
			}
		}
	}
}

// pointerMethod reports whether t (or *t's element) has method name only on
// its pointer type, that is, a pointer receiver.
func pointerMethod(t reflect.Type, name string) bool {
	base := t
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if _, ok := base.MethodByName(name); ok {
		return false
	}
	_, ok := reflect.PointerTo(base).MethodByName(name)
	return ok
}

// maxArrayLen bounds array types with constant lengths.
const maxArrayLen = 1 << 24

// constInt evaluates a constant integer expression of the snippet (see
// constVal); big values saturate at the largest int64.
func (a *walker) constInt(e ast.Expr) (int64, bool) {
	v, ok := a.constVal(e, -1, 0)
	if !ok {
		return 0, false
	}
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	if i, exact := constant.Int64Val(v); exact {
		return i, true
	}
	if constant.Sign(v) < 0 {
		return -1 << 63, true
	}
	return 1<<63 - 1, true
}

const (
	maxConstDepth = 64  // nesting of constant references and expressions
	maxConstBits  = 600 // larger integer constants are not evaluated
	maxConstStr   = 1 << 16
)

// notConstMsg is the refusal of an array length or literal index the
// sandbox cannot evaluate.
const notConstMsg = "the sandbox bounds array sizes and literal indexes and cannot evaluate this constant; write an integer literal or a constant declared in the snippet, or build a slice with make()"

// constVal folds a constant expression with go/constant: literals, the
// snippet's own constants (resolved through the parser's scopes, or by name
// for top-level constants of earlier parts of the snippet), constants of
// allowed packages (math.MaxInt32), iota, operators, conversions to basic
// types and len of a constant string. iota is the value of iota in the spec
// being evaluated, -1 outside one. Values too large to be useful are not
// evaluated, so a chain of constants cannot make the analysis allocate.
func (a *walker) constVal(e ast.Expr, iota int, depth int) (v constant.Value, ok bool) {
	if depth > maxConstDepth {
		return nil, false
	}
	defer func() {
		if recover() != nil { // go/constant panics on misuse; treat as unknown
			v, ok = nil, false
		}
		if ok && !constSmall(v) {
			v, ok = nil, false
		}
	}()
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		return v, v.Kind() != constant.Unknown
	case *ast.ParenExpr:
		return a.constVal(e.X, iota, depth+1)
	case *ast.Ident:
		return a.constIdent(e, iota, depth)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok || x.Obj != nil || a.vars[x.Name] {
			return nil, false
		}
		p, ok := stdByNameLookup(x.Name)
		if !ok {
			return nil, false
		}
		name := defaultName(p)
		if sv, ok := stdTable[p+"/"+name][e.Sel.Name]; ok && sv.IsValid() && sv.CanInterface() {
			if c, ok := sv.Interface().(constant.Value); ok {
				return c, true
			}
		}
		return nil, false
	case *ast.UnaryExpr:
		x, ok := a.constVal(e.X, iota, depth+1)
		if !ok {
			return nil, false
		}
		switch e.Op {
		case token.ADD, token.SUB, token.XOR, token.NOT:
			return constant.UnaryOp(e.Op, x, 0), true
		}
		return nil, false
	case *ast.BinaryExpr:
		x, ok := a.constVal(e.X, iota, depth+1)
		if !ok {
			return nil, false
		}
		y, ok := a.constVal(e.Y, iota, depth+1)
		if !ok {
			return nil, false
		}
		switch e.Op {
		case token.SHL, token.SHR:
			s, exact := constant.Uint64Val(constant.ToInt(y))
			if !exact || s > maxConstBits {
				return nil, false
			}
			x = constant.ToInt(x)
			if x.Kind() != constant.Int {
				return nil, false
			}
			return constant.Shift(x, e.Op, uint(s)), true
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.MakeBool(constant.Compare(x, e.Op, y)), true
		case token.QUO, token.REM:
			if y.Kind() != constant.Int && y.Kind() != constant.Float || constant.Sign(y) == 0 {
				return nil, false
			}
			if e.Op == token.QUO && x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y), true
			}
		}
		return constant.BinaryOp(x, e.Op, y), true
	case *ast.CallExpr:
		fn, ok := e.Fun.(*ast.Ident)
		if !ok || fn.Obj != nil || len(e.Args) == 0 || e.Ellipsis.IsValid() {
			return nil, false
		}
		if fn.Name == "min" || fn.Name == "max" {
			op := token.LSS
			if fn.Name == "max" {
				op = token.GTR
			}
			var best constant.Value
			for _, arg := range e.Args {
				x, ok := a.constVal(arg, iota, depth+1)
				if !ok || x.Kind() == constant.Bool || x.Kind() == constant.Complex || best != nil && (x.Kind() == constant.String) != (best.Kind() == constant.String) {
					return nil, false
				}
				if best == nil || constant.Compare(x, op, best) {
					best = x
				}
			}
			return best, true
		}
		if len(e.Args) != 1 {
			return nil, false
		}
		x, ok := a.constVal(e.Args[0], iota, depth+1)
		if !ok {
			return nil, false
		}
		if fn.Name == "len" {
			if x.Kind() != constant.String {
				return nil, false
			}
			return constant.MakeInt64(int64(len(constant.StringVal(x)))), true
		}
		if b, ok := types.Universe.Lookup(fn.Name).(*types.TypeName); ok {
			if bt, ok := b.Type().(*types.Basic); ok {
				switch info := bt.Info(); {
				case info&types.IsInteger != 0:
					x = constant.ToInt(x)
					return x, x.Kind() == constant.Int
				case info&types.IsNumeric != 0:
					return x, true
				}
			}
		}
	}
	return nil, false
}

// constSmall reports whether a folded value is small enough to keep
// folding: bounded integers, finite floats, short strings.
func constSmall(v constant.Value) bool {
	switch v.Kind() {
	case constant.Int:
		return constant.BitLen(v) <= maxConstBits
	case constant.Float:
		f, _ := constant.Float64Val(v)
		return !math.IsInf(f, 0) && !math.IsNaN(f)
	case constant.String:
		return len(constant.StringVal(v)) <= maxConstStr
	case constant.Bool:
		return true
	}
	return false
}

// constIdent evaluates a constant named by id.
func (a *walker) constIdent(id *ast.Ident, iota int, depth int) (constant.Value, bool) {
	if id.Obj == nil {
		switch id.Name {
		case "iota":
			if iota >= 0 {
				return constant.MakeInt64(int64(iota)), true
			}
			return nil, false
		case "true", "false":
			return constant.MakeBool(id.Name == "true"), true
		}
		v, ok := a.consts[id.Name]
		return v, ok
	}
	if id.Obj.Kind != ast.Con {
		return nil, false
	}
	spec, ok := id.Obj.Decl.(*ast.ValueSpec)
	if !ok {
		return nil, false
	}
	specIota, _ := id.Obj.Data.(int)
	values := spec.Values
	if len(values) == 0 {
		values = a.constPrev[spec]
	}
	for i, n := range spec.Names {
		if n.Name == id.Name && i < len(values) {
			return a.constVal(values[i], specIota, depth+1)
		}
	}
	return nil, false
}

// collectConsts records, for a declaration segment, the implicit values of
// const specs without any (const ( a = iota; b; c )) and the values of its
// top-level constants, for later parts that name them, and its top-level
// types.
func (a *walker) collectConsts(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			a.constSpecs(gd)
		}
		return true
	})
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.CONST:
			a.topConsts(gd)
		case token.TYPE:
			for _, sp := range gd.Specs {
				if ts := sp.(*ast.TypeSpec); ts.TypeParams == nil {
					a.typeDecls[ts.Name.Name] = ts.Type
				}
			}
		}
	}
}

// constSpecs records the implicit values of the const specs of gd that
// have none.
func (a *walker) constSpecs(gd *ast.GenDecl) {
	var prev []ast.Expr
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) > 0 {
			prev = vs.Values
		} else {
			a.constPrev[vs] = prev
		}
	}
}

// topConsts records the values of the top-level constants gd declares, for
// later parts of the snippet that name them.
func (a *walker) topConsts(gd *ast.GenDecl) {
	for _, sp := range gd.Specs {
		for _, n := range sp.(*ast.ValueSpec).Names {
			if v, ok := a.constIdent(n, -1, 0); ok {
				a.consts[n.Name] = v
			} else {
				delete(a.consts, n.Name)
			}
		}
	}
}

// checkArray refuses an array type whose length, or the product of the
// lengths of directly nested arrays ([n][m]T), is over maxArrayLen, or
// whose length cannot be evaluated.
func (a *walker) checkArray(n *ast.ArrayType, refuse func(ast.Node, string, string)) {
	total := int64(1)
	for t := n; t != nil && t.Len != nil; {
		if _, ok := t.Len.(*ast.Ellipsis); ok {
			break
		}
		v, ok := a.constInt(t.Len)
		if !ok {
			// A constant the sandbox does not fold (len of an array, a
			// constant declared after it): the type check's size.
			l, c := a.pos(t.Lbrack)
			size, ok := a.p.arrayLens[[2]int{l, c}]
			if !ok && a.p.unsized {
				return
			}
			if !ok {
				refuse(t, "an array length that is not a constant the sandbox can evaluate", notConstMsg)
				return
			}
			total = satMul(total, size)
			break
		}
		if v > 0 {
			total = satMul(total, v)
		}
		next, _ := t.Elt.(*ast.ArrayType)
		t = next
	}
	if total > maxArrayLen {
		refuse(n, fmt.Sprintf("an array of %d elements", total), fmt.Sprintf("arrays are limited to %d elements; use a slice built with make", maxArrayLen))
	}
}

// checkLit refuses keyed elements of array and slice literals whose index
// is over maxArrayLen ([]byte{1 << 40: 1} allocates the whole slice) or
// cannot be evaluated, in lit and in its nested literals with elided types.
func (a *walker) checkLit(lit *ast.CompositeLit, typ ast.Expr, refuse func(ast.Node, string, string), depth int) {
	if depth > maxConstDepth {
		return
	}
	t := typ
	for i := 0; i < maxConstDepth; i++ {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.Ident:
			if x.Obj != nil && x.Obj.Kind == ast.Typ {
				if ts, ok := x.Obj.Decl.(*ast.TypeSpec); ok {
					t = ts.Type
					continue
				}
			}
			if x.Obj == nil {
				if tt, ok := a.typeDecls[x.Name]; ok {
					t = tt
					continue
				}
			}
		}
		break
	}
	var keyType, elemType ast.Expr
	indexed := false
	switch t := t.(type) {
	case *ast.ArrayType:
		elemType = t.Elt
		indexed = true
	case *ast.MapType:
		keyType, elemType = t.Key, t.Value
	case *ast.SelectorExpr:
		// a type of an allowed package, such as sort.IntSlice
		if x, ok := t.X.(*ast.Ident); ok && x.Obj == nil && !a.vars[x.Name] {
			if p, ok := stdByNameLookup(x.Name); ok {
				if v, ok := stdTable[p+"/"+defaultName(p)][t.Sel.Name]; ok && v.IsValid() && v.Kind() == reflect.Pointer && v.IsNil() {
					k := v.Type().Elem().Kind()
					indexed = k == reflect.Slice || k == reflect.Array
				}
			}
		}
		if !indexed {
			return
		}
	default:
		return
	}
	if indexed {
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			v, ok := a.constInt(kv.Key)
			if !ok {
				// A constant the sandbox does not fold: the check's value.
				l, c := a.pos(kv.Key.Pos())
				if v, ok = a.p.litIndexes[[2]int{l, c}]; !ok && a.p.unsized {
					continue
				}
			}
			if !ok {
				refuse(kv, "a literal index that is not a constant the sandbox can evaluate", notConstMsg)
				return
			}
			if v > maxArrayLen {
				refuse(kv, fmt.Sprintf("a literal index of %d", v), fmt.Sprintf("array and slice literals are limited to %d elements; use a map, or a slice built with make", maxArrayLen))
				return
			}
		}
	}
	nested := func(e, typ ast.Expr) {
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if st, ok := typ.(*ast.StarExpr); ok {
				e, typ = u.X, st.X
			}
		}
		if cl, ok := e.(*ast.CompositeLit); ok && cl.Type == nil && typ != nil {
			a.checkLit(cl, typ, refuse, depth+1)
		}
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			nested(kv.Key, keyType)
			nested(kv.Value, elemType)
		} else {
			nested(el, elemType)
		}
	}
}

func stdByNameLookup(name string) (string, bool) {
	loadStd()
	p, ok := stdByName[name]
	return p, ok
}
