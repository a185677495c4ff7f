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
// segs holds one segment per declaration (cutSegments): each moves on its
// own, so a type that a top-level var uses moves ahead of it even when the
// func declared next to the type uses the var. Declaration segments that
// land at the same place are compiled together, as one unit, so they may
// refer to each other in any order (mutual recursion, a method declared
// before its type). Statement segments keep their order. Code that does
// not parse is left as it is, adjacent declarations joined (mergeDecls),
// for the analysis to report. Top-level var and const declarations are
// first put in dependency order (orderInits).
func hoistDecls(body string, segs []segment) []segment {
	segs = orderInits(body, segs)
	var decls, stmts bool
	for _, sg := range segs {
		decls, stmts = decls || sg.decl, stmts || !sg.decl
	}
	if !decls || !stmts {
		return mergeDecls(segs)
	}
	segs = liftVars(body, segs)
	type decl struct {
		seg    segment
		uses   map[string]bool // names it uses and does not declare
		names  []string        // names it declares
		pos    int             // index in segs of the statement segment before it, -1 for none
		target int             // index in segs of the statement segment it follows, -1 for the front
		floor  int             // the last statement segment before it with a top-level return
		fn     bool            // it declares funcs or methods only
		method bool            // it declares a method
	}
	var units []*decl
	declared := map[string]int{}          // top-level name -> the last statement segment declaring it
	stmtUses := map[int]map[string]bool{} // statement segment -> the names it uses and does not declare
	returnAt := map[int]bool{}            // statement segments with a top-level return
	last, returns := -1, -1
	for i, sg := range segs {
		if !sg.decl {
			f, err := parser.ParseFile(token.NewFileSet(), "", stmtPrefix+string(sg.text(body))+"\n}", 0)
			if err != nil || len(f.Decls) != 1 {
				return mergeDecls(segs)
			}
			list := f.Decls[0].(*ast.FuncDecl).Body.List
			for _, n := range topNames(list) {
				declared[n] = i
			}
			uses := map[string]bool{}
			for _, id := range f.Unresolved {
				uses[id.Name] = true
			}
			stmtUses[i] = uses
			if topReturn(list) {
				returns = i
				returnAt[i] = true
			}
			last = i
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+string(sg.text(body)), 0)
		if err != nil {
			return mergeDecls(segs)
		}
		d := &decl{seg: sg, uses: map[string]bool{}, pos: last, floor: returns, fn: true}
		for _, id := range f.Unresolved {
			d.uses[id.Name] = true
		}
		for _, fd := range f.Decls {
			switch fd := fd.(type) {
			case *ast.FuncDecl:
				if fd.Recv == nil {
					d.names = append(d.names, fd.Name.Name)
				} else {
					d.method = true
				}
			case *ast.GenDecl:
				d.fn = false
				for _, sp := range fd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						d.names = append(d.names, ts.Name.Name)
					}
				}
			}
		}
		units = append(units, d)
	}
	// place sets each declaration's target: up to just after the last
	// statement declaring a name it uses; with sink, also down to it
	// when that statement comes later (a func using a variable declared
	// after it, as in a Go file), but never past a top-level return.
	place := func(sink bool) {
		for _, d := range units {
			d.target = d.pos
			after := -1
			for n := range d.uses {
				if i, ok := declared[n]; ok && i > after {
					after = i
				}
			}
			switch {
			case after < d.target:
				d.target = max(after, d.floor)
			case sink && after > d.target:
				ret := false
				for i := d.target + 1; i <= after; i++ {
					ret = ret || returnAt[i]
				}
				if !ret {
					d.target = after
				}
			}
		}
		propagate := func() {
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
		}
		propagate()
		if !sink {
			return
		}
		// A func may call any method (x.M() names no method), so the funcs
		// and methods that no statement before the last method uses go
		// down with it.
		low := -1
		for _, d := range units {
			if d.method {
				low = max(low, d.target)
			}
		}
		for _, d := range units {
			if !d.fn || d.target >= low {
				continue
			}
			used := false
			for i := d.target + 1; i <= low; i++ {
				used = used || returnAt[i] || slices.ContainsFunc(d.names, func(n string) bool { return stmtUses[i][n] })
			}
			if !used {
				d.target = low
			}
		}
		propagate()
	}
	// sunk reports whether a declaration moved down past a statement
	// that uses a name it declares.
	sunk := func() bool {
		for _, d := range units {
			for i := d.pos + 1; i <= d.target; i++ {
				if slices.ContainsFunc(d.names, func(n string) bool { return stmtUses[i][n] }) {
					return true
				}
			}
		}
		return false
	}
	if place(true); sunk() {
		place(false)
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

// liftVars moves the top-level var and const declarations that
// declarations use, and whose values compute nothing that can be seen
// (liftable), to the front of the snippet, each as a statement segment of
// its own, in their order, as a Go file lets a function use a package
// variable or constant declared after it. Their values do not depend on
// the statements they move ahead of: the names they use are declared by
// no statement, or by a declaration moved before them, and every func or
// type they name goes to the front too (it uses no name a statement
// declares).
func liftVars(body string, segs []segment) []segment {
	used := map[string]bool{}
	declUses := map[string][]string{} // func or type name -> the names its declaration uses
	for _, sg := range segs {
		if !sg.decl {
			continue
		}
		uses := declNameUses(body, sg, declUses)
		if uses == nil {
			return segs
		}
		for _, n := range uses {
			used[n] = true
		}
	}
	if len(used) == 0 {
		return segs
	}
	type stmt struct {
		st         ast.Stmt
		seg        int
		start, end int
	}
	var stmts []stmt
	stmtNames := map[string]bool{} // the names statements declare
	for i, sg := range segs {
		if sg.decl {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", stmtPrefix+string(sg.text(body))+"\n}", 0)
		if err != nil || len(f.Decls) != 1 {
			return segs
		}
		off := func(p token.Pos) int { return fset.Position(p).Offset - len(stmtPrefix) }
		list := f.Decls[0].(*ast.FuncDecl).Body.List
		for _, n := range topNames(list) {
			stmtNames[n] = true
		}
		for _, st := range list {
			stmts = append(stmts, stmt{st, i, off(st.Pos()), off(st.End())})
		}
	}
	lifted := map[string]bool{}
	lift := map[int]bool{}
	constAt := map[string]int{} // name -> the const declaration statement declaring it
	for i, s := range stmts {
		if ds, ok := s.st.(*ast.DeclStmt); ok {
			if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, n := range topNames([]ast.Stmt{s.st}) {
					constAt[n] = i
				}
			}
		}
	}
	// front reports whether a name is declared by no statement but one
	// lifted (a constant a lifted declaration needs is lifted with it),
	// and, when a func or type declares it, whether that declaration goes
	// to the front (it uses only such names).
	seen := map[string]bool{}
	var front func(n string) bool
	front = func(n string) bool {
		if stmtNames[n] {
			if lifted[n] {
				return true
			}
			j, ok := constAt[n]
			if !ok || seen[n] {
				return false
			}
			seen[n] = true
			defer delete(seen, n)
			for _, u := range outerNames(stmts[j].st) {
				if !front(u) {
					return false
				}
			}
			lift[j] = true
			for _, m := range topNames([]ast.Stmt{stmts[j].st}) {
				lifted[m] = true
			}
			return true
		}
		uses, ok := declUses[n]
		if !ok || seen[n] {
			return true // a package, a built-in, or a cycle among declarations
		}
		seen[n] = true
		defer delete(seen, n)
		for _, u := range uses {
			if stmtNames[u] || !front(u) {
				return false
			}
		}
		return true
	}
	shadowed := false // a predeclared name pureValue trusts is the snippet's own
	for n := range pureCallee {
		_, isDecl := declUses[n]
		shadowed = shadowed || isDecl || stmtNames[n]
	}
	for i, s := range stmts {
		if lift[i] || !liftable(s.st, used, shadowed) {
			continue
		}
		ok := true
		for _, n := range outerNames(s.st) {
			ok = ok && front(n)
		}
		if !ok {
			continue
		}
		lift[i] = true
		for _, n := range topNames([]ast.Stmt{s.st}) {
			lifted[n] = true
		}
	}
	if len(lift) == 0 {
		return segs
	}
	var out, rest []segment
	byStmt := map[int][]segment{} // statement segment -> what stays of it, when something of it lifts
	for i, s := range stmts {
		if lift[i] {
			byStmt[s.seg] = nil
		}
	}
	for si := range byStmt {
		sg := segs[si]
		cut := sg.start
		for i, s := range stmts {
			if s.seg != si || !lift[i] {
				continue
			}
			if strings.Trim(body[cut:s.start], " \t\r\n;") != "" {
				byStmt[si] = append(byStmt[si], segment{start: cut, end: s.start, gaps: sg.gaps})
			}
			cut = s.end
		}
		if strings.Trim(body[cut:sg.end], " \t\r\n;") != "" {
			byStmt[si] = append(byStmt[si], segment{start: cut, end: sg.end, gaps: sg.gaps})
		}
	}
	for i, s := range stmts {
		if lift[i] {
			out = append(out, segment{start: s.start, end: s.end, gaps: segs[s.seg].gaps})
		}
	}
	for i, sg := range segs {
		if parts, ok := byStmt[i]; ok {
			rest = append(rest, parts...)
		} else {
			rest = append(rest, sg)
		}
	}
	return append(out, rest...)
}

// liftable reports whether st is a var or const declaration of a used
// name whose values compute nothing that can be seen (pureValue; with
// calls of predeclared names only when the snippet declares none of them).
func liftable(st ast.Stmt, used map[string]bool, shadowed bool) bool {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR && gd.Tok != token.CONST {
		return false
	}
	isUsed := false
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		for _, id := range vs.Names {
			isUsed = isUsed || used[id.Name]
		}
		if gd.Tok == token.CONST {
			continue
		}
		for _, v := range vs.Values {
			if !pureValue(v, !shadowed) {
				return false
			}
		}
	}
	return isUsed
}

// pureValue reports whether evaluating e has no effect but its value: it
// calls nothing but conversions to types written as type expressions or
// named like the predeclared types, and new, make, len and cap (when
// predeclared: the snippet declares none of these names), and receives
// from no channel. A call of a name that is a type the snippet
// declares is not told from a function's, so it is not pure.
func pureValue(e ast.Expr, predeclared bool) bool {
	pure := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // evaluating it runs nothing
		case *ast.UnaryExpr:
			pure = pure && n.Op != token.ARROW
		case *ast.CallExpr:
			switch f := ast.Unparen(n.Fun).(type) {
			case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType, *ast.StarExpr:
			case *ast.Ident:
				pure = pure && predeclared && pureCallee[f.Name]
			default:
				pure = false
			}
		}
		return pure
	})
	return pure
}

// pureCallee are the predeclared names whose call computes only a value.
var pureCallee = map[string]bool{
	"new": true, "make": true, "len": true, "cap": true,
	"bool": true, "string": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true, "byte": true, "rune": true,
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
