package interp

import (
	"reflect"
	"strconv"
)

// byref: two declared struct types are two reflect types.
//
// reflect.StructOf gives one type for one list of fields, so `type
// NotFound struct{ ID string }` and `type Invalid struct{ ID string }` had
// the same reflect type, and every check that compares reflect types (type
// assertions, type switches, errors.As, errors.Is, the type names of %T)
// took an Invalid for a NotFound: err.(*NotFound) held for an &Invalid{}.
// A declared struct type's first field now carries a tag naming the type
// (`byreftype:"main.NotFound"`), which nothing reads but reflect's type
// identity: fmt and encoding/json ignore a key they do not know, and
// reflect.Value.Convert ignores tags, as Go's conversions do. Where Go
// assigns a value of an unnamed struct type to a declared one of the same
// fields (var n NotFound = struct{ ID string }{"x"}), or the reverse, the
// value is converted (genDestValue). A struct type without fields has no
// field to carry the tag, so it gets one: a blank field of type struct{}
// carrying the tag (identityField), which keeps it comparable and of size
// zero. encoding/json and encoding/xml skip a blank field; fmt would
// print it ({{}}), so the copy of fmt's arguments (hostvalues.go) presents
// such a value as struct{}. Between struct{} and such a type, assignment
// and conversion give the zero value (emptyStructPair).

// identityTagKey is the struct tag key of a declared type's name.
const identityTagKey = "byreftype"

// typeIdentityTag returns tag with the key naming the declared type name
// appended.
func typeIdentityTag(tag reflect.StructTag, name string) reflect.StructTag {
	t := identityTagKey + ":" + strconv.Quote(name)
	if tag == "" {
		return reflect.StructTag(t)
	}
	return tag + " " + reflect.StructTag(t)
}

// sameStructFields reports whether t and o are struct types that differ at
// most by the names of declared types, one of them unnamed: Go assigns a
// value of one to the other, and reflect needs a conversion.
func sameStructFields(t, o *itype) bool {
	if t == nil || o == nil || t.name != "" && o.name != "" {
		return false
	}
	tt, ot := t.TypeOf(), o.TypeOf()
	if tt == nil || ot == nil || tt == ot || tt.Kind() != reflect.Struct || ot.Kind() != reflect.Struct {
		return false
	}
	return tt.ConvertibleTo(ot) || emptyStructPair(tt, ot)
}

// genConvertedValue returns n's value converted to rt.
func genConvertedValue(n *node, rt reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)
	if nt := n.typ.TypeOf(); nt != nil && emptyStructPair(nt, rt) {
		zero := reflect.Zero(rt)
		return func(f *frame) reflect.Value { return zero }
	}
	return func(f *frame) reflect.Value { return value(f).Convert(rt) }
}

// emptyStructType is the reflect type of struct{}.
var emptyStructType = reflect.TypeOf(struct{}{})

// identityField returns the blank field that carries the name of a
// declared struct type without fields.
func identityField(name string) reflect.StructField {
	return reflect.StructField{Name: "_", PkgPath: "main", Type: emptyStructType, Tag: typeIdentityTag("", name)}
}

// isIdentityStruct reports whether t is the reflect type of a declared
// struct type without fields: its one field is an identityField.
func isIdentityStruct(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || t.NumField() != 1 {
		return false
	}
	f := t.Field(0)
	if f.Name != "_" || f.Type != emptyStructType {
		return false
	}
	_, ok := f.Tag.Lookup(identityTagKey)
	return ok
}

// emptyStructPair reports whether t and o are two struct types with no
// fields in Go, at least one of them declared (isIdentityStruct): they
// have the one zero value, which reflect does not convert.
func emptyStructPair(t, o reflect.Type) bool {
	if t == o || t.Kind() != reflect.Struct || o.Kind() != reflect.Struct {
		return false
	}
	ti, oi := isIdentityStruct(t), isIdentityStruct(o)
	return ti && (oi || o.NumField() == 0) || oi && t.NumField() == 0
}
