package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/byref/byref/interp"
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
}

const stmtPrefix = "package p\n\nfunc _() {\n"

type tok struct {
	off int
	t   token.Token
	lit string
}

func (k tok) end() int {
	if k.lit != "" {
		return k.off + len(k.lit)
	}
	return k.off + len(k.t.String())
}

// parseSnippet splits and parses a snippet's code; vars are the variables'
// types at the point it ran, for finding packages it uses without importing.
func parseSnippet(code string, vars map[string]reflect.Type) (*parsedSnippet, error) {
	src := []byte(code)
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{file.Offset(pos), t, lit})
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	p := &parsedSnippet{idents: map[string]bool{}}
	cut := make([]bool, len(src))
	cutRange := func(from, to int) {
		for i := from; i < to && i < len(src); i++ {
			cut[i] = true
		}
	}
	i := 0
	at := func(j int) token.Token {
		if j < len(toks) {
			return toks[j].t
		}
		return token.EOF
	}
	if at(0) == token.PACKAGE {
		for i < len(toks) && toks[i].t != token.SEMICOLON {
			i++
		}
		cutRange(0, toks[min(i, len(toks)-1)].end())
		i++
	}
	spec := func() {
		name := ""
		if at(i) == token.IDENT || at(i) == token.PERIOD {
			name = toks[i].lit
			if at(i) == token.PERIOD {
				name = "."
			}
			i++
		}
		if at(i) == token.STRING {
			path, _ := strconv.Unquote(toks[i].lit)
			p.imports = append(p.imports, snippetImport{Name: name, Path: path})
			i++
		}
	}
	for at(i) == token.IMPORT {
		start := toks[i].off
		i++
		if at(i) == token.LPAREN {
			i++
			for at(i) != token.RPAREN && at(i) != token.EOF {
				if at(i) == token.SEMICOLON {
					i++
					continue
				}
				spec()
			}
		} else {
			spec()
		}
		end := toks[min(i, len(toks)-1)].end()
		cutRange(start, end)
		i++ // the ) or ;
		if at(i) == token.SEMICOLON {
			i++
		}
	}
	matching := func(j int) int {
		depth := 0
		for ; j < len(toks); j++ {
			switch toks[j].t {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth++
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth--
				if depth == 0 {
					return j
				}
			}
		}
		return len(toks) - 1
	}
	stmtStart := true
	for i < len(toks) {
		k := toks[i]
		if stmtStart && k.t == token.FUNC && (at(i+1) == token.IDENT || (at(i+1) == token.LPAREN && at(matching(i+1)+1) == token.IDENT)) {
			j := i + 1
			if at(j) == token.LPAREN {
				j = matching(j) + 1
			}
			j++ // the name
			for j < len(toks) {
				switch toks[j].t {
				case token.LPAREN, token.LBRACK:
					j = matching(j) + 1
					continue
				case token.STRUCT, token.INTERFACE:
					j = matching(j+1) + 1
					continue
				}
				if toks[j].t == token.LBRACE {
					j = matching(j)
					break
				}
				j++
			}
			end := toks[min(j, len(toks)-1)].end()
			p.decls = append(p.decls, code[k.off:end])
			cutRange(k.off, end)
			i = j + 1
			continue
		}
		if stmtStart && k.t == token.TYPE {
			j := i + 1
			for j < len(toks) && toks[j].t != token.SEMICOLON {
				switch toks[j].t {
				case token.LPAREN, token.LBRACK, token.LBRACE:
					j = matching(j)
				}
				j++
			}
			end := toks[min(j, len(toks)-1)].end()
			if j >= len(toks) {
				end = len(code)
			}
			p.decls = append(p.decls, strings.TrimRight(code[k.off:end], ";\n"))
			cutRange(k.off, end)
			i = j + 1
			continue
		}
		switch k.t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			i = matching(i)
			stmtStart = false
		default:
			stmtStart = k.t == token.SEMICOLON
		}
		i++
	}
	var b strings.Builder
	for j, c := range src {
		if cut[j] && c != '\n' {
			b.WriteByte(' ')
		} else {
			b.WriteByte(c)
		}
	}
	p.stmts = b.String()

	p.fset = token.NewFileSet()
	f, err := parser.ParseFile(p.fset, "", stmtPrefix+p.stmts+"\n}\n", parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("the snippet does not parse as Go statements: %w", err)
	}
	p.body = f.Decls[0].(*ast.FuncDecl).Body
	ast.Inspect(p.body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			p.idents[id.Name] = true
		}
		return true
	})
	for _, st := range p.body.List {
		p.defined = append(p.defined, topLevelNames(st)...)
	}
	if len(p.decls) > 0 {
		df, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+strings.Join(p.decls, "\n"), 0)
		if err != nil {
			return nil, fmt.Errorf("the snippet's declarations do not parse: %w", err)
		}
		ast.Inspect(df, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				p.idents[id.Name] = true
			}
			return true
		})
		for _, d := range df.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.declNames = append(p.declNames, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						p.declNames = append(p.declNames, ts.Name.Name)
					}
				}
			}
		}
	}
	// Packages used without an import: the interpreter imports them by
	// name; the Go file needs them spelled out.
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
	// Keep the imports the code uses: Go refuses unused ones.
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
	return p, nil
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

// inline returns the statements ready to paste into Replay: a top-level
// := or var of names all already declared becomes an assignment, as the
// runtime treats a re-declared variable.
func (p *parsedSnippet) inline(declared func(string) bool) string {
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	off := func(pos token.Pos) int { return p.fset.Position(pos).Offset - len(stmtPrefix) }
	allDeclared := func(names []string) bool {
		for _, n := range names {
			if n != "_" && !declared(n) {
				return false
			}
		}
		return true
	}
	for _, st := range p.body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE {
				continue
			}
			var names []string
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
			if allDeclared(names) {
				edits = append(edits, edit{off(st.TokPos), off(st.TokPos) + 2, "="})
			}
		case *ast.DeclStmt:
			gd, ok := st.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR || len(gd.Specs) != 1 {
				continue
			}
			vs := gd.Specs[0].(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				continue
			}
			var names []string
			for _, n := range vs.Names {
				names = append(names, n.Name)
			}
			if allDeclared(names) {
				edits = append(edits, edit{off(gd.Pos()), off(vs.Values[0].Pos()), strings.Join(names, ", ") + " = "})
			}
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := p.stmts
	for _, e := range edits {
		out = out[:e.from] + e.text + out[e.to:]
	}
	return strings.TrimSpace(out)
}
