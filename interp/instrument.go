package interp

import (
	"go/ast"
	"go/token"
	"strconv"
)

// The sandbox instruments a snippet before yaegi compiles it: line markers
// before statements that may panic, the call-depth guard in every function
// body, the allocation guard around make sizes, range rewrites, top-level
// returns, closures around multi-value declarations in blocks, and renamed
// locals. A statement segment is parsed once, in the interpreter's FileSet,
// and these are edits of its AST, which yaegi then compiles as it is: every
// original node keeps its position, so compile errors need no mapping, and
// added nodes take the position of the code they stand for. A declaration
// segment is kept as text for replay after a rebuild, so there the same
// edits are text insertions (p.edits), and yaegi parses the result.

// mark is a line marker before the statement at index i of a list.
type mark struct{ i, line int }

// markedList is a statement list and its markers, marks[from:to].
type markedList struct {
	list     *[]ast.Stmt
	from, to int
}

// enter adds the call-depth guard at the start of a function body.
func (a *walker) enter(body *ast.BlockStmt) {
	if a.astMode {
		a.enters = append(a.enters, body)
		return
	}
	a.p.edits.add(a.off(body.Lbrace)+1, "defer _byref.Enter()();")
}

// replaceStmt records that st is replaced by r.
func (a *walker) replaceStmt(st, r ast.Stmt) {
	if a.replace == nil {
		a.replace = map[ast.Stmt]ast.Stmt{}
	}
	a.replace[st] = r
}

// wrap replaces the expression in *slot: with pre + expression + post in
// text, with build(expression) in an AST. AST rewrites run after the
// analysis' walks, which must see the snippet as written.
func (a *walker) wrap(slot *ast.Expr, pre, post string, build func(ast.Expr) ast.Expr) {
	if a.astMode {
		a.exprOps = append(a.exprOps, func() { *slot = build(*slot) })
		return
	}
	e := *slot
	a.p.edits.add(a.off(e.Pos()), pre)
	a.p.edits.add(a.off(e.End()), post)
}

// applyAST applies the recorded AST edits to a statement segment's body.
func (a *walker) applyAST(body *ast.BlockStmt) {
	for _, op := range a.exprOps {
		op()
	}
	for _, id := range a.renames {
		if !a.topObj[id.Obj] {
			id.Name += localSuffix
		}
	}
	for _, ml := range a.lists {
		*ml.list = a.rewriteList(*ml.list, a.marks[ml.from:ml.to])
	}
	if len(a.replace) > 0 {
		// Replaced statements (top-level returns, wrapped declarations)
		// may be in any list; find them.
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BlockStmt:
				n.List = a.rewriteList(n.List, nil)
			case *ast.CaseClause:
				n.Body = a.rewriteList(n.Body, nil)
			case *ast.CommClause:
				n.Body = a.rewriteList(n.Body, nil)
			case *ast.LabeledStmt:
				if r, ok := a.replace[n.Stmt]; ok {
					delete(a.replace, n.Stmt)
					n.Stmt = r
				}
			}
			return len(a.replace) > 0
		})
	}
	for _, b := range a.enters {
		b.List = append([]ast.Stmt{&ast.DeferStmt{Defer: b.Lbrace, Call: &ast.CallExpr{Fun: sandboxCall("Enter", b.Lbrace), Lparen: b.Lbrace, Rparen: b.Lbrace}}}, b.List...)
	}
}

// rewriteList puts the line markers marks before, and replacements in place
// of, the statements of list that have them. Each replacement is used
// once, so one that holds its original statement leaves it alone when the
// walk reaches it.
func (a *walker) rewriteList(list []ast.Stmt, marks []mark) []ast.Stmt {
	n := len(marks)
	for _, st := range list {
		if _, ok := a.replace[st]; ok {
			n++
		}
	}
	if n == 0 {
		return list
	}
	out := make([]ast.Stmt, 0, len(list)+n)
	for i, st := range list {
		if len(marks) > 0 && marks[0].i == i {
			out = append(out, marker(marks[0].line, st.Pos()))
			marks = marks[1:]
		}
		if r, ok := a.replace[st]; ok {
			delete(a.replace, st)
			st = r
		}
		out = append(out, st)
	}
	return out
}

// markerNodes are the nodes of one line marker, allocated together.
type markerNodes struct {
	assign   ast.AssignStmt
	lhs, rhs [1]ast.Expr
	id       ast.Ident
	lit      ast.BasicLit
}

// marker is the statement `_byrefLine = line` at pos.
func marker(line int, pos token.Pos) *ast.AssignStmt {
	m := &markerNodes{
		id:  ast.Ident{Name: "_byrefLine", NamePos: pos},
		lit: ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(line)},
	}
	m.lhs[0], m.rhs[0] = &m.id, &m.lit
	m.assign = ast.AssignStmt{Lhs: m.lhs[:], TokPos: pos, Tok: token.ASSIGN, Rhs: m.rhs[:]}
	return &m.assign
}

// ident is a new identifier at pos.
func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{Name: name, NamePos: pos} }

// intLit is the integer literal n at pos.
func intLit(n int, pos token.Pos) *ast.BasicLit {
	return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)}
}

// sandboxCall is the call _byref.fn(args...) at pos.
func sandboxCall(fn string, pos token.Pos, args ...ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident("_byref", pos), Sel: ident(fn, pos)},
		Lparen: pos, Args: args, Rparen: pos,
	}
}
