package interp

import (
	"reflect"
	"strconv"
)

// byref: a called function's frame slots come from one allocation. Each
// call allocated every slot of the function's frame (its results, locals
// and the temporaries of its expressions, often dozens) with its own
// reflect.New; a profile of Go's test/divmod.go, which makes millions of
// small calls, spent a fifth of its time there and much of the rest in
// the garbage collector that followed. Now the first call builds a struct
// type with one field per slot (frameLayout), and each call allocates one
// value of it and takes its fields as the slots. A function with few
// slots keeps one allocation per slot, which is as cheap.

// minFrameStruct is the number of slots from which a struct is used.
const minFrameStruct = 4

// frameLayout is the struct type of a function's frame slots, or nil when
// reflect cannot build it (the slots are then allocated one by one).
type frameLayout struct{ typ reflect.Type }

// frameLayoutOf returns def's frame struct type, building it on first use.
func frameLayoutOf(def *node) *frameLayout {
	ext := def.x()
	if l := ext.layout.Load(); l != nil {
		return l
	}
	l := &frameLayout{typ: frameStruct(ext.types)}
	ext.layout.Store(l)
	return l
}

// frameStruct returns a struct type with a field of each of types, or nil.
func frameStruct(types []reflect.Type) (st reflect.Type) {
	if len(types) < minFrameStruct {
		return nil
	}
	defer func() {
		if recover() != nil {
			st = nil // a type StructOf refuses: allocate slot by slot
		}
	}()
	fields := make([]reflect.StructField, len(types))
	for i, t := range types {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t}
	}
	return reflect.StructOf(fields)
}

// fillFrame sets data[i] to a new zero slot of types[i], for every i from
// start on whose slot is not set yet.
func fillFrame(def *node, data []reflect.Value, types []reflect.Type, start int) {
	if l := frameLayoutOf(def); l.typ != nil {
		s := reflect.New(l.typ).Elem()
		for i := start; i < len(types); i++ {
			if !data[i].IsValid() {
				data[i] = s.Field(i)
			}
		}
		return
	}
	for i := start; i < len(types); i++ {
		if !data[i].IsValid() {
			data[i] = reflect.New(types[i]).Elem()
		}
	}
}
