package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
)

// snippetImport is one import a snippet needs.
type snippetImport struct {
	Name, Path string
}

// parsedSnippet is a snippet taken apart for inlining: its imports go to the
// file's import block, its func and type declarations to file level, and
// its statements into Replay.
type parsedSnippet struct {
	imports []snippetImport
	decls   []string // func and type declarations, as written
	// stmts is the statement text; body its parse, in a file whose first
	// len(stmtPrefix) bytes are not the snippet's.
	stmts string
	fset  *token.FileSet
	body  *ast.BlockStmt
	// idents are every identifier the snippet uses; defined are the names
	// its top-level statements declare.
	idents  map[string]bool
	defined []string
	// declNames are the names of its file-level declarations.
	declNames []string
	// qualifiers are the names the snippet uses as package qualifiers
	// (x in x.Sel, declared nowhere in the snippet).
	qualifiers map[string]bool
	// declFree are, per declaration, the names it uses that it does not
	// declare (other than qualifiers).
	declFree []declFree
}

// declFree is a declaration's name and the free names it uses.
type declFree struct {
	name string
	free []string
}

const stmtPrefix = "package p\n\nfunc _() {\n"

// parseSnippet splits and parses a snippet's code; vars are the variables'
// types at the point it ran, for finding packages it uses without importing.
// The split is the interpreter's own ([interp.Split]).
// own is the package the code goes into, "main" for a replay of package
// main: the snippet wrote its types qualified (main.Ticket, as the prompt
// shows them), the file names them bare (Ticket). "" keeps every
// qualifier.
func parseSnippet(code string, vars map[string]reflect.Type, actions map[string]run.GoAction, own string) (*parsedSnippet, error) {
	parts := interp.Split(code)
	p := &parsedSnippet{idents: map[string]bool{}, qualifiers: map[string]bool{}}
	for _, im := range parts.Imports {
		p.imports = append(p.imports, snippetImport{Name: im.Name, Path: im.Path})
	}
	p.splitDecls(parts, vars, actions)
	if own != "" {
		p.stmts = unqualify(stmtPrefix, p.stmts, own)
		for i, d := range p.decls {
			p.decls[i] = unqualify("package p\n", d, own)
		}
	}
	if err := p.parseBody(); err != nil {
		return nil, err
	}
	if err := p.parseDecls(); err != nil {
		return nil, err
	}
	p.addImplicitImports(code, vars)
	p.keepUsedImports()
	return p, nil
}

// unqualify removes the qualifier pkg from the selectors of src (pkg.Name
// becomes Name) where pkg is declared nowhere in src; prefix makes src a
// file that parses (it is not src's). Code that does not parse is left as
// it is, for the parse that follows to report.
func unqualify(prefix, src, pkg string) string {
	suffix := ""
	if prefix == stmtPrefix {
		suffix = "\n}\n"
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", prefix+src+suffix, 0)
	if err != nil {
		return src
	}
	var edits []edit
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := se.X.(*ast.Ident); ok && x.Name == pkg && x.Obj == nil {
				at := int(x.Pos()) - int(f.FileStart) - len(prefix)
				edits = append(edits, edit{at, at + len(pkg) + 1, ""})
			}
		}
		return true
	})
	return applyEdits(src, edits)
}

// see records the identifiers of n, and the package-like qualifiers of its
// selectors (x.Sel with x unresolved); it is an ast.Inspect visitor.
func (p *parsedSnippet) see(n ast.Node) bool {
	if id, ok := n.(*ast.Ident); ok {
		p.idents[id.Name] = true
	}
	if se, ok := n.(*ast.SelectorExpr); ok {
		if x, ok := se.X.(*ast.Ident); ok && x.Obj == nil {
			p.qualifiers[x.Name] = true
		}
	}
	return true
}

// splitDecls sets the snippet's statements (p.stmts) and its file-level
// declarations (p.decls). A func declaration that uses the run's
// variables, the actions or the snippet's own top-level variables cannot
// go to file level (they are locals of Replay): it stays where it is, as a
// func value.
func (p *parsedSnippet) splitDecls(parts interp.Parts, vars map[string]reflect.Type, actions map[string]run.GoAction) {
	stmts := []byte(parts.Body)
	for _, d := range parts.Decls {
		for i := d.Start; i < d.End; i++ {
			if stmts[i] != '\n' {
				stmts[i] = ' '
			}
		}
	}
	locals := map[string]bool{}
	for n := range vars {
		locals[n] = true
	}
	for n := range actions {
		locals[n] = true
	}
	for _, n := range definedNames(string(stmts)) {
		locals[n] = true
	}
	var text strings.Builder
	last := 0
	for _, d := range parts.Decls {
		decl := parts.Body[d.Start:d.End]
		if closure, ok := funcValue(decl, locals); ok {
			text.Write(stmts[last:d.Start])
			text.WriteString(closure)
			last = d.End
			continue
		}
		p.decls = append(p.decls, decl)
	}
	text.Write(stmts[last:])
	p.stmts = text.String()
}

// parseBody parses the statements as the body of Replay's wrapper (p.body),
// and records the names they use and declare at top level.
func (p *parsedSnippet) parseBody() error {
	p.fset = token.NewFileSet()
	f, err := parser.ParseFile(p.fset, "", stmtPrefix+p.stmts+"\n}\n", parser.ParseComments)
	if err != nil {
		return fmt.Errorf("the snippet does not parse as Go statements: %w", err)
	}
	// The statements are pasted into Replay as text: they must be exactly
	// the wrapper's body. A stray closing brace would end the wrapper early
	// and make what follows file-level code (an init, say).
	if len(f.Decls) != 1 {
		return fmt.Errorf("the snippet does not parse as Go statements: a closing brace at its top level matches no opening brace")
	}
	p.body = f.Decls[0].(*ast.FuncDecl).Body
	if want := len(stmtPrefix) + len(p.stmts) + 1; p.fset.Position(p.body.Rbrace).Offset != want {
		return fmt.Errorf("the snippet does not parse as Go statements: a closing brace at its top level matches no opening brace")
	}
	ast.Inspect(p.body, p.see)
	for _, st := range p.body.List {
		p.defined = append(p.defined, topLevelNames(st)...)
	}
	return nil
}

// parseDecls checks the file-level declarations: each is pasted at file
// level as text, so it must parse on its own as exactly one func or type
// declaration, and not be an init or main, which the interpreter refuses
// too. It records the names each uses, leaves free and declares.
func (p *parsedSnippet) parseDecls() error {
	for _, decl := range p.decls {
		df, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+decl, 0)
		if err != nil {
			return fmt.Errorf("the snippet's declarations do not parse: %w", err)
		}
		if len(df.Decls) != 1 {
			return fmt.Errorf("the snippet's declaration %q is not one func or type declaration", firstLine(decl))
		}
		ast.Inspect(df, p.see)
		free := declFree{name: firstLine(decl)}
		for _, id := range df.Unresolved {
			free.free = append(free.free, id.Name)
		}
		switch d := df.Decls[0].(type) {
		case *ast.FuncDecl:
			free.name = d.Name.Name
			if d.Recv == nil && (d.Name.Name == "init" || d.Name.Name == "main") {
				return fmt.Errorf("the snippet declares func %s, which a snippet may not (the interpreter refuses it)", d.Name.Name)
			}
			if d.Recv == nil {
				p.declNames = append(p.declNames, d.Name.Name)
			}
		case *ast.GenDecl:
			if ts, ok := d.Specs[0].(*ast.TypeSpec); ok {
				free.name = ts.Name.Name
			}
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					p.declNames = append(p.declNames, ts.Name.Name)
				}
			}
		}
		p.declFree = append(p.declFree, free)
	}
	return nil
}

// addImplicitImports adds the packages used without an import: the
// interpreter imports them by name; the Go file needs them spelled out.
func (p *parsedSnippet) addImplicitImports(code string, vars map[string]reflect.Type) {
	explicit := map[string]bool{}
	for _, im := range p.imports {
		explicit[im.Path] = true
	}
	if access, err := interp.Analyze(code, vars); err == nil {
		for _, path := range access.Imports {
			if !explicit[path] {
				p.imports = append(p.imports, snippetImport{Path: path})
			}
		}
	}
}

// keepUsedImports keeps the imports the code uses: Go refuses unused ones.
func (p *parsedSnippet) keepUsedImports() {
	kept := p.imports[:0]
	for _, im := range p.imports {
		if im.Name == "" {
			im.Name = defaultName(im.Path)
		}
		if im.Name == "_" || p.idents[im.Name] {
			kept = append(kept, im)
		}
	}
	p.imports = kept
}

// definedNames are the names the top-level statements of stmts declare
// (none when they do not parse; the full parse reports that).
func definedNames(stmts string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", stmtPrefix+stmts+"\n}\n", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil
	}
	var out []string
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		out = append(out, topLevelNames(st)...)
	}
	return out
}

// funcValue returns a func declaration that uses one of locals as a func
// value declared and assigned in place (so it may call itself), on one
// line: var f func(T) R; f = func(t T) R {...}; _ = f. Methods and generic
// funcs cannot be values: they stay declarations.
func funcValue(decl string, locals map[string]bool) (string, bool) {
	const prefix = "package p\n"
	fset := token.NewFileSet()
	df, err := parser.ParseFile(fset, "", prefix+decl, 0)
	if err != nil || len(df.Decls) != 1 {
		return "", false
	}
	fd, ok := df.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Recv != nil || fd.Type.TypeParams != nil || fd.Body == nil {
		return "", false
	}
	uses := false
	for _, id := range df.Unresolved {
		uses = uses || locals[id.Name]
	}
	if !uses {
		return "", false
	}
	var sig strings.Builder
	if err := printer.Fprint(&sig, fset, fd.Type); err != nil {
		return "", false
	}
	body := decl[fset.Position(fd.Body.Pos()).Offset-len(prefix) : fset.Position(fd.Body.End()).Offset-len(prefix)]
	name := fd.Name.Name
	return "var " + name + " " + sig.String() + "; " + name + " = " + sig.String() + " " + body + "; _ = " + name, true
}

// firstLine is the first line of s, for a message.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// topLevelNames are the names a top-level statement declares.
func topLevelNames(st ast.Stmt) []string {
	var out []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					out = append(out, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && (gd.Tok == token.VAR || gd.Tok == token.CONST) {
			for _, s := range gd.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						if n.Name != "_" {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// declStmtVar returns the var declaration st is, if it is one.
func declStmtVar(st ast.Stmt) (*ast.GenDecl, bool) {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return nil, false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	return gd, ok && gd.Tok == token.VAR
}

// topReturns are the returns of a snippet's top-level code (not of its
// function literals): in the interpreter they end the snippet.
func topReturns(st ast.Stmt) []*ast.ReturnStmt {
	var out []*ast.ReturnStmt
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			out = append(out, n)
		}
		return true
	})
	return out
}

// inline returns the statements ready to paste into Replay: a top-level
// := or var of names all already declared becomes an assignment, as the
// runtime treats a re-declared variable. A top-level return ends the
// snippet: the statements from the first one holding such a return on go
// into `L: switch { default: ... }` (L named by label, called only then),
// and each top-level return becomes `break L`. This works in a Go file and
// in the interpreter (GenerateSnippet) alike. A variable that part
// declares is declared before the switch with its recorded type (typeOf)
// and assigned inside it; one whose type the log lacks (the run never
// created it) cannot be inlined.
func (p *parsedSnippet) inline(declared func(string) bool, label func() string, typeOf func(string) (string, bool)) (string, error) {
	var edits []edit
	off := func(pos token.Pos) int { return p.fset.Position(pos).Offset - len(stmtPrefix) }
	predeclared := map[string]bool{} // declared before the switch
	var predecls strings.Builder
	isDeclared := func(n string) bool { return declared(n) || predeclared[n] }
	allDeclared := func(names []string) bool {
		for _, n := range names {
			if n != "_" && !isDeclared(n) {
				return false
			}
		}
		return true
	}
	end := ""
	switchEdit := -1
	for _, st := range p.body.List {
		if end != "" {
			for _, n := range topLevelNames(st) {
				if isDeclared(n) {
					continue
				}
				t, ok := typeOf(n)
				if !ok {
					return "", fmt.Errorf("the snippet declares %s after a top-level return, which cannot be inlined; declare it before the return", n)
				}
				predeclared[n] = true
				predecls.WriteString("var " + n + " " + t + "\n")
			}
			if gd, ok := declStmtVar(st); ok && len(gd.Specs) == 1 && len(gd.Specs[0].(*ast.ValueSpec).Values) == 0 {
				// var x T with no value: the declaration before the
				// switch is the whole of it.
				if allDeclared(topLevelNames(st)) {
					edits = append(edits, edit{off(st.Pos()), off(st.End()), ""})
					continue
				}
			}
		}
		for _, r := range topReturns(st) {
			if end == "" {
				end = label()
				at := off(st.Pos())
				switchEdit = len(edits)
				edits = append(edits, edit{at, at, end + ":\nswitch {\ndefault:\n"})
			}
			edits = append(edits, edit{off(r.Pos()), off(r.Pos()) + len("return"), "break " + end})
		}
		if e, ok := assignment(st, allDeclared, off); ok {
			edits = append(edits, e)
		}
	}
	if switchEdit >= 0 && predecls.Len() > 0 {
		edits[switchEdit].text = predecls.String() + edits[switchEdit].text
	}
	out := strings.TrimSpace(applyEdits(p.stmts, edits))
	if end != "" {
		out += "\n}"
	}
	return out, nil
}

// edit replaces the text from from to to with text.
type edit struct {
	from, to int
	text     string
}

// assignment is the edit that makes a top-level := or var statement of
// names all already declared an assignment, as the runtime treats a
// re-declared variable; off maps a position to an offset in the
// statements.
func assignment(st ast.Stmt, allDeclared func([]string) bool, off func(token.Pos) int) (edit, bool) {
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return edit{}, false
		}
		var names []string
		for _, e := range st.Lhs {
			if id, ok := e.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
		if allDeclared(names) {
			return edit{off(st.TokPos), off(st.TokPos) + 2, "="}, true
		}
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR || len(gd.Specs) != 1 {
			return edit{}, false
		}
		vs := gd.Specs[0].(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			return edit{}, false
		}
		var names []string
		for _, n := range vs.Names {
			names = append(names, n.Name)
		}
		if allDeclared(names) {
			return edit{off(gd.Pos()), off(vs.Values[0].Pos()), strings.Join(names, ", ") + " = "}, true
		}
	}
	return edit{}, false
}

// applyEdits applies edits to s, from the end; at one offset, a
// replacement before an insertion.
func applyEdits(s string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].from != edits[j].from {
			return edits[i].from > edits[j].from
		}
		return edits[i].to > edits[j].to
	})
	for _, e := range edits {
		s = s[:e.from] + e.text + s[e.to:]
	}
	return s
}
