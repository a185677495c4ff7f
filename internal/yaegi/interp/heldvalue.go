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

// GlobalType returns the reflect type of the values of a type declared at
// the top level of the main package (type T struct{...}: a struct type
// without T's methods), and whether name is such a type. The host uses it
// to find which declared type a value it holds belongs to.
func (interp *Interpreter) GlobalType(name string) (t reflect.Type, ok bool) {
	interp.mutex.RLock()
	s, found := interp.srcPkg["main"][name]
	interp.mutex.RUnlock()
	if !found || s.kind != typeSym || s.typ == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			t, ok = nil, false
		}
	}()
	return s.typ.TypeOf(), true
}
