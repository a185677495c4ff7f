package interp

import (
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
func hostValue(f *frame, getMapType func(*itype) reflect.Type, v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || !holdsBox(v.Type()) {
		return v, false
	}
	c := unboxer{f: f, getMapType: getMapType}
	return c.value(v, 0)
}

// unboxer replaces the valueInterface boxes of a value.
type unboxer struct {
	f          *frame
	getMapType func(*itype) reflect.Type
	wrappers   map[*itype]func(*frame, reflect.Value) reflect.Value
}

// maxUnboxDepth bounds the nesting unboxer follows (fmt's checks refuse
// deeper values anyway).
const maxUnboxDepth = 1000

// value returns v with its boxes replaced, as a value assignable to a
// slot of type hostType(v.Type()), and whether it changed.
func (c *unboxer) value(v reflect.Value, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > maxUnboxDepth {
		return v, false
	}
	t := v.Type()
	if !holdsBox(t) {
		return v, false
	}
	switch {
	case t == valueInterfaceType:
		return c.unbox(v.Interface().(valueInterface), depth), true
	case t.Kind() == reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		return c.value(v.Elem(), depth+1)
	}
	ht := hostType(t)
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(ht), ht != t
		}
		out := reflect.MakeSlice(ht, v.Len(), v.Len())
		changed := c.elems(v, out, depth)
		if !changed && ht == t {
			return v, false
		}
		return out, true
	case reflect.Array:
		out := reflect.New(ht).Elem()
		changed := c.elems(v, out, depth)
		if !changed && ht == t {
			return v, false
		}
		return out, true
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(ht), ht != t
		}
		out := reflect.MakeMapWithSize(ht, v.Len())
		changed := ht != t
		for it := v.MapRange(); it.Next(); {
			k, kc := c.value(plainKey(it.Key()), depth+1)
			e, ec := c.value(it.Value(), depth+1)
			changed = changed || kc || ec || k.IsValid() && it.Key().Kind() == reflect.Interface && !it.Key().IsNil() && k.Type() != it.Key().Elem().Type()
			out.SetMapIndex(setIn(k, ht.Key()), setIn(e, ht.Elem()))
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Struct:
		out := reflect.New(ht).Elem()
		changed := ht != t
		for i := range t.NumField() {
			e, ec := c.value(unsafe2.Exported(v.Field(i)), depth+1)
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

// elems copies the elements of the slice or array v into out, unboxed.
func (c *unboxer) elems(v, out reflect.Value, depth int) bool {
	changed := false
	et := out.Type().Elem()
	for i := range v.Len() {
		e, ec := c.value(v.Index(i), depth+1)
		changed = changed || ec
		out.Index(i).Set(setIn(e, et))
	}
	return changed
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
	if vi.node == nil || !vi.value.IsValid() {
		return reflect.Value{}
	}
	if vi.value.Kind() == reflect.Interface {
		if vi.value.IsNil() {
			return reflect.Value{}
		}
	}
	t := vi.node.typ
	if t != nil && t.cat != valueT && !isInterfaceSrc(t) {
		if w := c.wrapper(vi.node); w != nil {
			return w(c.f, vi.value)
		}
	}
	v, _ := c.value(vi.value, depth+1)
	return v
}

// wrapper returns the function putting a value of nod's type in the host
// interface wrapper the function's MapTypes give it, or nil.
func (c *unboxer) wrapper(nod *node) func(*frame, reflect.Value) reflect.Value {
	if w, ok := c.wrappers[nod.typ]; ok {
		return w
	}
	var w func(*frame, reflect.Value) reflect.Value
	if rt := c.getMapType(nod.typ); rt != nil {
		w = valueWrapper(nod, nod.typ, rt)
	}
	if c.wrappers == nil {
		c.wrappers = map[*itype]func(*frame, reflect.Value) reflect.Value{}
	}
	c.wrappers[nod.typ] = w
	return w
}

// boxTypes caches holdsBox and hostType by reflect type.
var boxTypes sync.Map // reflect.Type → boxInfo

type boxInfo struct {
	holds bool
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
		fields := make([]reflect.StructField, t.NumField())
		changed := false
		for i := range fields {
			fields[i] = t.Field(i)
			fi := computeBoxInfo(fields[i].Type, seen)
			bi.holds = bi.holds || fi.holds
			if fi.host != fields[i].Type {
				fields[i].Type, changed = fi.host, true
			}
		}
		if changed {
			bi.host = hostStructOf(fields, t)
		}
	case reflect.Slice:
		ei := computeBoxInfo(t.Elem(), seen)
		bi.holds = ei.holds
		if ei.host != t.Elem() {
			bi.host = reflect.SliceOf(ei.host)
		}
	case reflect.Array:
		ei := computeBoxInfo(t.Elem(), seen)
		bi.holds = ei.holds
		if ei.host != t.Elem() {
			bi.host = reflect.ArrayOf(t.Len(), ei.host)
		}
	case reflect.Map:
		ki, ei := computeBoxInfo(t.Key(), seen), computeBoxInfo(t.Elem(), seen)
		bi.holds = ki.holds || ei.holds
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
