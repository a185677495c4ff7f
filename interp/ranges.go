package interp

import (
	"go/ast"
	"go/constant"
	"go/token"
	"reflect"
)

// yaegi v0.16.1 predates range over integers (Go 1.22) and over functions
// (Go 1.23) and fails on both with an internal "nil type" error. The
// forms a model writes are rewritten before yaegi sees them:
//
//   - for i := range n, where n is an integer the pass can see (a literal,
//     len or cap, an integer conversion, an integer run variable, a
//     variable declared from one of those, arithmetic on them), ranges
//     over _byref.Ints(n), a []struct{} of length n (no memory);
//   - for v := range f(...), where f is one of the standard iterator
//     functions in seqFuncs, ranges over slices.Collect(f(...)); for k, v
//     := range maps.All(m) ranges over maps.Collect(maps.All(m)).
//
// Other functions cannot be ranged over; call them with a yield function.

// seqFuncs are the standard functions returning an iter.Seq, by package.
var seqFuncs = map[string]map[string]bool{
	"strings": {"Lines": true, "SplitSeq": true, "SplitAfterSeq": true, "FieldsSeq": true, "FieldsFuncSeq": true},
	"bytes":   {"Lines": true, "SplitSeq": true, "SplitAfterSeq": true, "FieldsSeq": true, "FieldsFuncSeq": true},
	"maps":    {"Keys": true, "Values": true},
	"slices":  {"Values": true},
}

// rewriteRange applies the rewrites above to one range statement.
func (a *walker) rewriteRange(n *ast.RangeStmt, ints map[string]bool) {
	if a.isInt(n.X, ints) {
		a.wrap(&n.X, "_byref.Ints(int(", "))", func(x ast.Expr) ast.Expr {
			return sandboxCall("Ints", x.Pos(), &ast.CallExpr{Fun: ident("int", x.Pos()), Lparen: x.Pos(), Args: []ast.Expr{x}, Rparen: x.End()})
		})
		return
	}
	call, ok := n.X.(*ast.CallExpr)
	if !ok {
		return
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Obj != nil || a.vars[pkg.Name] {
		return
	}
	switch {
	case seqFuncs[pkg.Name][sel.Sel.Name] && n.Value == nil:
		a.autoImport("slices", "slices")
		if n.Key != nil {
			if a.astMode {
				a.exprOps = append(a.exprOps, func() { n.Key, n.Value = ident("_", n.Key.Pos()), n.Key })
			} else {
				a.p.edits.add(a.off(n.Key.Pos()), "_, ")
			}
		}
		a.wrap(&n.X, "slices.Collect(", ")", func(x ast.Expr) ast.Expr { return pkgCall("slices", "Collect", x) })
	case pkg.Name == "maps" && sel.Sel.Name == "All":
		a.autoImport("maps", "maps")
		a.wrap(&n.X, "maps.Collect(", ")", func(x ast.Expr) ast.Expr { return pkgCall("maps", "Collect", x) })
	}
}

// pkgCall is the call pkg.fn(x), at x.
func pkgCall(pkg, fn string, x ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(pkg, x.Pos()), Sel: ident(fn, x.Pos())}, Lparen: x.Pos(), Args: []ast.Expr{x}, Rparen: x.End()}
}

// autoImport imports path as name for the snippet unless name is already
// defined.
func (a *walker) autoImport(name, path string) {
	if a.known(name) || a.imported[name] {
		return
	}
	a.imported[name] = true
	a.p.autoImps = append(a.p.autoImps, importSpec{Alias: name, Path: path})
}

// intNames are the names declared (n := e, var n = e) from an integer
// expression anywhere in f, ignoring scopes: a range over one of them is
// over an integer.
func (a *walker) intNames(f *ast.File) map[string]bool {
	ints := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			a.intAssign(n, ints)
		case *ast.ValueSpec:
			a.intSpec(n, ints)
		}
		return true
	})
	return ints
}

// intAssign adds to ints the names n := e declares from integers.
func (a *walker) intAssign(n *ast.AssignStmt, ints map[string]bool) {
	if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
		for i, l := range n.Lhs {
			if id, ok := l.(*ast.Ident); ok && a.isInt(n.Rhs[i], ints) {
				ints[id.Name] = true
			}
		}
	}
}

// intSpec adds to ints the names var n = e (or var n int) declares as
// integers.
func (a *walker) intSpec(n *ast.ValueSpec, ints map[string]bool) {
	for i, id := range n.Names {
		if t, ok := n.Type.(*ast.Ident); ok && intTypes[t.Name] {
			ints[id.Name] = true
		} else if n.Type == nil && i < len(n.Values) && a.isInt(n.Values[i], ints) {
			ints[id.Name] = true
		}
	}
}

var intTypes = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"byte": true, "rune": true,
}

// isInt reports whether e is certainly an integer.
func (a *walker) isInt(e ast.Expr, ints map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.ParenExpr:
		return a.isInt(e.X, ints)
	case *ast.Ident:
		if ints[e.Name] {
			return true
		}
		if c, ok := a.consts[e.Name]; ok {
			return c.Kind() == constant.Int
		}
		if t := a.types[e.Name]; t != nil && a.vars[e.Name] {
			switch t.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				return true
			}
		}
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap" || intTypes[id.Name]) {
			return true
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.SHL, token.SHR, token.AND, token.OR, token.XOR:
			return a.isInt(e.X, ints) && (a.isInt(e.Y, ints) || e.Op == token.SHL || e.Op == token.SHR)
		}
	case *ast.UnaryExpr:
		return e.Op == token.SUB && a.isInt(e.X, ints)
	}
	return false
}

// ints is _byref.Ints: n elements of no size, to range over (none when n
// is negative, as in Go).
func ints(n int) []struct{} {
	return make([]struct{}, max(n, 0))
}
