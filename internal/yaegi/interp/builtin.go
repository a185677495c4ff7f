package interp

import (
	"go/constant"
	"go/token"
	"math"
	"reflect"
)

// byref: the min, max (Go 1.21) and clear built-ins, which yaegi v0.16.1
// lacks. min and max take any number of operands of one ordered type;
// untyped constant operands take the type of the typed ones, and when all
// operands are constants the call is a constant (untyped when they all
// are: max(3.5, 2, 7) is the untyped float 7). clear empties a map and
// zeroes a slice's elements.

const (
	bltnMin   = "min"
	bltnMax   = "max"
	bltnClear = "clear"
)

// minMaxType is the type of the call n of min or max.
func minMaxType(interp *Interpreter, sc *scope, n *node, seen []*node) (*itype, error) {
	types := make([]*itype, 0, len(n.child)-1)
	for _, c := range n.child[1:] {
		ct, err := nodeType2(interp, sc, c, seen)
		if err != nil {
			return nil, err
		}
		if ct.incomplete {
			return ct, nil
		}
		types = append(types, ct)
	}
	return minMaxResult(n, types), nil
}

// minMaxResult is the type of min or max of operands of the given types:
// the first typed one, else the untyped kind that ranks highest.
func minMaxResult(n *node, types []*itype) *itype {
	var untyped *itype
	rank := func(t *itype) int {
		switch k := t.TypeOf().Kind(); {
		case k == reflect.String:
			return 4
		case isFloat(t.TypeOf()):
			return 3
		case k == reflect.Int32:
			return 2
		}
		return 1
	}
	for _, ct := range types {
		switch {
		case !ct.untyped:
			return ct
		case untyped == nil || rank(ct) > rank(untyped):
			untyped = ct
		}
	}
	if untyped == nil {
		return &itype{cat: builtinT}
	}
	switch rank(untyped) {
	case 4:
		return untypedString(n)
	case 3:
		return untypedFloat(n)
	case 2:
		return untypedRune(n)
	}
	return untypedInt(n)
}

// checkMinMax checks the operands of min or max: at least one, ordered,
// of one type once untyped constants are converted.
func (check typecheck) checkMinMax(name string, n *node, params []param) error {
	types := make([]*itype, len(params))
	for i, p := range params {
		types[i] = p.Type()
	}
	typ := minMaxResult(n, types)
	if typ.cat == builtinT || !isOrdered(typ.TypeOf()) {
		return n.cfgErrorf("invalid argument: %s of %s is not ordered", name, typ.id())
	}
	for _, p := range params {
		pt := p.Type()
		if pt.untyped {
			if !typ.untyped {
				if err := check.convertUntyped(p.nod, typ); err != nil {
					return err
				}
			}
			continue
		}
		if pt.id() != typ.id() {
			return p.nod.cfgErrorf("invalid argument: mismatched types %s (previous argument) and %s (type of %s)", typ.id(), pt.id(), p.nod.ident)
		}
	}
	return nil
}

// isOrdered reports whether values of t can be compared with <.
func isOrdered(t reflect.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// minMaxConst folds a call of min or max whose operands are all constants.
func minMaxConst(n *node) {
	args := n.child[1:]
	allConst := true
	for _, c := range args {
		if !c.rval.IsValid() {
			return
		}
		allConst = allConst && isConstantValue(c.rval.Type())
	}
	isMax := n.child[0].ident == bltnMax
	if allConst {
		best := vConstantValue(args[0].rval)
		for _, c := range args[1:] {
			v := vConstantValue(c.rval)
			if isMax && constant.Compare(v, token.GTR, best) || !isMax && constant.Compare(v, token.LSS, best) {
				best = v
			}
		}
		n.rval = reflect.New(constVal).Elem()
		n.rval.Set(reflect.ValueOf(best))
		n.gen = nop
		return
	}
	rt := n.typ.TypeOf()
	vals := make([]reflect.Value, len(args))
	for i, c := range args {
		v := c.rval
		if isConstantValue(v.Type()) {
			cv := vConstantValue(v)
			switch {
			case isString(rt):
				v = reflect.ValueOf(constant.StringVal(cv))
			case isFloat(rt):
				f, _ := constant.Float64Val(constant.ToFloat(cv))
				v = reflect.ValueOf(f)
			case isUint(rt):
				u, _ := constant.Uint64Val(constant.ToInt(cv))
				v = reflect.ValueOf(u)
			default:
				i, _ := constant.Int64Val(constant.ToInt(cv))
				v = reflect.ValueOf(i)
			}
		}
		vals[i] = v.Convert(rt)
	}
	n.rval = pickMinMax(vals, isMax)
	n.gen = nop
}

// pickMinMax returns the least (or greatest) of vals, all of one ordered
// type, as Go's min and max do: a NaN operand makes the result NaN, and
// -0 is less than +0.
func pickMinMax(vals []reflect.Value, isMax bool) reflect.Value {
	best := vals[0]
	for _, v := range vals[1:] {
		switch best.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if isMax && v.Int() > best.Int() || !isMax && v.Int() < best.Int() {
				best = v
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if isMax && v.Uint() > best.Uint() || !isMax && v.Uint() < best.Uint() {
				best = v
			}
		case reflect.Float32, reflect.Float64:
			x, b := v.Float(), best.Float()
			switch {
			case math.IsNaN(b):
			case math.IsNaN(x):
				best = v
			case x == b && x == 0:
				if math.Signbit(x) != isMax && math.Signbit(b) == isMax {
					best = v
				}
			case isMax && x > b || !isMax && x < b:
				best = v
			}
		case reflect.String:
			if isMax && v.String() > best.String() || !isMax && v.String() < best.String() {
				best = v
			}
		}
	}
	return best
}

func _min(n *node) { genMinMax(n, false) }

func _max(n *node) { genMinMax(n, true) }

func genMinMax(n *node, isMax bool) {
	next := getExec(n.tnext)
	typ := n.typ.concrete()
	rt := typ.TypeOf()
	vals := make([]func(*frame) reflect.Value, len(n.child)-1)
	for i, c := range n.child[1:] {
		vals[i] = genDestValue(typ, c)
	}
	dest := genValueOutput(n, rt)
	n.exec = func(f *frame) bltn {
		args := make([]reflect.Value, len(vals))
		for i, v := range vals {
			args[i] = v(f)
		}
		dest(f).Set(pickMinMax(args, isMax))
		return next
	}
}

func _clear(n *node) {
	value := genValue(n.child[1])
	genBuiltinDeferWrapper(n, []func(*frame) reflect.Value{value}, nil, func(args []reflect.Value) []reflect.Value {
		v := args[0]
		for v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Map:
			v.Clear()
		case reflect.Slice:
			for i := range v.Len() {
				v.Index(i).SetZero()
			}
		}
		return nil
	})
}

// newOfValue generates new(expr) (Go 1.26): a pointer to a new variable
// holding the value of expr, when the operand of new is not a type. It
// reports whether it did.
func newOfValue(n *node) bool {
	c := n.child[1]
	if c.ext == nil || c.ext.meta != newValueMark {
		return false
	}
	next := getExec(n.tnext)
	elem := n.typ.val
	value := genDestValue(elem, c)
	rt := elem.frameType()
	dest := genValueOutput(n, reflect.PointerTo(rt))
	n.exec = func(f *frame) bltn {
		p := reflect.New(rt)
		p.Elem().Set(value(f))
		dest(f).Set(p)
		return next
	}
	return true
}

// newValueMark marks the operand of new that is an expression, not a type.
var newValueMark = new(int)
