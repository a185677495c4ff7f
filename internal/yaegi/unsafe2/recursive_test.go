package unsafe2

import (
	"reflect"
	"runtime"
	"testing"
)

// TestTie: a slice type tied around its placeholder contains itself, and
// values of it are made, grown, read and collected like any slice's.
func TestTie(t *testing.T) {
	ph, ok := Placeholder(reflect.Slice)
	if !ok {
		t.Fatal("no placeholder for a slice")
	}
	elem := reflect.PointerTo(ph)
	st := reflect.SliceOf(reflect.StructOf([]reflect.StructField{
		{Name: "Name", Type: reflect.TypeOf("")},
		{Name: "Kids", Type: ph},
		{Name: "Parent", Type: elem},
	}))
	inner, err := Tie(st, ph)
	if err != nil {
		t.Fatal(err)
	}
	if node := st.Elem(); node.Field(1).Type != st || node.Field(2).Type.Elem() != st {
		t.Fatalf("not tied: %v, %v", node.Field(1).Type, node.Field(2).Type.Elem())
	}
	if !inner[st] || !inner[st.Elem()] || !inner[elem] || len(inner) != 3 {
		t.Errorf("Tie returned %v", inner)
	}
	built := st.Elem()
	canon, err := Canonical(inner, map[reflect.Type]bool{st: true})
	if err != nil {
		t.Fatal(err)
	}
	node := st.Elem()
	if canon[elem] != reflect.PointerTo(st) || node.Field(2).Type != reflect.PointerTo(st) {
		t.Errorf("the pointer built around the placeholder is not the one reflect makes of the type: %v", canon)
	}
	if node.Field(1).Type != st || canon[built] != node {
		t.Errorf("the struct lost its tie: %v", node.Field(1).Type)
	}
	if !Tied(st) || !Tied(node) || !Tied(reflect.PointerTo(st)) || Tied(reflect.TypeOf(0)) {
		t.Error("Tied does not report the types Canonical made")
	}
	root := reflect.MakeSlice(st, 0, 0)
	for i := range 100 {
		kid := reflect.New(node).Elem()
		kid.Field(0).SetString(string(rune('a' + i%26)))
		kid.Field(1).Set(reflect.Append(reflect.MakeSlice(st, 0, 0), reflect.New(node).Elem()))
		root = reflect.Append(root, kid)
	}
	runtime.GC()
	if got := root.Index(27).Field(0).String(); got != "b" {
		t.Errorf("element 27 is %q, want b", got)
	}
	if got := root.Index(99).Field(1).Len(); got != 1 {
		t.Errorf("element 99 has %d kids, want 1", got)
	}

	fph, _ := Placeholder(reflect.Func)
	ft := reflect.FuncOf([]reflect.Type{reflect.TypeOf("")}, []reflect.Type{fph}, false)
	if _, err := Tie(ft, fph); err != nil {
		t.Fatal(err)
	}
	if ft.Out(0) != ft {
		t.Errorf("func type not tied: %v", ft.Out(0))
	}
	if _, ok := Placeholder(reflect.Array); ok {
		t.Error("a placeholder for an array, whose layout depends on its element")
	}
	aph := LayoutPlaceholder(reflect.ArrayOf(3, PointerLayout))
	at := reflect.ArrayOf(3, reflect.PointerTo(aph))
	ainner, err := Tie(at, aph)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Canonical(ainner, map[reflect.Type]bool{at: true}); err != nil {
		t.Fatal(err)
	}
	if at.Elem() != reflect.PointerTo(at) {
		t.Errorf("array type not tied: %v", at.Elem())
	}
	if _, err := Tie(reflect.TypeOf(0), fph); err == nil {
		t.Error("Tie accepted a placeholder of another layout")
	}
}
