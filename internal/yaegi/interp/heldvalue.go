package interp

import "reflect"

// byref: HeldValue lets the host read a value the interpreter keeps in an
// interface without its methods.

// HeldValue returns the value that v, an interpreter interface value,
// holds: how the interpreter stores a value of a type it declared with
// methods in a variable of type any (a valueInterface, whose fields are
// not the host's to read). ok is false when v is not one.
func HeldValue(v reflect.Value) (held reflect.Value, ok bool) {
	if !v.IsValid() || v.Type() != valueInterfaceType || !v.CanInterface() {
		return v, false
	}
	return v.Interface().(valueInterface).value, true
}
