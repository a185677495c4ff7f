package interp

import (
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
)

// byref: Go 1.22 loop variables. Each iteration of a three-clause or range
// loop has its own copy of the variables the loop declares: before the
// post statement (or the next range step) runs, each such variable is given
// fresh storage holding its current value, so a closure, a pointer or a
// method value taken during the iteration keeps the iteration's variable,
// and the post statement increments the next iteration's copy, as the Go
// specification says. yaegi's closures copy their frame's slots (the
// reflect.Values), not the storage behind them, which is what makes fresh
// storage per iteration enough.
//
// The copy is made only when the loop can capture a variable: it contains a
// function literal, takes an address, or selects on a loop variable (a
// method value or call through a pointer receiver takes its address).

// loopVarNode returns a node that renews the storage of the loop variables
// in slots and continues with next, or next itself when there is nothing to
// renew or the loop cannot capture a variable.
func loopVarNode(loop *node, slots []int, names []string, next *node) *node {
	if len(slots) == 0 || !capturesVar(loop, names) {
		return next
	}
	return &node{
		anc: loop, interp: loop.interp, pos: loop.pos, kind: loop.kind, action: aNop,
		tnext: next, findex: notInFrame,
		gen: func(n *node) {
			next := getExec(n.tnext)
			n.exec = func(f *frame) bltn {
				for _, i := range slots {
					v := f.data[i]
					nv := reflect.New(v.Type()).Elem()
					nv.Set(v)
					f.data[i] = nv
				}
				return next
			}
		},
	}
}

// forInitVars returns the frame slots and names of the variables a for
// statement's init clause declares.
func forInitVars(init *node) (slots []int, names []string) {
	if init.kind != defineStmt && init.kind != defineXStmt {
		return nil, nil
	}
	for _, c := range init.child[:init.nleft] {
		if c.kind == identExpr && c.ident != "_" && c.level == 0 && c.findex >= 0 {
			slots = append(slots, c.findex)
			names = append(names, c.ident)
		}
	}
	return slots, names
}

// rangeVars returns the frame slots and names of a range statement's key
// and value (yaegi declares both in the loop's scope, whatever the token).
func rangeVars(n *node, withValue bool) (slots []int, names []string) {
	kv := n.child[:1]
	if withValue {
		kv = n.child[:2]
	}
	for _, c := range kv {
		if c.kind == identExpr && c.ident != "_" && c.findex >= 0 {
			slots = append(slots, c.findex)
			names = append(names, c.ident)
		}
	}
	return slots, names
}

// capturesVar reports whether the subtree n may capture one of the named
// variables: a function literal, an address, or a selector on one of them.
func capturesVar(n *node, names []string) bool {
	switch n.kind {
	case funcLit, addressExpr:
		return true
	case selectorExpr:
		if x := n.child[0]; x.kind == identExpr {
			for _, name := range names {
				if x.ident == name {
					return true
				}
			}
		}
	}
	for _, c := range n.child {
		if capturesVar(c, names) {
			return true
		}
	}
	return false
}

// inLoop reports whether n is in the body of a loop of its own function.
func inLoop(n *node) bool {
	for a := n.anc; a != nil; a = a.anc {
		switch a.kind {
		case funcLit, funcDecl:
			return false
		case forStmt0, forStmt1, forStmt2, forStmt3, forStmt4, forStmt5, forStmt6, forStmt7, forRangeStmt, rangeStmt:
			return true
		}
	}
	return false
}

// deferArg is the value of a deferred call's argument, taken when the
// defer statement runs: a copy when v is a variable's storage, which a
// later assignment would change (byref; the deferred call saw the
// variable's last value).
func deferArg(v reflect.Value) reflect.Value {
	if !v.IsValid() || !v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// assignRangeVars rewrites for k, v = range x { body } as
// for k', v' := range x { k, v = k', v'; body }: yaegi declares a range's
// key and value in the loop's scope whatever the token, so the assignment
// form left the variables it names (any assignable expressions) unchanged
// (byref).
func assignRangeVars(r *ast.RangeStmt) {
	if r.Tok != token.ASSIGN || r.Key == nil {
		return
	}
	var lhs, rhs []ast.Expr
	for i, e := range []ast.Expr{r.Key, r.Value} {
		if e == nil {
			continue
		}
		tmp := &ast.Ident{Name: "_byrefRange" + strconv.Itoa(i), NamePos: e.Pos()}
		lhs, rhs = append(lhs, e), append(rhs, tmp)
		if i == 0 {
			r.Key = tmp
		} else {
			r.Value = tmp
		}
	}
	r.Tok = token.DEFINE
	assign := &ast.AssignStmt{Lhs: lhs, TokPos: r.TokPos, Tok: token.ASSIGN, Rhs: rhs}
	r.Body.List = append([]ast.Stmt{assign}, r.Body.List...)
}
