package interp

import (
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/byref/byref/internal/yaegi/unsafe2"
)

// byref: a value of an interpreted type with methods inside an interface
// reaches fmt, encoding/json and encoding/xml as itself.
//
// The interpreter keeps such a value in an interface as a valueInterface
// (the node giving its type and a reflect.Value). callBin unboxed it only
// as a direct argument of type fmt.Stringer or error; anywhere else (an
// argument of type any, an element of a []any or []I, a value of a
// map[string]any, a field of type any) the box itself reached the host
// function, so fmt printed `{0xc000123 {0x9a 0xc000456 130}}` and
// json.Marshal reported a cycle. Now the arguments of the functions with
// MapTypes (fmt's printing functions, json and xml's Marshal...) are
// copied, where they hold such boxes, with each box replaced by its value,
// or by its wrapper with its String or Error method when the function's
// MapTypes name one (hostValue). Pointers are not followed: fmt prints
// a nested pointer as an address, and a pointer argument is the
// destination of Unmarshal.

// hostValue returns v with the valueInterface boxes it holds replaced, and
// whether there was any. v itself may be a box.
func hostValue(interp *Interpreter, f *frame, getMapType func(*itype) reflect.Type, v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || !needsCopy(v.Type()) {
		return v, false
	}
	c := unboxer{interp: interp, f: f, getMapType: getMapType}
	hv, changed := c.value(v, nil, 0)
	if c.abort {
		return v, false
	}
	return hv, changed
}

// genHostValue returns value, a value of n's type t (or a pointer to one,
// for fmt's functions) that holds, below its top level, values of interpreted types with a method the MapTypes of
// the called function name (a map of structs holding Stringers), as a
// copy in which each of them is in its wrapper with the method, in a slot
// of type any; fmt printed their fields. It returns value itself when t
// holds none (see wrapsBelow).
func genHostValue(n *node, getMapType func(*itype) reflect.Type, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	t := n.typ
	if getMapType == nil || !wrapsBelow(t, getMapType, 0, map[*itype]bool{}) {
		return value
	}
	pointee := isPtrSrc(t)
	if pointee {
		for t.cat == linkedT {
			t = t.val
		}
		t = t.val
	}
	return func(f *frame) reflect.Value {
		v := value(f)
		w := v
		if pointee {
			if v.Kind() != reflect.Pointer || v.IsNil() {
				return v
			}
			w = v.Elem()
		}
		c := unboxer{interp: n.interp, f: f, getMapType: getMapType}
		hv, changed := c.value(w, t, 0)
		if !changed || !hv.IsValid() || c.abort {
			return v
		}
		if pointee {
			p := reflect.New(hv.Type())
			p.Elem().Set(hv)
			return p
		}
		return hv
	}
}

// printsPointee reports whether the MapTypes lr are fmt's: a pointer
// argument is only printed, as &{...} (fmt.Stringer is among them), not
// written through (json.Unmarshal's name Unmarshalers).
func printsPointee(lr []reflect.Type) bool {
	for _, rt := range lr {
		if rt == stringerType {
			return true
		}
	}
	return false
}

var stringerType = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()

// wrapsBelow reports whether a value of type t holds, below depth 0 and
// not behind a pointer, a value of an interpreted type that getMapType
// gives a wrapper.
func wrapsBelow(t *itype, getMapType func(*itype) reflect.Type, depth int, seen map[*itype]bool) bool {
	if t == nil || seen[t] || depth > 8 {
		return false
	}
	if depth > 0 && hasWrapper(t, getMapType) {
		return true
	}
	seen[t] = true
	defer delete(seen, t)
	u := t
	for u.cat == linkedT {
		u = u.val
	}
	switch u.cat {
	case ptrT:
		if depth == 0 { // an argument's pointee, which fmt prints as &{...}
			return wrapsBelow(u.val, getMapType, 0, seen) || marksBelow(u.val)
		}
	case sliceT, arrayT:
		return wrapsBelow(u.val, getMapType, depth+1, seen)
	case mapT:
		return proxiesKey(u.key, getMapType) || wrapsBelow(u.val, getMapType, depth+1, seen)
	case structT:
		for _, fl := range u.field {
			if canExport(fl.name) && wrapsBelow(fl.typ, getMapType, depth+1, seen) {
				return true
			}
		}
	}
	return false
}

// marksBelow reports whether a value of the struct type t holds a value of
// a declared struct type without fields (identity.go), which fmt's copy
// presents as struct{}.
func marksBelow(t *itype) bool {
	rt := t.TypeOf()
	return rt != nil && rt.Kind() == reflect.Struct && boxInfoOf(rt).marks
}

// hasWrapper reports whether a value of type t, in a slot of type any,
// reaches the host function in a wrapper with its methods.
func hasWrapper(t *itype, getMapType func(*itype) reflect.Type) bool {
	return t != nil && t.cat != valueT && t.cat != nilT && !isInterfaceSrc(t) && getMapType(t) != nil
}

// unboxer replaces the valueInterface boxes of a value, and the values of
// interpreted types with methods by their wrappers when their types are
// known.
type unboxer struct {
	interp     *Interpreter // for the wrappers' nodes
	f          *frame
	getMapType func(*itype) reflect.Type
	wrappers   map[*itype]func(*frame, reflect.Value) reflect.Value
	types      map[typedKey]reflect.Type
	below      map[*itype]bool
	raw        bool // below an unexported field, where fmt calls no method
	inHost     bool // below a host struct (a wrapper): values stay as they are

	// onPath holds the slices and maps being copied; abort is set on a
	// cycle or a nesting beyond maxUnboxDepth, and the value is then left
	// as it is, for the sandbox's print check to refuse.
	onPath map[pathKey]bool
	abort  bool
}

// pathKey identifies a slice or a map on the path of the copy.
type pathKey struct {
	ptr uintptr
	n   int
	t   reflect.Type
}

// enter marks v (a slice or a map) on the path, or aborts on a cycle; the
// caller calls the returned func when done.
func (c *unboxer) enter(v reflect.Value) (leave func(), ok bool) {
	k := pathKey{v.Pointer(), 0, v.Type()}
	if v.Kind() == reflect.Slice {
		k.n = v.Len()
	}
	if c.onPath[k] {
		c.abort = true
		return nil, false
	}
	if c.onPath == nil {
		c.onPath = map[pathKey]bool{}
	}
	c.onPath[k] = true
	return func() { delete(c.onPath, k) }, true
}

// typedKey is a reflect type with the interpreted type of its values.
type typedKey struct {
	rt reflect.Type
	t  *itype
}

// wrapsBelow is wrapsBelow for the function's MapTypes, remembered by type.
func (c *unboxer) wrapsBelow(t *itype) bool {
	if w, ok := c.below[t]; ok {
		return w
	}
	if c.below == nil {
		c.below = map[*itype]bool{}
	}
	w := wrapsBelow(t, c.getMapType, 0, map[*itype]bool{})
	c.below[t] = w
	return w
}

// maxUnboxDepth bounds the nesting unboxer follows (fmt's checks refuse
// deeper values anyway).
const maxUnboxDepth = 1000

// value returns v, of the interpreted type t (nil when unknown), with its
// boxes replaced, as a value assignable to a slot of type c.hostType(v's
// type, t), and whether it changed.
func (c *unboxer) value(v reflect.Value, t *itype, depth int) (reflect.Value, bool) {
	if depth > maxUnboxDepth {
		c.abort = true
	}
	if !v.IsValid() || c.abort {
		return v, false
	}
	rt := v.Type()
	if t != nil && depth > 0 && !c.raw && hasWrapper(t, c.getMapType) {
		nilPtr := rt.Kind() == reflect.Pointer && v.IsNil()
		if w := c.wrapper(t); w != nil && (!nilPtr || c.forFmt(t)) {
			// (a nil pointer stays one for json, which writes null)
			return c.proxy(t, v, w(c.f, v)), true
		}
	}
	if t == nil && rt.Kind() == reflect.Struct && depth > 0 && !c.raw {
		// a value of a snippet struct type without methods in an
		// interface is not boxed: its type is found by its reflect type
		if st := c.interp.structTypeOf(rt); st != nil && c.wrapsBelow(st) {
			t = st
		}
	}
	if t == nil && !needsCopy(rt) {
		return v, false
	}
	switch {
	case rt == valueInterfaceType:
		return c.unbox(v.Interface().(valueInterface), depth), true
	case rt.Kind() == reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		return c.value(v.Elem(), nil, depth+1)
	}
	u := t
	for u != nil && u.cat == linkedT {
		u = u.val
	}
	ht := c.hostType(rt, t)
	switch rt.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(ht), ht != rt
		}
		leave, ok := c.enter(v)
		if !ok {
			return v, false
		}
		defer leave()
		return c.elems(v, ht, elemType(u), depth)
	case reflect.Array:
		return c.elems(v, ht, elemType(u), depth)
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(ht), ht != rt
		}
		leave, ok := c.enter(v)
		if !ok {
			return v, false
		}
		defer leave()
		var kt, et *itype
		if u != nil && u.cat == mapT {
			kt, et = u.key, u.val
		}
		proxy := !c.raw && proxiesKey(kt, c.getMapType)
		out := reflect.MakeMapWithSize(ht, v.Len())
		changed := ht != rt
		for it := v.MapRange(); it.Next(); {
			k0 := plainKey(it.Key())
			k, kc := c.value(k0, nil, depth+1) // a key stays comparable: no wrapper
			if !c.raw && k0 != it.Key() {
				k = c.interfaceKey(it.Key()) // a key of a map keyed by an interface
			}
			if proxy {
				k, kc = c.keyProxy(k0, kt), true
			}
			e, ec := c.value(it.Value(), et, depth+1)
			changed = changed || kc || ec || k0 != it.Key()
			out.SetMapIndex(setIn(k, ht.Key()), setIn(e, ht.Elem()))
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Pointer:
		if !v.IsNil() && !c.inHost && isIdentityStruct(rt.Elem()) {
			return reflect.New(emptyStructType), true // &{} (identity.go)
		}
	case reflect.Struct:
		if ht.Kind() == reflect.Struct && ht.NumField() == 0 && rt.NumField() > 0 {
			if c.inHost {
				return v, false // the value a wrapper holds keeps its type
			}
			return reflect.Zero(ht), true // a declared struct without fields (identity.go)
		}
		if _, ok := rt.FieldByName("IValue"); ok && rt.Name() != "" {
			// a method wrapper (an error's): errors.Is and errors.As
			// read the value it holds
			inHost := c.inHost
			c.inHost = true
			defer func() { c.inHost = inHost }()
		}
		fields := structFields(u, rt)
		out := reflect.New(ht).Elem()
		changed := ht != rt
		for i := range rt.NumField() {
			var ft *itype
			if fields != nil {
				ft = fields[i].typ
			}
			raw := c.raw
			if !rt.Field(i).IsExported() {
				// fmt reaches no method below an unexported field
				c.raw, ft = true, nil
			}
			e, ec := c.value(unsafe2.Exported(v.Field(i)), ft, depth+1)
			c.raw = raw
			changed = changed || ec
			unsafe2.Exported(out.Field(i)).Set(setIn(e, ht.Field(i).Type))
		}
		if !changed {
			return v, false
		}
		return out, true
	}
	return v, false
}

// elemType is the element type of the slice or array type u, or nil.
func elemType(u *itype) *itype {
	if u != nil && (u.cat == sliceT || u.cat == arrayT) {
		return u.val
	}
	return nil
}

// structFields returns the fields of the struct type u when they match
// the reflect type rt one to one, or nil.
func structFields(u *itype, rt reflect.Type) []structField {
	if u == nil || u.cat != structT || len(u.field) != rt.NumField() {
		return nil
	}
	return u.field
}

// hostType returns the type of the copy value makes of a value of
// reflect type rt and interpreted type t: rt with valueInterface replaced
// by interface{}, and the slots of values that go in a wrapper made
// interface{} too.
func (c *unboxer) hostType(rt reflect.Type, t *itype) reflect.Type {
	if t == nil {
		return hostType(rt)
	}
	key := typedKey{rt, t}
	if ht, ok := c.types[key]; ok {
		return ht
	}
	if c.types == nil {
		c.types = map[typedKey]reflect.Type{}
	}
	c.types[key] = rt // a recursive type: as it is
	ht := c.computeHostType(rt, t)
	c.types[key] = ht
	return ht
}

func (c *unboxer) computeHostType(rt reflect.Type, t *itype) reflect.Type {
	slot := func(rt reflect.Type, t *itype) reflect.Type {
		if hasWrapper(t, c.getMapType) {
			return emptyInterfaceType
		}
		return c.hostType(rt, t)
	}
	u := t
	for u.cat == linkedT {
		u = u.val
	}
	switch rt.Kind() {
	case reflect.Slice:
		if et := elemType(u); et != nil {
			if e := slot(rt.Elem(), et); e != rt.Elem() {
				return reflect.SliceOf(e)
			}
		}
	case reflect.Array:
		if et := elemType(u); et != nil {
			if e := slot(rt.Elem(), et); e != rt.Elem() {
				return reflect.ArrayOf(rt.Len(), e)
			}
		}
	case reflect.Map:
		if u.cat == mapT {
			k, e := hostType(rt.Key()), slot(rt.Elem(), u.val)
			if proxiesKey(u.key, c.getMapType) {
				k = keyProxyType
			}
			if k != rt.Key() || e != rt.Elem() {
				return reflect.MapOf(k, e)
			}
		}
	case reflect.Struct:
		if fl := structFields(u, rt); fl != nil {
			fields := make([]reflect.StructField, rt.NumField())
			changed := false
			for i := range fields {
				fields[i] = rt.Field(i)
				ft := hostType(fields[i].Type) // an unexported field: no wrappers below
				if fields[i].IsExported() {
					ft = slot(fields[i].Type, fl[i].typ)
				}
				if ft != fields[i].Type {
					fields[i].Type, changed = ft, true
				}
			}
			if changed {
				return hostStructOf(fields, rt)
			}
		}
	}
	return hostType(rt)
}

// elems returns the slice or array v, of element type et, as a value of
// type ht with its elements unboxed, and whether it changed. When ht is
// v's type, v is copied only from its first changed element on.
func (c *unboxer) elems(v reflect.Value, ht reflect.Type, et *itype, depth int) (reflect.Value, bool) {
	var out reflect.Value
	copyOf := func() reflect.Value {
		if v.Kind() == reflect.Slice {
			o := reflect.MakeSlice(ht, v.Len(), v.Len())
			reflect.Copy(o, v)
			return o
		}
		o := reflect.New(ht).Elem()
		o.Set(v)
		return o
	}
	eager := ht != v.Type()
	if eager {
		if v.Kind() == reflect.Slice {
			out = reflect.MakeSlice(ht, v.Len(), v.Len())
		} else {
			out = reflect.New(ht).Elem()
		}
	}
	ot := ht.Elem()
	for i := range v.Len() {
		e, changed := c.value(v.Index(i), et, depth+1)
		switch {
		case c.abort:
			return v, false
		case eager:
			out.Index(i).Set(setIn(e, ot))
		case changed:
			if !out.IsValid() {
				out = copyOf()
			}
			out.Index(i).Set(setIn(e, ot))
		}
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

// setIn returns v for a slot of type t: the zero value for an invalid v
// (a nil interface).
func setIn(v reflect.Value, t reflect.Type) reflect.Value {
	if !v.IsValid() {
		return reflect.Zero(t)
	}
	return v
}

// unbox returns the value in the box vi: its wrapper with the methods the
// function's MapTypes name, or the value itself (unboxed in turn); the
// invalid Value for a nil interface.
func (c *unboxer) unbox(vi valueInterface, depth int) reflect.Value {
	for vi.node != nil {
		inner, ok := vi.value.Interface().(valueInterface)
		if !ok {
			break
		}
		vi = inner
	}
	if vi.node == nil || !vi.value.IsValid() || vi.value.Kind() == reflect.Interface && vi.value.IsNil() {
		return reflect.Value{}
	}
	t := vi.node.typ
	if c.interp == nil {
		c.interp = vi.node.interp
	}
	if c.raw {
		t = nil // below an unexported field: the value, without methods
	}
	if t != nil && hasWrapper(t, c.getMapType) {
		if w := c.wrapper(t); w != nil {
			return c.proxy(t, vi.value, w(c.f, vi.value))
		}
	}
	if t != nil && (t.cat == valueT || isInterfaceSrc(t)) {
		t = nil
	}
	v, _ := c.value(vi.value, t, depth+1)
	return v
}

// wrapper returns the function putting a value of type t in the host
// interface wrapper the function's MapTypes give it, or nil.
func (c *unboxer) wrapper(t *itype) func(*frame, reflect.Value) reflect.Value {
	if w, ok := c.wrappers[t]; ok {
		return w
	}
	var w func(*frame, reflect.Value) reflect.Value
	if rt := c.getMapType(t); rt != nil {
		w = valueWrapper(&node{interp: c.interp, typ: t, kind: identExpr, findex: notInFrame}, t, rt)
	}
	if c.wrappers == nil {
		c.wrappers = map[*itype]func(*frame, reflect.Value) reflect.Value{}
	}
	c.wrappers[t] = w
	return w
}

// boxTypes caches holdsBox and hostType by reflect type.
var boxTypes sync.Map // reflect.Type → boxInfo

type boxInfo struct {
	holds bool
	marks bool // holds a declared struct without fields (isIdentityStruct)
	host  reflect.Type
}

// holdsBox reports whether a value of type t can hold a valueInterface
// without going through a pointer, a func or a chan: t is an interface or
// valueInterface, or a slice, array, map or struct of such.
func holdsBox(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String,
		reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	}
	return boxInfoOf(t).holds
}

// needsCopy reports whether a value of type t reaches fmt, encoding/json
// or encoding/xml as a copy: it holds a box (holdsBox), or a value of a
// declared struct type without fields, whose blank identity field fmt
// would print (identity.go); the copy holds struct{} instead.
func needsCopy(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String,
		reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	case reflect.Interface:
		return true
	case reflect.Pointer:
		return isIdentityStruct(t.Elem())
	}
	bi := boxInfoOf(t)
	return bi.holds || bi.marks
}

// hostType is t with valueInterface replaced by interface{} wherever
// holdsBox finds it.
func hostType(t reflect.Type) reflect.Type { return boxInfoOf(t).host }

func boxInfoOf(t reflect.Type) boxInfo {
	if bi, ok := boxTypes.Load(t); ok {
		return bi.(boxInfo)
	}
	bi := computeBoxInfo(t, map[reflect.Type]bool{})
	boxTypes.Store(t, bi)
	return bi
}

// computeBoxInfo computes t's boxInfo; seen guards against recursive types
// (through slices and maps), which are taken as holding no box.
func computeBoxInfo(t reflect.Type, seen map[reflect.Type]bool) (bi boxInfo) {
	bi = boxInfo{host: t}
	if seen[t] {
		return bi
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Interface:
		return boxInfo{holds: true, host: t}
	case reflect.Struct:
		if t == valueInterfaceType {
			return boxInfo{holds: true, host: emptyInterfaceType}
		}
		if isIdentityStruct(t) {
			return boxInfo{marks: true, host: emptyStructType}
		}
		fields := make([]reflect.StructField, t.NumField())
		changed := false
		for i := range fields {
			fields[i] = t.Field(i)
			fi := computeBoxInfo(fields[i].Type, seen)
			bi.holds = bi.holds || fi.holds
			bi.marks = bi.marks || fi.marks
			if fi.host != fields[i].Type {
				fields[i].Type, changed = fi.host, true
			}
		}
		if changed {
			bi.host = hostStructOf(fields, t)
		}
	case reflect.Slice:
		ei := computeBoxInfo(t.Elem(), seen)
		bi.holds, bi.marks = ei.holds, ei.marks
		if ei.host != t.Elem() {
			bi.host = reflect.SliceOf(ei.host)
		}
	case reflect.Array:
		ei := computeBoxInfo(t.Elem(), seen)
		bi.holds, bi.marks = ei.holds, ei.marks
		if ei.host != t.Elem() {
			bi.host = reflect.ArrayOf(t.Len(), ei.host)
		}
	case reflect.Map:
		ki, ei := computeBoxInfo(t.Key(), seen), computeBoxInfo(t.Elem(), seen)
		bi.holds = ki.holds || ei.holds
		bi.marks = ki.marks || ei.marks
		if ki.host != t.Key() || ei.host != t.Elem() {
			bi.host = reflect.MapOf(ki.host, ei.host)
		}
	}
	if bi.host == nil {
		bi.host = t
	}
	return bi
}

// hostStructOf is reflect.StructOf(fields), or t when reflect refuses them.
func hostStructOf(fields []reflect.StructField, t reflect.Type) (st reflect.Type) {
	defer func() {
		if recover() != nil {
			st = t
		}
	}()
	return reflect.StructOf(fields)
}

// proxiesKey reports whether a map key of type t reaches fmt as a
// keyProxy: t is interpreted, with a String or Error method (a wrapper is
// not comparable, so it cannot be a key).
func proxiesKey(t *itype, getMapType func(*itype) reflect.Type) bool {
	if !hasWrapper(t, getMapType) {
		return false
	}
	rt := getMapType(t)
	return rt == stringerType || rt == errorType
}

// keyProxy is a map key of an interpreted type with a String or Error
// method, for fmt: the key, and what the method returns. It sorts as the
// key does (fmt sorts struct keys field by field) and formats as the
// method's result for %v, %s, %q, %x and %X, as fmt formats a Stringer.
type keyProxy struct {
	V any
	S string
}

var keyProxyType = reflect.TypeOf(keyProxy{})

// Format implements fmt.Formatter.
func (k keyProxy) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'), verb != 'v' && verb != 's' && verb != 'q' && verb != 'x' && verb != 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), k.V)
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), k.S)
	}
}

// methodProxy is a nested value of an interpreted type with a String or
// Error method, for fmt: the value, and its wrapper with the method. It
// formats as fmt formats a compiled value of the type: through the method
// for %v, %s, %q, %x and %X, as the value for the other verbs and %#v
// (the wrapper alone printed its fields and func pointers for %d).
type methodProxy struct {
	V any
	M any
}

// Format implements fmt.Formatter.
func (p methodProxy) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') || verb != 'v' && verb != 's' && verb != 'q' && verb != 'x' && verb != 'X' {
		fmt.Fprintf(f, fmt.FormatString(f, verb), p.V)
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if rv := reflect.ValueOf(p.V); rv.Kind() == reflect.Pointer && rv.IsNil() {
				io.WriteString(f, "<nil>") // as fmt prints a nil receiver whose method panics
				return
			}
			panic(r)
		}
	}()
	var s string
	switch m := p.M.(type) {
	case error:
		s = m.Error()
	case fmt.Stringer:
		s = m.String()
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), p.M)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s)
}

// proxy returns the wrapper w of the value v, of type t, in a methodProxy
// when it stands for a String or Error method (fmt's), as it is otherwise
// (json's and xml's Marshalers).
func (c *unboxer) proxy(t *itype, v, w reflect.Value) reflect.Value {
	if c.forFmt(t) && v.CanInterface() && w.CanInterface() {
		return reflect.ValueOf(methodProxy{v.Interface(), w.Interface()})
	}
	return w
}

// keyProxy returns the key k, of type t, as a keyProxy.
func (c *unboxer) keyProxy(k reflect.Value, t *itype) (out reflect.Value) {
	if !k.IsValid() {
		return reflect.Zero(keyProxyType)
	}
	p := keyProxy{V: k.Interface()}
	if k.Kind() == reflect.Pointer && k.IsNil() {
		p.S = "<nil>" // as fmt prints a nil receiver whose method panics
		return reflect.ValueOf(p)
	}
	defer func() {
		if r := recover(); r != nil {
			p.S = fmt.Sprintf("%%!v(PANIC=String method: %v)", r)
			out = reflect.ValueOf(p)
		}
	}()
	if w := c.wrapper(t); w != nil {
		switch x := w(c.f, k).Interface().(type) {
		case error:
			p.S = x.Error()
		case fmt.Stringer:
			p.S = x.String()
		}
	}
	return reflect.ValueOf(p)
}

// inValueMethodSet reports whether the methods of the host interface rt
// that t implements are in the method set of t's values: a method with a
// pointer receiver is not, unless t is a pointer (fmt.Println(S{1}) with
// func (*S) String prints {1} in Go; the interpreter called String). A
// method promoted through an embedded field counts as in the set.
func inValueMethodSet(t *itype, rt reflect.Type) bool {
	if t == nil || isPtrSrc(t) || rt.Kind() != reflect.Interface {
		return true
	}
	for i := range rt.NumMethod() {
		m, index := t.lookupMethod(rt.Method(i).Name)
		if m == nil || len(index) > 0 || len(m.child) == 0 || len(m.child[0].child) == 0 {
			continue
		}
		if recv := m.child[0].child[0].lastChild(); recv != nil && recv.kind == starExpr {
			return false
		}
	}
	return true
}

// recordStructType records t, a named struct type, as the type of the
// values of reflect type rt: the latest declaration of a name wins, and
// two names for one reflect type record neither.
func (interp *Interpreter) recordStructType(rt reflect.Type, t *itype) {
	old, loaded := interp.structTypes.LoadOrStore(rt, t)
	if !loaded || old.(*itype) == nil || old.(*itype) == t {
		return
	}
	if old.(*itype).id() == t.id() {
		interp.structTypes.Store(rt, t)
		return
	}
	interp.structTypes.Store(rt, (*itype)(nil))
}

// structTypeOf returns the named struct type whose values have reflect
// type rt, or nil.
func (interp *Interpreter) structTypeOf(rt reflect.Type) *itype {
	if interp == nil {
		return nil
	}
	if t, ok := interp.structTypes.Load(rt); ok {
		return t.(*itype)
	}
	return nil
}

// forFmt reports whether the wrapper of type t is fmt's (a String or Error
// method).
func (c *unboxer) forFmt(t *itype) bool {
	rt := c.getMapType(t)
	return rt == stringerType || rt == errorType
}
