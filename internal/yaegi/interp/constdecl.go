package interp

import (
	"go/constant"
	"go/token"
	"reflect"
)

// byref: constant declarations as Go computes them. A comparison of
// constants in a constant declaration is a constant (const m = iota ==
// 0), and so are && and || of constants: yaegi folded only arithmetic; the
// rest was left to run, and a constant declaration never runs, so m was
// false. iota is the index of its spec (iotaOf).

// compareTokens are the comparison actions' operators.
var compareTokens = map[action]token.Token{
	aEqual: token.EQL, aNotEqual: token.NEQ,
	aLower: token.LSS, aLowerEqual: token.LEQ,
	aGreater: token.GTR, aGreaterEqual: token.GEQ,
}

// compareConst sets n, a comparison of two constants, to its untyped
// boolean result; it leaves n as it is when an operand is not a constant
// of a basic kind.
func compareConst(n *node) {
	tok, ok := compareTokens[n.action]
	if !ok {
		return
	}
	x, ok0 := constantOf(n.child[0].rval)
	y, ok1 := constantOf(n.child[1].rval)
	if !ok0 || !ok1 || x.Kind() == constant.Unknown || y.Kind() == constant.Unknown {
		return
	}
	n.rval = reflect.ValueOf(constant.Compare(x, tok, y))
	n.typ = untypedBool(n)
}

// constantOf is the value of a constant's rval: an untyped constant's
// constant.Value, or a typed constant's reflect value of a basic kind.
func constantOf(v reflect.Value) (constant.Value, bool) {
	if !v.IsValid() {
		return nil, false
	}
	if c, ok := v.Interface().(constant.Value); ok {
		return c, true
	}
	switch {
	case v.CanInt():
		return constant.MakeInt64(v.Int()), true
	case v.CanUint():
		return constant.MakeUint64(v.Uint()), true
	case v.CanFloat():
		return constant.MakeFloat64(v.Float()), true
	case v.CanComplex():
		c := v.Complex()
		return constant.BinaryOp(constant.MakeFloat64(real(c)), token.ADD, constant.MakeImag(constant.MakeFloat64(imag(c)))), true
	case v.Kind() == reflect.String:
		return constant.MakeString(v.String()), true
	case v.Kind() == reflect.Bool:
		return constant.MakeBool(v.Bool()), true
	}
	return nil, false
}

// logicConst sets n, the && (and) or || of two boolean constants, to its
// result, of the operands' type; it leaves n as it is when an operand is
// not a constant.
func logicConst(n *node, and bool) {
	x, ok0 := constantOf(n.child[0].rval)
	y, ok1 := constantOf(n.child[1].rval)
	if !ok0 || !ok1 || x.Kind() != constant.Bool || y.Kind() != constant.Bool {
		return
	}
	r := constant.BoolVal(x) || constant.BoolVal(y)
	if and {
		r = constant.BoolVal(x) && constant.BoolVal(y)
	}
	n.rval = reflect.ValueOf(r)
	if t := n.typ.TypeOf(); t != nil && t.Kind() == reflect.Bool {
		n.rval = n.rval.Convert(t)
	}
	// Nothing of it runs: its operands are constants too.
	n.start, n.gen, n.findex = n, nop, notInFrame
}

// iotaOf is the value of iota at n: the index of the constant spec that
// holds it in its declaration (byref: it was a counter the compilation of
// each spec advanced, once per name, and not for a spec that failed to
// compile on the first pass: const (p = q; q = iota) made q 0).
func iotaOf(n *node) int {
	for ; n.anc != nil; n = n.anc {
		if n.anc.kind == constDecl {
			return childPos(n)
		}
	}
	return 0
}
