package interp

import (
	"iter"
	"reflect"
)

// byref: range over integers (Go 1.22) and over functions (Go 1.23), which
// yaegi v0.16.1 lacks.
//
// A range over an integer n counts from 0 to n-1 in a variable of n's type
// (int or rune, the default type, for an untyped constant); n is evaluated once.
//
// A range over a function f (func(yield func() bool), func(yield func(V)
// bool) or func(yield func(K, V) bool)) pulls the values f yields one at a
// time (iter.Pull2), so the loop body runs in the loop's own frame and
// break, continue, return and panics work as in any loop. The pull is
// stopped when the loop ends or is left by break, and, whatever way the
// function is left (return, panic, goto), when the function returns: each
// frame keeps the loop's pull in a slot and stops it from a deferred call.

// rangeIntKeyType is the type of the key of a range over an integer of
// type t.
func rangeIntKeyType(sc *scope, t *itype) *itype {
	if t.untyped {
		if t.TypeOf().Kind() == reflect.Int32 {
			return sc.getType("rune") // an untyped rune constant
		}
		return sc.getType("int")
	}
	return t
}

// isRangeInt reports whether t is an integer type.
func isRangeInt(t *itype) bool {
	rt := t.TypeOf()
	if rt == nil {
		return false
	}
	switch rt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func rangeInt(n *node) {
	k := n.child[0]
	index0 := k.findex
	index2 := index0 - 1 // the bound, just behind index0
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	value := genValue(n.child[1])
	if len(n.child) == 4 {
		value = genValue(n.child[2])
	}
	signed := true
	switch k.typ.TypeOf().Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		signed = false
	}
	if signed {
		n.exec = func(f *frame) bltn {
			rv := f.data[index0]
			i := rv.Int() + 1
			if i >= f.data[index2].Int() {
				return fnext
			}
			rv.SetInt(i)
			return tnext
		}
	} else {
		n.exec = func(f *frame) bltn {
			rv := f.data[index0]
			i := rv.Uint() + 1
			if i >= f.data[index2].Uint() || i == 0 {
				return fnext
			}
			rv.SetUint(i)
			return tnext
		}
	}
	k.exec = func(f *frame) bltn {
		kt := f.data[index0].Type()
		bound := reflect.New(kt).Elem()
		v := value(f)
		if isConstantValue(v.Type()) {
			v = reflect.ValueOf(vInt(v))
		}
		key := reflect.New(kt).Elem()
		if signed {
			bound.SetInt(v.Convert(reflect.TypeOf(int64(0))).Int())
			if bound.Int() <= 0 {
				f.data[index2] = bound
				return fnext
			}
			key.SetInt(0)
		} else {
			bound.SetUint(v.Convert(reflect.TypeOf(uint64(0))).Uint())
			if bound.Uint() == 0 {
				f.data[index2] = bound
				return fnext
			}
		}
		f.data[index2] = bound
		f.data[index0] = key
		return tnext
	}
}

// pull is the state of a range over a function in a frame.
type pull struct {
	next func() (reflect.Value, reflect.Value, bool)
	stop func()
}

var pullType = reflect.TypeOf((*pull)(nil))

// rangeFuncTypes returns the key and value types of a range over a
// function of type t, and whether t can be ranged over.
func rangeFuncTypes(t *itype) (k, v *itype, ok bool) {
	switch {
	case t.cat == funcT:
		if len(t.arg) != 1 || len(t.ret) != 0 {
			return nil, nil, false
		}
		y := t.arg[0]
		for y.cat == linkedT {
			y = y.val
		}
		switch {
		case y.cat == funcT:
			if len(y.ret) != 1 || len(y.arg) > 2 {
				return nil, nil, false
			}
			if len(y.arg) > 0 {
				k = y.arg[0]
			}
			if len(y.arg) > 1 {
				v = y.arg[1]
			}
			return k, v, true
		case y.cat == valueT:
			return rangeFuncRTypes(reflect.FuncOf([]reflect.Type{y.rtype}, nil, false))
		}
	case t.cat == linkedT:
		return rangeFuncTypes(t.val)
	case t.cat == valueT && t.rtype.Kind() == reflect.Func:
		return rangeFuncRTypes(t.rtype)
	}
	return nil, nil, false
}

func rangeFuncRTypes(rt reflect.Type) (k, v *itype, ok bool) {
	if rt.NumIn() != 1 || rt.NumOut() != 0 || rt.In(0).Kind() != reflect.Func {
		return nil, nil, false
	}
	y := rt.In(0)
	if y.NumOut() != 1 || y.Out(0).Kind() != reflect.Bool || y.NumIn() > 2 {
		return nil, nil, false
	}
	if y.NumIn() > 0 {
		k = valueTOf(y.In(0))
	}
	if y.NumIn() > 1 {
		v = valueTOf(y.In(1))
	}
	return k, v, true
}

func rangeFunc(n *node) {
	k := n.child[0]
	index0 := k.findex
	index2 := index0 - 1 // the pull, just behind index0
	index1 := -1
	o := n.child[1]
	if len(n.child) == 4 {
		index1 = n.child[1].findex
		o = n.child[2]
	}
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	var value func(*frame) reflect.Value
	if isFuncSrc(o.typ) {
		value = genFunctionWrapper(o)
	} else {
		value = genValue(o)
	}
	n.exec = func(f *frame) bltn {
		p, _ := f.data[index2].Interface().(*pull)
		kv, vv, ok := p.next()
		if !ok {
			p.stop()
			return fnext
		}
		if kv.IsValid() && f.data[index0].IsValid() {
			f.data[index0].Set(kv)
		}
		if vv.IsValid() && index1 >= 0 {
			f.data[index1].Set(vv)
		}
		return tnext
	}
	next := n.exec
	k.exec = func(f *frame) bltn {
		fn := value(f)
		if old, _ := f.data[index2].Interface().(*pull); old != nil {
			old.stop()
		} else {
			// The first run of this loop in this frame: stop its pull
			// when the function returns, however it is left.
			slot := f.data[index2]
			f.deferred = append([][]reflect.Value{{reflect.ValueOf(func() {
				if p, _ := slot.Interface().(*pull); p != nil {
					p.stop()
				}
			})}}, f.deferred...)
		}
		f.data[index2].Set(reflect.ValueOf(newPull(fn)))
		return next
	}
}

// newPull starts pulling the values the iterator function fn yields.
func newPull(fn reflect.Value) *pull {
	yt := fn.Type().In(0)
	seq := func(yield func(reflect.Value, reflect.Value) bool) {
		y := reflect.MakeFunc(yt, func(args []reflect.Value) []reflect.Value {
			var k, v reflect.Value
			if len(args) > 0 {
				k = args[0]
			}
			if len(args) > 1 {
				v = args[1]
			}
			return []reflect.Value{reflect.ValueOf(yield(k, v)).Convert(yt.Out(0))}
		})
		fn.Call([]reflect.Value{y})
	}
	next, stop := iter.Pull2(seq)
	return &pull{next: next, stop: stop}
}

// rangeFuncEnd is the exec of the for statement around a range over a
// function: whether the loop ended or was left by break, its pull stops.
func rangeFuncEnd(n *node) {
	next := getExec(n.tnext)
	index2 := n.child[0].child[0].findex - 1
	n.exec = func(f *frame) bltn {
		if p, _ := f.data[index2].Interface().(*pull); p != nil {
			p.stop()
		}
		return next
	}
}
