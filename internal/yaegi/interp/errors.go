package interp

import (
	"errors"
	"reflect"
)

// byref: errors.As and errors.Is for interpreted code. An interpreted type
// is a reflect type without methods, so the host's errors.As refused a
// target of one ("*target must be interface or implement error"), and an
// interpreted value reaches host code as a wrapper struct (the value in
// its first field, the methods in the others) made anew at every
// conversion to error, so the host's errors.Is compared wrappers.

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// ErrorsAs is errors.As, where target may also point to an interpreted
// type: the first error in err's tree (through Unwrap() error and
// Unwrap() []error) that holds a value assignable to it is stored there.
func ErrorsAs(err error, target any) bool {
	if target == nil {
		panic("errors: target cannot be nil")
	}
	val := reflect.ValueOf(target)
	typ := val.Type()
	if typ.Kind() != reflect.Pointer || val.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	elem := typ.Elem()
	if elem.Kind() == reflect.Interface || elem.Implements(errorType) {
		return errors.As(err, target)
	}
	found := false
	walkErrors(err, func(e error) bool {
		if v := wrapped(e); v.IsValid() && v.Type().AssignableTo(elem) {
			val.Elem().Set(v)
			found = true
			return true
		}
		if x, ok := e.(interface{ As(any) bool }); ok && x.As(target) {
			found = true
			return true
		}
		return false
	})
	return found
}

// ErrorsIs is errors.Is, where err and target may hold interpreted values:
// two of them are the same error when they hold the same value.
func ErrorsIs(err, target error) bool {
	t := wrapped(target)
	if !t.IsValid() {
		return errors.Is(err, target)
	}
	found := false
	walkErrors(err, func(e error) bool {
		if v := wrapped(e); v.IsValid() && v.Type() == t.Type() && v.Comparable() && v.Equal(t) {
			found = true
			return true
		}
		if x, ok := e.(interface{ Is(error) bool }); ok && x.Is(target) {
			found = true
			return true
		}
		return false
	})
	return found
}

// walkErrors calls visit on err and the errors it wraps, depth first, until
// visit returns true.
func walkErrors(err error, visit func(error) bool) bool {
	for err != nil {
		if visit(err) {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if walkErrors(e, visit) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// wrapped returns the interpreted value an error wrapper holds, or the
// zero Value when e is not a wrapper of the interpreter's.
func wrapped(e error) reflect.Value { return wrappedValue(reflect.ValueOf(e)) }

// wrappedValue is wrapped for a reflect.Value.
func wrappedValue(v reflect.Value) reflect.Value {
	if !v.IsValid() || v.Kind() != reflect.Struct || v.NumField() < 2 {
		return reflect.Value{}
	}
	t := v.Type()
	if f := t.Field(0); f.Name != "IValue" || t.Field(1).Type.Kind() != reflect.Func {
		return reflect.Value{}
	}
	w := v.Field(0)
	for w.Kind() == reflect.Interface && !w.IsNil() {
		w = w.Elem()
	}
	return w
}

// convertToHostInterface is the conversion of an interpreted value to a
// host interface type: the value in the interpreter's wrapper.
func convertToHostInterface(n *node) {
	next := getExec(n.tnext)
	value := genInterfaceWrapper(n.child[1], n.typ.TypeOf())
	dest := genValue(n)
	n.exec = func(f *frame) bltn {
		dest(f).Set(value(f))
		return next
	}
}

// genElemWrappers returns the elements of the slice or array n as a []any
// (the values of the map n as a map[K]any) of the wrappers of the host
// interface typ (fmt.Stringer, error), each with the element type's
// interpreted methods (byref).
func genElemWrappers(n *node, typ reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)
	wrapped := valueWrapper(n, n.typ.val, typ)
	if wrapped == nil {
		return value // a method that is not interpreted: leave the value alone
	}
	if n.typ.cat == mapT {
		return func(f *frame) reflect.Value {
			v := value(f)
			if v.IsNil() {
				return v
			}
			out := reflect.MakeMapWithSize(reflect.MapOf(v.Type().Key(), emptyInterfaceType), v.Len())
			for it := v.MapRange(); it.Next(); {
				out.SetMapIndex(plainKey(it.Key()), wrapped(f, it.Value()))
			}
			return out
		}
	}
	return func(f *frame) reflect.Value {
		v := value(f)
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = wrapped(f, v.Index(i)).Interface()
		}
		return reflect.ValueOf(out)
	}
}

// valueWrapper returns a function that puts a value of the interpreted type
// t in the wrapper of the host interface typ, with t's interpreted methods,
// or nil when one of them is not interpreted (byref).
func valueWrapper(n *node, t *itype, typ reflect.Type) func(*frame, reflect.Value) reflect.Value {
	elem := &node{interp: n.interp, typ: t, pos: n.pos, kind: identExpr, findex: notInFrame}
	wrap := getWrapper(elem, typ)
	mn := wrap.NumField() - 1
	methods := make([]*node, mn)
	indexes := make([][]int, mn)
	for i := range mn {
		methods[i], indexes[i] = elem.typ.lookupMethod(wrap.Field(i + 1).Name[1:])
		if methods[i] == nil {
			return nil
		}
	}
	return func(f *frame, e reflect.Value) reflect.Value {
		w := reflect.New(wrap).Elem()
		w.Field(0).Set(e)
		for j, m := range methods {
			nod := *m
			nod.recv = &receiver{val: e, index: indexes[j]}
			w.Field(j + 1).Set(genFunctionWrapper(&nod)(f))
		}
		return w
	}
}

// genWrapperEqual compiles n, an == (or != when not eq) with an operand of
// a host interface type (error) and neither one nil, comparing the values
// the interpreter's wrappers hold: a wrapper holds the methods as funcs,
// so comparing two of them (err == ErrNotFound, for var ErrNotFound =
// &NotFoundError{}) panicked with "comparing uncomparable type
// interp._error" (byref). It reports false when n is left to the generic
// code.
func genWrapperEqual(n *node, eq bool) bool {
	c0, c1 := n.child[0], n.child[1]
	if !isInterfaceBin(c0.typ) && !isInterfaceBin(c1.typ) || c0.typ.cat == nilT || c1.typ.cat == nilT ||
		n.typ.TypeOf().Kind() == reflect.Interface {
		return false
	}
	tnext := getExec(n.tnext)
	dest := genValueOutput(n, reflect.TypeOf(true))
	v0, v1 := genValue(c0), genValue(c1)
	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			if wrapperEqual(v0(f), v1(f)) == eq {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
		return true
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetBool(wrapperEqual(v0(f), v1(f)) == eq)
		return tnext
	}
	return true
}

// wrapperEqual reports whether a and b, each an interface value or a
// concrete one, hold the same dynamic type and value, looking through the
// interpreter's wrappers. It panics as Go does on an uncomparable type.
func wrapperEqual(a, b reflect.Value) bool {
	unwrap := func(v reflect.Value) any {
		for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if w := wrappedValue(v); w.IsValid() {
			v = w
		}
		if !v.IsValid() || v.Kind() == reflect.Interface {
			return nil
		}
		return valueInterfaceValue(v).Interface()
	}
	return unwrap(a) == unwrap(b)
}
