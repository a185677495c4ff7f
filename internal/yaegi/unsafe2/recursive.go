//go:build go1.21
// +build go1.21

package unsafe2

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// byref: recursive types through unnamed composite types (type T []T,
// type F func(string) F, type M map[string]M). reflect builds no type
// that contains itself, so the interpreter builds such a type around a
// placeholder that stands for it, then ties the knot: every reference to
// the placeholder in the types made from it is replaced by the type
// itself. The placeholder is new for each type, so every type that
// contains it was made for this one and is changed by nobody else, and it
// has the size, alignment and pointer layout of the type it stands for,
// so that what reflect computed from it (a struct's offsets, a map's
// slots) holds for the type that replaces it.

// The following layouts must match their original definition in Go
// src/internal/abi/type.go and map.go (the abiType header above).
type abiElemType struct { // PtrType, SliceType, ChanType
	abiType
	Elem *abiType
}

type abiArrayType struct {
	abiType
	Elem  *abiType
	Slice *abiType
}

type abiMapType struct {
	abiType
	Key   *abiType
	Elem  *abiType
	Group *abiType
}

type abiFuncType struct {
	abiType
	InCount  uint16
	OutCount uint16
}

// tflagUncommon is abi.TFlagUncommon: an uncommonType follows the type's
// own struct, before a func type's parameters.
const tflagUncommon = 1 << 0

var (
	placeholders atomic.Uint64
	tied         sync.Map // reflect.Type → struct{}: the types Tie made
	pointerType  = reflect.TypeOf(unsafe.Pointer(nil))
	uintptrType  = reflect.TypeOf(uintptr(0))
	// noEqual, a zero-size field of an incomparable type, makes the
	// placeholder of an incomparable kind incomparable, as the type it
	// stands for is, without changing its size.
	noEqual = reflect.TypeOf([0]func(){})
)

// Placeholder returns a new type that stands for a recursive type of kind
// k while it is built, with its layout: a slice's, or a single pointer's
// for a pointer, func, map or chan. It reports false for the other kinds.
func Placeholder(k reflect.Kind) (reflect.Type, bool) {
	name := "Recursive" + strconv.FormatUint(placeholders.Add(1), 10)
	var fields []reflect.StructField
	switch k {
	case reflect.Slice:
		fields = []reflect.StructField{
			{Name: name, Type: noEqual},
			{Name: "Data", Type: pointerType},
			{Name: "Len", Type: uintptrType},
			{Name: "Cap", Type: uintptrType},
		}
	case reflect.Func, reflect.Map:
		fields = []reflect.StructField{{Name: name, Type: noEqual}, {Name: "Pointer", Type: pointerType}}
	case reflect.Ptr, reflect.Chan:
		fields = []reflect.StructField{{Name: name, Type: pointerType}}
	default:
		return nil, false
	}
	return reflect.StructOf(fields), true
}

// LayoutPlaceholder returns a new type that stands for a recursive type
// while it is built, with the layout of layout (an array type whose
// element layout the caller computed).
func LayoutPlaceholder(layout reflect.Type) reflect.Type {
	name := "Recursive" + strconv.FormatUint(placeholders.Add(1), 10)
	return reflect.StructOf([]reflect.StructField{{Name: name, Type: layout}})
}

// SliceLayout is the layout of a slice header.
var SliceLayout = reflect.TypeOf(struct {
	Data     unsafe.Pointer
	Len, Cap uintptr
}{})

// PointerLayout is the layout of a pointer, func, map or chan.
var PointerLayout = pointerType

// Tie replaces placeholder, in t and in every type t was made of that
// contains it, with t itself, and returns those types (t included). All
// of them must have been made with placeholder (by reflect's SliceOf,
// FuncOf, MapOf, ...), after Placeholder. This is very unsafe; every slot
// is checked against what reflect reads before it is written, so that a
// changed layout is an error instead of a corruption.
func Tie(t, placeholder reflect.Type) (map[reflect.Type]bool, error) {
	switch t.Kind() {
	case reflect.Slice, reflect.Func, reflect.Map, reflect.Ptr, reflect.Chan, reflect.Array:
	default:
		return nil, errors.New("unsafe2: a placeholder for a " + t.Kind().String())
	}
	if t.Size() != placeholder.Size() || t.Align() != placeholder.Align() {
		return nil, errors.New("unsafe2: a placeholder of another layout")
	}
	marker := " " + placeholder.Field(0).Name + " "
	root, ph := unpackType(t), unpackType(placeholder)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type) error
	walk = func(typ reflect.Type) error {
		if seen[typ] {
			return nil
		}
		seen[typ] = true
		slots, children, err := typeSlots(typ)
		if err != nil {
			return err
		}
		for i, slot := range slots {
			if *slot != unpackType(children[i]) {
				return errors.New("unsafe2: the layout of reflect's " + typ.Kind().String() + " type has changed")
			}
		}
		for i, slot := range slots {
			switch c := children[i]; {
			case *slot == ph:
				*slot = root
			case c != t && strings.Contains(c.String(), marker):
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(t); err != nil {
		return nil, err
	}
	return seen, nil
}

// Canonical rebuilds with reflect's own constructors the types of inner
// (what Tie returned) that are not in fixed (t itself and the other
// defined types among them), and makes the fixed ones refer to the
// rebuilt ones. A type made around the placeholder (*T in type T []*T) is
// not the one reflect makes of T afterwards (reflect.PointerTo(t)), and
// values of two such types do not compare equal; rebuilt, they are the
// same. It returns the rebuilt type of each type replaced.
func Canonical(inner, fixed map[reflect.Type]bool) (map[reflect.Type]reflect.Type, error) {
	canon := map[reflect.Type]reflect.Type{}
	var rebuild func(reflect.Type) reflect.Type
	rebuild = func(x reflect.Type) reflect.Type {
		if fixed[x] || !inner[x] {
			return x
		}
		if c, ok := canon[x]; ok {
			return c
		}
		c := x
		switch x.Kind() {
		case reflect.Ptr:
			c = reflect.PointerTo(rebuild(x.Elem()))
		case reflect.Slice:
			c = reflect.SliceOf(rebuild(x.Elem()))
		case reflect.Array:
			c = reflect.ArrayOf(x.Len(), rebuild(x.Elem()))
		case reflect.Chan:
			c = reflect.ChanOf(x.ChanDir(), rebuild(x.Elem()))
		case reflect.Map:
			c = reflect.MapOf(rebuild(x.Key()), rebuild(x.Elem()))
		case reflect.Func:
			in := make([]reflect.Type, x.NumIn())
			for i := range in {
				in[i] = rebuild(x.In(i))
			}
			out := make([]reflect.Type, x.NumOut())
			for i := range out {
				out[i] = rebuild(x.Out(i))
			}
			c = reflect.FuncOf(in, out, x.IsVariadic())
		case reflect.Struct:
			fields := make([]reflect.StructField, x.NumField())
			for i := range fields {
				f := x.Field(i)
				fields[i] = reflect.StructField{Name: f.Name, PkgPath: f.PkgPath, Type: rebuild(f.Type), Tag: f.Tag, Anonymous: f.Anonymous}
			}
			c = reflect.StructOf(fields)
		}
		canon[x] = c
		return c
	}
	for typ := range fixed {
		slots, children, err := typeSlots(typ)
		if err != nil {
			return nil, err
		}
		for i, slot := range slots {
			if typ.Kind() == reflect.Map && i == 2 {
				// A map's group keeps the layout computed for it.
				continue
			}
			if c := rebuild(children[i]); c != children[i] {
				*slot = unpackType(c)
			}
		}
	}
	for typ := range fixed {
		tied.Store(typ, struct{}{})
	}
	for _, c := range canon {
		tied.Store(c, struct{}{})
	}
	return canon, nil
}

// Tied reports whether t is one of the types Canonical fixed or rebuilt:
// a recursive type, or a type that contains one.
func Tied(t reflect.Type) bool {
	_, ok := tied.Load(t)
	return ok
}

// typeSlots returns the addresses in typ's runtime representation of the
// types it is made of, with those types as reflect reads them.
func typeSlots(typ reflect.Type) ([]**abiType, []reflect.Type, error) {
	p := unsafe.Pointer(unpackType(typ))
	switch typ.Kind() {
	case reflect.Ptr, reflect.Slice, reflect.Chan:
		return []**abiType{&(*abiElemType)(p).Elem}, []reflect.Type{typ.Elem()}, nil
	case reflect.Array:
		a := (*abiArrayType)(p)
		return []**abiType{&a.Elem, &a.Slice}, []reflect.Type{typ.Elem(), reflect.SliceOf(typ.Elem())}, nil
	case reflect.Map:
		m := (*abiMapType)(p)
		slots := []**abiType{&m.Key, &m.Elem}
		types := []reflect.Type{typ.Key(), typ.Elem()}
		if m.Group != nil {
			slots = append(slots, &m.Group)
			types = append(types, groupType(m.Group))
		}
		return slots, types, nil
	case reflect.Func:
		f := (*abiFuncType)(p)
		if f.abiTFlag()&tflagUncommon != 0 {
			return nil, nil, errors.New("unsafe2: a func type with methods")
		}
		n := typ.NumIn() + typ.NumOut()
		params := unsafe.Slice((**abiType)(unsafe.Add(p, unsafe.Sizeof(*f))), n)
		slots := make([]**abiType, n)
		types := make([]reflect.Type, n)
		for i := range params {
			slots[i] = &params[i]
			if i < typ.NumIn() {
				types[i] = typ.In(i)
			} else {
				types[i] = typ.Out(i - typ.NumIn())
			}
		}
		return slots, types, nil
	case reflect.Struct:
		s := (*abiStructType)(p)
		slots := make([]**abiType, len(s.Fields))
		types := make([]reflect.Type, len(s.Fields))
		for i := range s.Fields {
			slots[i] = &s.Fields[i].Typ
			types[i] = typ.Field(i).Type
		}
		return slots, types, nil
	}
	return nil, nil, nil
}

// abiTFlag returns the TFlag byte of the type's header.
func (t *abiType) abiTFlag() uint8 {
	return *(*uint8)(unsafe.Add(unsafe.Pointer(t), 2*unsafe.Sizeof(uintptr(0))+4))
}

// groupType returns the reflect.Type of a map's internal group type.
func groupType(g *abiType) reflect.Type {
	var v any
	(*emptyInterface)(unsafe.Pointer(&v)).typ = g
	return reflect.TypeOf(v)
}
