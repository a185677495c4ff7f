package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// hoistDecls lets top-level funcs and types be used before they are
// declared, as in a Go file. Each declaration segment moves up to just
// after the last statement segment that declares a name it uses (a
// top-level variable, constant or type), or to the front when it uses
// none, and no earlier than the declarations whose names it uses, nor
// than a top-level return before it (declarations after one are not made).
// Declaration segments that land at the same place are compiled together,
// as one unit, so they may refer to each other in any order. Statement
// segments keep their order. Code that does not parse is left as it is,
// for the analysis to report. Top-level var and const declarations are
// first put in dependency order (orderInits).
func hoistDecls(body string, segs []segment) []segment {
	segs = orderInits(body, segs)
	var decls, stmts bool
	for _, sg := range segs {
		decls, stmts = decls || sg.decl, stmts || !sg.decl
	}
	if !decls || !stmts {
		return segs
	}
	segs = liftVars(body, segs)
	type decl struct {
		seg    segment
		uses   map[string]bool // names it uses and does not declare
		names  []string        // names it declares
		target int             // index in segs of the statement segment it follows, -1 for the front
		floor  int             // the last statement segment before it with a top-level return
	}
	var units []*decl
	declared := map[string]int{} // top-level name -> the last statement segment declaring it
	last, returns := -1, -1
	for i, sg := range segs {
		if !sg.decl {
			f, err := parser.ParseFile(token.NewFileSet(), "", stmtPrefix+string(sg.text(body))+"\n}", parser.SkipObjectResolution)
			if err != nil || len(f.Decls) != 1 {
				return segs
			}
			list := f.Decls[0].(*ast.FuncDecl).Body.List
			for _, n := range topNames(list) {
				declared[n] = i
			}
			if topReturn(list) {
				returns = i
			}
			last = i
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+string(sg.text(body)), 0)
		if err != nil {
			return segs
		}
		d := &decl{seg: sg, uses: map[string]bool{}, target: last, floor: returns}
		for _, id := range f.Unresolved {
			d.uses[id.Name] = true
		}
		for _, fd := range f.Decls {
			switch fd := fd.(type) {
			case *ast.FuncDecl:
				if fd.Recv == nil {
					d.names = append(d.names, fd.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range fd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						d.names = append(d.names, ts.Name.Name)
					}
				}
			}
		}
		units = append(units, d)
	}
	for _, d := range units {
		after := -1
		for n := range d.uses {
			if i, ok := declared[n]; ok && i > after {
				after = i
			}
		}
		if after < d.target {
			d.target = max(after, d.floor)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range units {
			for _, e := range units {
				if e.target > d.target && slices.ContainsFunc(e.names, func(n string) bool { return d.uses[n] }) {
					d.target, changed = e.target, true
				}
			}
		}
	}
	unit := func(target int) (segment, bool) {
		var u segment
		var in []segment
		for _, d := range units {
			if d.target == target {
				in = append(in, d.seg)
			}
		}
		if len(in) == 0 {
			return u, false
		}
		u = segment{start: in[0].start, end: in[len(in)-1].end, decl: true}
		for _, sg := range segs {
			if sg.start >= u.start && sg.end <= u.end && !slices.ContainsFunc(in, func(x segment) bool { return x.start == sg.start }) {
				u.gaps = append(u.gaps, sg)
			}
		}
		return u, true
	}
	out := make([]segment, 0, len(segs))
	if u, ok := unit(-1); ok {
		out = append(out, u)
	}
	for i, sg := range segs {
		if sg.decl {
			continue
		}
		out = append(out, sg)
		if u, ok := unit(i); ok {
			out = append(out, u)
		}
	}
	return out
}

// liftVars moves the top-level var declarations that declarations use and
// that initialise from literals only (var total int, var seen = 0) to the
// front of the snippet, each as a statement segment of its own, as a Go
// file lets a function use a package variable declared after it. Their
// values do not depend on the statements they move ahead of.
func liftVars(body string, segs []segment) []segment {
	used := map[string]bool{}
	for _, sg := range segs {
		if !sg.decl {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+string(sg.text(body)), 0)
		if err != nil {
			return segs
		}
		for _, id := range f.Unresolved {
			used[id.Name] = true
		}
	}
	var lifted, rest []segment
	for _, sg := range segs {
		if sg.decl {
			rest = append(rest, sg)
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", stmtPrefix+string(sg.text(body))+"\n}", parser.SkipObjectResolution)
		if err != nil || len(f.Decls) != 1 {
			return segs
		}
		off := func(p token.Pos) int { return fset.Position(p).Offset - len(stmtPrefix) }
		cut := sg.start
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			if !liftable(st, used) {
				continue
			}
			start, end := off(st.Pos()), off(st.End())
			if strings.Trim(body[cut:start], " \t\r\n;") != "" {
				rest = append(rest, segment{start: cut, end: start, gaps: sg.gaps})
			}
			lifted = append(lifted, segment{start: start, end: end, gaps: sg.gaps})
			cut = end
		}
		if strings.Trim(body[cut:sg.end], " \t\r\n;") != "" {
			rest = append(rest, segment{start: cut, end: sg.end, gaps: sg.gaps})
		}
	}
	if len(lifted) == 0 {
		return segs
	}
	return append(lifted, rest...)
}

// liftable reports whether st is a var declaration of a used name whose
// values are literals.
func liftable(st ast.Stmt, used map[string]bool) bool {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return false
	}
	isUsed := false
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		for _, id := range vs.Names {
			isUsed = isUsed || used[id.Name]
		}
		for _, v := range vs.Values {
			if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.SUB {
				v = u.X
			}
			if _, lit := v.(*ast.BasicLit); !lit {
				return false
			}
		}
	}
	return isUsed
}

// topReturn reports whether top-level statements hold a return outside
// function literals: declarations after it are not made, so they stay
// after it.
func topReturn(list []ast.Stmt) bool {
	found := false
	for _, st := range list {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				found = true
			}
			return !found
		})
	}
	return found
}

// topNames are the names that top-level statements declare.
func topNames(list []ast.Stmt) []string {
	var names []string
	for _, st := range list {
		if l, ok := st.(*ast.LabeledStmt); ok {
			st = l.Stmt
		}
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, e := range st.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						names = append(names, id.Name)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							names = append(names, id.Name)
						}
					case *ast.TypeSpec:
						names = append(names, sp.Name.Name)
					}
				}
			}
		}
	}
	return names
}
