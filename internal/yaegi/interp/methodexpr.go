package interp

import "reflect"

// byref: method expressions (T.M, (*T).M, I.M), which yaegi v0.16.1
// compiled as a method value without a receiver ("too many arguments").
// A method expression is a function whose first parameter is the
// receiver: for a host type it is reflect's method function; for an
// interpreted type or an interface it is a function made when the
// expression is evaluated, which binds the receiver it is given to the
// method at each call.

// methodExprInfo is what the generated function needs.
type methodExprInfo struct {
	name  string
	m     *node // the interpreted method, nil for an interface
	index []int
	iface bool // the receiver is an interface value
}

// methodExpr compiles n, the selector recv.name where recv is a type, as
// a method expression, and reports whether it is one.
func methodExpr(sc *scope, n *node, recv *itype, name string) bool {
	if recv == nil {
		return false
	}
	// Host types, and pointers to them: reflect has the function.
	if rt := hostRecvType(recv); rt != nil {
		m, ok := rt.MethodByName(name)
		if !ok || rt.Kind() == reflect.Interface {
			if ok && rt.Kind() == reflect.Interface {
				return methodExprIface(sc, n, recv, name, funcOf(append([]*itype{recv}, valueTOf(m.Type).arg...), valueTOf(m.Type).ret))
			}
			return false
		}
		n.typ = valueTOf(m.Func.Type())
		n.rval = m.Func
		n.gen = nop
		n.findex = notInFrame
		n.recv = nil
		return true
	}
	if isInterfaceSrc(recv) {
		ti := recv.lookupField(name)
		if len(ti) == 0 {
			return false
		}
		mt := recv.fieldSeq(ti)
		if mt == nil || mt.cat != funcT {
			return false
		}
		return methodExprIface(sc, n, recv, name, funcOf(append([]*itype{recv}, mt.arg...), mt.ret))
	}
	m, index := recv.lookupMethod(name)
	if m == nil || m.typ == nil || m.typ.cat != funcT {
		return false
	}
	n.typ = funcOf(append([]*itype{recv}, m.typ.arg...), m.typ.ret, withNode(exprTypeNode(n)))
	n.val = &methodExprInfo{name: name, m: m, index: index}
	n.findex = sc.add(n.typ)
	n.recv = nil
	n.gen = genMethodExpr
	return true
}

func methodExprIface(sc *scope, n *node, recv *itype, name string, t *itype) bool {
	t.node = exprTypeNode(n)
	n.typ = t
	n.val = &methodExprInfo{name: name, iface: true}
	n.findex = sc.add(n.typ)
	n.recv = nil
	n.gen = genMethodExpr
	return true
}

// hostRecvType is the reflect type of a host receiver type (T or *T), or
// nil for an interpreted one.
func hostRecvType(t *itype) reflect.Type {
	switch {
	case t.cat == valueT:
		return t.rtype
	case t.cat == ptrT && t.val.cat == valueT:
		return reflect.PointerTo(t.val.rtype)
	}
	return nil
}

func genMethodExpr(n *node) {
	next := getExec(n.tnext)
	info := n.val.(*methodExprInfo)
	ftype := n.typ.TypeOf()
	dest := genValue(n)
	// A variadic method gets its variadic arguments as the slice
	// MakeFunc packed them in, and passes them on as one.
	call := reflect.Value.Call
	if ftype.IsVariadic() {
		call = reflect.Value.CallSlice
	}
	n.exec = func(f *frame) bltn {
		fn := reflect.MakeFunc(ftype, func(in []reflect.Value) []reflect.Value {
			return callMethod(f, info, in[0], in[1:], call)
		})
		dest(f).Set(fn)
		return next
	}
}

// callMethod calls the method of info on recv with args, by call
// (reflect.Value.Call, or CallSlice for a variadic method).
func callMethod(f *frame, info *methodExprInfo, recv reflect.Value, args []reflect.Value, call func(reflect.Value, []reflect.Value) []reflect.Value) []reflect.Value {
	m, index := info.m, info.index
	if info.iface {
		for recv.Kind() == reflect.Interface && !recv.IsNil() {
			recv = recv.Elem()
		}
		vi, ok := recv.Interface().(valueInterface)
		if !ok {
			if !recv.IsValid() {
				panic(nilDeref)
			}
			return call(recv.MethodByName(info.name), args)
		}
		if vi.node == nil {
			panic(nilDeref)
		}
		m, index = vi.node.typ.lookupMethod(info.name)
		recv = vi.value
		if m == nil {
			return call(recv.MethodByName(info.name), args)
		}
	}
	nod := *m
	nod.recv = &receiver{val: recv, index: index}
	return call(genFunctionWrapper(&nod)(f), args)
}

// exprTypeNode is the node a method expression's func type refers to: not
// a declaration, not generic.
func exprTypeNode(n *node) *node {
	return &node{anc: n, interp: n.interp, pos: n.pos, kind: funcType, findex: notInFrame}
}

// bindRecv is the receiver src of a method value or of an interface
// wrapper's method, as the method of receiver type dest takes it,
// evaluated now: the address of an addressable value for a pointer
// receiver, a copy of a value for a value receiver. For a method value
// (methodValue), p.M of a value method is (*p).M: the pointee is copied
// now, and a nil p panics now, as Go does. Otherwise a pointer stays a
// pointer, dereferenced at each call (derefRecv): an interface holding a
// pointer sees the pointee as it is then (byref).
func bindRecv(src reflect.Value, dest reflect.Type, methodValue bool) reflect.Value {
	for {
		vs, ok := src.Interface().(valueInterface)
		if !ok {
			break
		}
		src = vs.value
	}
	sk, dk := src.Kind(), dest.Kind()
	switch {
	case sk == reflect.Ptr && dk != reflect.Ptr && methodValue && src.Type().Elem() == dest:
		// p.M of a value method is (*p).M: *p is evaluated, and copied,
		// when the method value is, so a nil p panics there.
		if src.IsNil() {
			panic(nilDeref)
		}
		c := reflect.New(dest).Elem()
		c.Set(src.Elem())
		return c
	case sk == reflect.Ptr && src.CanAddr():
		// The pointer as it is now: src may be a frame slot that the next
		// iteration of a loop overwrites (every error wrapper made by
		// errs = append(errs, a.(*E)) in a loop called the last one's
		// Error).
		c := reflect.New(src.Type()).Elem()
		c.Set(src)
		return c
	case sk == reflect.Ptr:
		return src
	case dk == reflect.Ptr:
		if src.CanAddr() {
			return src.Addr()
		}
		p := reflect.New(src.Type())
		p.Elem().Set(src)
		return p
	}
	c := reflect.New(dest).Elem()
	c.Set(src)
	return c
}

// derefRecv is a bound receiver as a method of receiver type dest takes it
// at a call (byref).
func derefRecv(bound reflect.Value, dest reflect.Type) reflect.Value {
	if bound.Kind() == reflect.Ptr && dest.Kind() != reflect.Ptr {
		if bound.IsNil() {
			panic(nilDeref)
		}
		return bound.Elem()
	}
	return bound
}
