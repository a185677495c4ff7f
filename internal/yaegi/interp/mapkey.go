package interp

import (
	"reflect"
	"strconv"
	"sync"

	"github.com/byref/byref/internal/yaegi/unsafe2"
)

// byref: interface values as map keys and in comparisons.
//
// The interpreter keeps a value of an interpreted type with methods in an
// interface as a valueInterface, a struct of the node that gives its type
// and a reflect.Value. Go hashes and compares such a struct by its fields:
// the node pointer differs from one expression to the next and the
// reflect.Value points to a copy of the value, so two equal interface
// values were never equal (any(C(1)) == any(C(1)) was false, a map[I]int
// got one entry per assignment of the same key), and a map keyed by a
// non-empty interpreted interface refused a concrete key outright
// (reflect.Value.MapIndex: value of type int is not assignable to type
// interp.valueInterface).
//
// Now a map whose key type is an interpreted interface has interface{}
// keys in reflect (refType, frameType), and a key is stored in its
// comparable form (mapKey): the value itself, or, for a value of an
// interpreted type with methods, an ifaceKey of the type's name and the
// value, so that equal keys are equal as Go has them. The interpreter
// remembers the node of each type it made a key of (keyNodes), to give a
// key read back by a range its valueInterface again. == and != between
// interface values compare the same comparable forms (ifaceEqual).

// ifaceKey is the comparable form of a value of an interpreted type with
// methods in an interface: its type's name and the value.
type ifaceKey struct {
	typ string
	val any
}

// hasIfaceKey reports whether a value of type t is kept in an interface as
// a valueInterface that names its type, so its comparable form is an
// ifaceKey: t is interpreted and has methods.
func hasIfaceKey(t *itype) bool {
	return t != nil && t.cat != valueT && t.cat != nilT && !isInterfaceSrc(t) && (len(t.method) > 0 || namedPlain(t))
}

// boxedInIface reports whether a value of type t (or, for a conversion to
// an interface, of its operand's type) is kept in an interface as a
// valueInterface: its type has methods, or is a named type that reflect
// does not tell from its underlying type (namedPlain).
func boxedInIface(t *itype) bool {
	t = dynamicTypeOf(t)
	return t != nil && (len(t.method) > 0 || namedPlain(t))
}

// namedPlain reports whether t is a type the snippet declared, without
// methods, whose values reflect gives the type of its underlying type
// (type MyInt int, type L []string): in an interface, such a value is
// boxed with its type, so that any(MyInt(1)) != any(1) and the two are
// two keys of a map[any]int, as in Go. Struct types are told apart by
// reflect already (identity.go).
func namedPlain(t *itype) bool {
	if t == nil || t.name == "" || t.path == "" || len(t.method) > 0 {
		return false
	}
	u := t
	for u.cat == linkedT && u.val != nil {
		u = u.val
	}
	switch u.cat {
	case structT, interfaceT, valueT, nilT, errorT, genericT, linkedT:
		return false
	}
	return true
}

// dynamicTypeOf returns the concrete type a node of type t gives the value
// it puts in an interface: t itself, or for a conversion to an interface
// (I(S{2})), whose node has the interface type, the converted operand's
// type it keeps in val. The comparable form of an interface value depends
// on its dynamic type alone: a key stored through I(S{2}) was the bare
// struct and one stored as S{2} an ifaceKey, so the two missed each other.
func dynamicTypeOf(t *itype) *itype {
	for t != nil && isInterfaceSrc(t) && t.val != nil && t.val != t {
		t = t.val
	}
	return t
}

// staticConcrete returns the concrete type of the values a node of type t
// gives, or nil when t is an interface that may hold any. A conversion
// I(S{2}) gives the bare S value in a node of type I: its concrete type
// is S (dynamicTypeOf).
func staticConcrete(t *itype) *itype {
	if t = dynamicTypeOf(t); t != nil && !isInterfaceSrc(t) {
		return t
	}
	return nil
}

// keyOf returns the comparable form of v, a value of the static type t (nil
// when v comes from an interface), and the node of its dynamic type, if
// any.
func keyOf(v reflect.Value, t *itype) (any, *node) { return comparableOf(v, t, false) }

// comparableOf is keyOf; with canon, a struct or array holding interface
// values is given in its comparable form (canonValue), for ==: a map key
// keeps its own type, to be read back by a range.
func comparableOf(v reflect.Value, t *itype, canon bool) (any, *node) {
	var nod *node
	for v.IsValid() {
		if v.Kind() == reflect.Interface {
			if v.IsNil() {
				return nil, nil
			}
			v = v.Elem()
			continue
		}
		vi, ok := v.Interface().(valueInterface)
		if !ok {
			break
		}
		if vi.node == nil {
			return nil, nil
		}
		nod, t, v = vi.node, dynamicTypeOf(vi.node.typ), vi.value
	}
	if !v.IsValid() {
		return nil, nil
	}
	x := v.Interface()
	if vi, ok := x.(valueInterface); ok && vi.node == nil {
		return nil, nil
	}
	if !v.Type().Comparable() {
		panic(runtimeError("hash of unhashable type " + goTypeName(v.Type(), t)))
	}
	if k := v.Kind(); canon && (k == reflect.Struct || k == reflect.Array) && holdsBox(v.Type()) {
		x = canonValue(v) // interface values in its fields or elements
	}
	if hasIfaceKey(t) {
		return ifaceKey{t.id(), x}, nod
	}
	return x, nod
}

// canonValue returns the comparable form of the struct or array v whose
// fields or elements hold interface values: a value of a struct type of
// the same shape whose fields are each one's comparable form, so that ==
// compares them as Go does.
func canonValue(v reflect.Value) any {
	n := v.Len
	at := func(i int) reflect.Value { return v.Index(i) }
	if v.Kind() == reflect.Struct {
		n = v.NumField
		at = func(i int) reflect.Value { return unsafe2.Exported(v.Field(i)) }
	}
	fields := make([]reflect.StructField, n())
	vals := make([]any, n())
	for i := range fields {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: emptyInterfaceType}
		vals[i], _ = comparableOf(at(i), nil, true)
	}
	out := reflect.New(reflect.StructOf(fields)).Elem()
	for i, x := range vals {
		if x != nil {
			out.Field(i).Set(reflect.ValueOf(x))
		}
	}
	return out.Interface()
}

// goTypeName is the name Go gives the dynamic type of a value of reflect type
// rt and interpreted type t (nil if unknown).
func goTypeName(rt reflect.Type, t *itype) string {
	if t != nil && !isInterfaceSrc(t) && t.cat != valueT && t.str != "" {
		return t.id()
	}
	if name, ok := rtypeNames.Load(rt); ok && name != "" {
		return name.(string)
	}
	return rt.String()
}

// rtypeNames maps a struct type reflect built for a named interpreted type
// to that type's name, or to "" when types of different names share it
// (refType records them; typeName reads them for Go's panic messages).
var rtypeNames sync.Map

func recordTypeName(rt reflect.Type, name string) {
	if rt == nil || rt.Name() != "" || rt.Kind() != reflect.Struct || name == "" {
		return
	}
	if old, loaded := rtypeNames.LoadOrStore(rt, name); loaded && old != name {
		rtypeNames.Store(rt, "")
	}
}

// isIfaceMap reports whether t is (or names) a map type of the interpreter
// whose key type is an interface.
func isIfaceMap(t *itype) bool {
	for t != nil && t.cat == linkedT {
		t = t.val
	}
	return t != nil && t.cat == mapT && isInterfaceSrc(t.key)
}

// mapKeyType returns the interpreted key type of the map type t.
func mapKeyType(t *itype) *itype {
	for t.cat == linkedT {
		t = t.val
	}
	return t.key
}

// genMapKey returns the key n of the map m as the map stores it.
func genMapKey(m, n *node) func(*frame) reflect.Value {
	if !isIfaceMap(m.typ) {
		return genValue(n)
	}
	interp := n.interp
	t := staticConcrete(n.typ) // the static type, when not an interface
	if n.typ != nil && n.typ.cat == nilT {
		z := reflect.Zero(emptyInterfaceType)
		return func(*frame) reflect.Value { return z }
	}
	value := genValue(n)
	return func(f *frame) reflect.Value {
		k, nod := keyOf(value(f), t)
		if k == nil {
			return reflect.Zero(emptyInterfaceType)
		}
		if nod == nil && t != nil {
			nod = n
		}
		if nod != nil {
			interp.rememberKeyNode(k, nod)
		}
		return reflect.ValueOf(k)
	}
}

// rememberKeyNode records nod as the node of the dynamic type of the key k.
func (interp *Interpreter) rememberKeyNode(k any, nod *node) {
	var id any
	if ik, ok := k.(ifaceKey); ok {
		id = ik.typ
	} else {
		id = reflect.TypeOf(k)
	}
	if old, ok := interp.keyNodes.Load(id); ok && old.(*node).typ == nod.typ {
		return
	}
	interp.keyNodes.Store(id, nod)
}

// genKeyOut returns a function giving a key of the map of type m, read
// back from the map, as a value of the map's key type.
func genKeyOut(interp *Interpreter, m *itype) func(reflect.Value) reflect.Value {
	if !isIfaceMap(m) {
		return nil
	}
	empty := isEmptyInterface(mapKeyType(m))
	return func(k reflect.Value) reflect.Value {
		if k.Kind() == reflect.Interface {
			if k.IsNil() {
				if empty {
					return k
				}
				return zeroInterfaceValue()
			}
			k = k.Elem()
		}
		x := k.Interface()
		var id any
		if ik, ok := x.(ifaceKey); ok {
			id, k = ik.typ, reflect.ValueOf(ik.val)
		} else if empty {
			return k
		} else {
			id = k.Type()
		}
		var nod *node
		if v, ok := interp.keyNodes.Load(id); ok {
			nod = v.(*node)
		} else {
			nod = &node{interp: interp, typ: valueTOf(k.Type()), kind: identExpr, findex: notInFrame}
		}
		return reflect.ValueOf(valueInterface{nod, k})
	}
}

// ifaceEqual reports whether the interface values a and b, of the static
// types ta and tb (nil for an interface), are equal as Go has them.
func ifaceEqual(a, b reflect.Value, ta, tb *itype) bool {
	ka, _ := compareKey(a, ta)
	kb, _ := compareKey(b, tb)
	return ka == kb
}

// compareKey is keyOf with Go's panic for a comparison.
func compareKey(v reflect.Value, t *itype) (k any, nod *node) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(runtimeError); ok && len(e) > 24 && e[:24] == "hash of unhashable type " {
				panic(runtimeError("comparing uncomparable type " + string(e[24:])))
			}
			panic(r)
		}
	}()
	return comparableOf(v, t, true)
}

// holdsBoxedFields reports whether t is an interpreted struct or array
// type whose values hold interface values.
func holdsBoxedFields(t *itype) bool {
	if t == nil || t.cat == valueT || t.cat == nilT {
		return false
	}
	rt := t.TypeOf()
	return rt != nil && (rt.Kind() == reflect.Struct && rt != valueInterfaceType || rt.Kind() == reflect.Array) && holdsBox(rt)
}

// genIfaceEqual compiles n, an == (or != when not eq) with an operand of
// an interpreted interface type, as ifaceEqual. It reports false when n
// is left to the generic code.
func genIfaceEqual(n *node, eq bool) bool {
	c0, c1 := n.child[0], n.child[1]
	if !isInterfaceSrc(c0.typ) && !isInterfaceSrc(c1.typ) && !holdsBoxedFields(c0.typ) || n.typ.TypeOf().Kind() == reflect.Interface {
		return false
	}
	t0, t1 := staticConcrete(c0.typ), staticConcrete(c1.typ)
	tnext := getExec(n.tnext)
	dest := genValueOutput(n, reflect.TypeOf(true))
	v0, v1 := genValue(c0), genValue(c1)
	if n.fnext != nil {
		fnext := getExec(n.fnext)
		n.exec = func(f *frame) bltn {
			if ifaceEqual(v0(f), v1(f), t0, t1) == eq {
				dest(f).SetBool(true)
				return tnext
			}
			dest(f).SetBool(false)
			return fnext
		}
		return true
	}
	n.exec = func(f *frame) bltn {
		dest(f).SetBool(ifaceEqual(v0(f), v1(f), t0, t1) == eq)
		return tnext
	}
	return true
}

// plainKey returns the value a map key stands for: an ifaceKey's value.
func plainKey(k reflect.Value) reflect.Value {
	if k.Kind() == reflect.Interface && !k.IsNil() {
		if ik, ok := k.Elem().Interface().(ifaceKey); ok {
			return reflect.ValueOf(ik.val)
		}
	}
	return k
}

// genPlainKeys returns the map n, keyed by an interface, as a copy whose
// keys are the values they stand for, for fmt to print, a key of a type
// with a String or Error method as a keyProxy (the map itself when two
// keys stand for the same value).
func genPlainKeys(n *node, getMapType func(*itype) reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)
	return func(f *frame) reflect.Value {
		v := value(f)
		if v.IsNil() {
			return v
		}
		c := unboxer{interp: n.interp, f: f, getMapType: getMapType}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(c.interfaceKey(it.Key()), it.Value())
		}
		if out.Len() < v.Len() {
			return v // keys of two types with one value (C(1) and 1): keep them apart
		}
		return out
	}
}

// interfaceKey returns the key k of a map keyed by an interface as fmt is
// to print it: the value it stands for, as a keyProxy when its type has a
// String or Error method.
func (c *unboxer) interfaceKey(k reflect.Value) reflect.Value {
	if k.Kind() == reflect.Interface && !k.IsNil() {
		if ik, ok := k.Elem().Interface().(ifaceKey); ok && c.interp != nil {
			if nod, ok := c.interp.keyNodes.Load(ik.typ); ok && proxiesKey(nod.(*node).typ, c.getMapType) {
				return c.keyProxy(reflect.ValueOf(ik.val), nod.(*node).typ)
			}
		}
	}
	return plainKey(k)
}
