package interp

import (
	"reflect"
	"strconv"
	"strings"
)

// byref: %T names a snippet's types as compiled Go does.
//
// fmt's %T prints reflect.TypeOf(arg).String(), and the reflect type of a
// value of an interpreted type is the one reflect built for it: `type T
// struct{ A int }` printed as `struct { A int }`, `type C int` as `int`,
// and a value of a type with methods in an interface as
// `interp.valueInterface`. A host function whose MapTypes hold
// TypeNameMarker (byref's Sprintf, Fprintf, Errorf, Appendf) now gets each
// argument whose Go type name differs from its reflect type's in a
// TypeNamed, which gives the name; the function formats %T with the name
// and every other verb with the value (byref's print.go). The name comes
// from the argument's static type, or for an interface, from the type
// of the value it holds (a snippet struct type without methods in an
// interface is found by its reflect type, when no other named type shares
// it).

// TypeNamed is an argument of a function that asked for type names: the
// value, and the name compiled Go gives its type.
type TypeNamed struct {
	Value any
	Type  string
}

// TypeNameMarker, among the MapTypes of a host function, asks for its
// arguments' type names (TypeNamed). No type implements it.
var TypeNameMarker = reflect.TypeOf((*interface{ byrefTypeNames() })(nil)).Elem()

// wantsTypeNames reports whether the MapTypes lr ask for type names.
func wantsTypeNames(lr []reflect.Type) bool {
	for _, rt := range lr {
		if rt == TypeNameMarker {
			return true
		}
	}
	return false
}

// genTypeNamed returns value, the argument n of a function that asked for
// type names, in a TypeNamed when its type's Go name is not its reflect
// type's.
func genTypeNamed(n *node, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	t := n.typ
	if t == nil || t.untyped || isFuncSrc(t) && n.kind == funcDecl {
		return value
	}
	// A host interface (error, fmt.Stringer) may hold the interpreter's
	// wrapper of a snippet value, named by dynamicTypeName.
	hostIface := (t.cat == valueT || t.cat == errorT) && t.TypeOf() != nil && t.TypeOf().Kind() == reflect.Interface
	if t.cat == valueT && !hostIface {
		return value
	}
	if !isInterfaceSrc(t) && !hostIface {
		rt := t.TypeOf()
		name := goTypeString(t)
		if rt == nil || name == "" || name == rt.String() {
			return value
		}
		return func(f *frame) reflect.Value {
			v := value(f)
			if !v.IsValid() || !v.CanInterface() {
				return v
			}
			return reflect.ValueOf(TypeNamed{v.Interface(), name})
		}
	}
	raw := genValue(n) // the interface as it is, before callBin unboxes it
	return func(f *frame) reflect.Value {
		v := value(f)
		if !v.IsValid() || !v.CanInterface() {
			return v
		}
		if name, ok := dynamicTypeName(raw(f)); ok {
			return reflect.ValueOf(TypeNamed{v.Interface(), name})
		}
		return v
	}
}

// dynamicTypeName returns the Go name of the type of the value in the
// interface v, when it is not its reflect type's name.
func dynamicTypeName(v reflect.Value) (string, bool) {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Kind() == reflect.Interface {
		return "", false
	}
	if w := wrappedValue(v); w.IsValid() {
		v = w // the interpreter's wrapper of a host interface (error)
	}
	var t *itype
	for v.Type() == valueInterfaceType {
		vi := v.Interface().(valueInterface)
		if vi.node == nil {
			return "", false
		}
		t, v = vi.node.typ, vi.value
		for v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if !v.IsValid() || v.Kind() == reflect.Interface {
			return "", false
		}
	}
	rt := v.Type()
	var name string
	if t != nil && t.cat != valueT && !isInterfaceSrc(t) {
		name = goTypeString(t)
	} else {
		name = recordedTypeName(rt)
	}
	if name == "" || name == rt.String() {
		return "", false
	}
	return name, true
}

// recordedTypeName is the Go name of rt, a reflect type the interpreter
// made for a declared struct type, or a pointer, slice, array or map of
// one (`*main.NotFound`), or "" when rt holds none.
func recordedTypeName(rt reflect.Type) string {
	if n, ok := rtypeNames.Load(rt); ok {
		return n.(string)
	}
	elem := func(rt reflect.Type) string {
		if n := recordedTypeName(rt); n != "" {
			return n
		}
		return rt.String()
	}
	switch rt.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if n := recordedTypeName(rt.Elem()); n != "" {
			switch rt.Kind() {
			case reflect.Pointer:
				return "*" + n
			case reflect.Slice:
				return "[]" + n
			}
			return "[" + strconv.Itoa(rt.Len()) + "]" + n
		}
	case reflect.Map:
		if recordedTypeName(rt.Key()) != "" || recordedTypeName(rt.Elem()) != "" {
			return "map[" + elem(rt.Key()) + "]" + elem(rt.Elem())
		}
	}
	return ""
}

// reflectTypeName is rt's Go name, for Go's panic messages: the declared
// type's for a type the interpreter made (*main.NotFound), else reflect's.
func reflectTypeName(rt reflect.Type) string {
	if n := recordedTypeName(rt); n != "" {
		return n
	}
	return rt.String()
}

// goTypeString is the name compiled Go (reflect.Type.String) gives t.
func goTypeString(t *itype) string {
	if t == nil {
		return ""
	}
	if t.cat == valueT {
		if t.rtype == nil {
			return t.str
		}
		return t.rtype.String()
	}
	if t.name != "" && t.path != "" && t.cat != nilT {
		return t.path + "." + t.name
	}
	if strings.Contains(t.name, "[") {
		// an instance of a generic type, named without its package
		pkg := "main"
		if t.scope != nil && t.scope.pkgName != "" {
			pkg = t.scope.pkgName
		}
		return pkg + "." + t.name
	}
	switch t.cat {
	case linkedT:
		return t.str
	case ptrT:
		return "*" + goTypeString(t.val)
	case sliceT, variadicT:
		return "[]" + goTypeString(t.val)
	case arrayT:
		return "[" + strconv.Itoa(t.length) + "]" + goTypeString(t.val)
	case mapT:
		return "map[" + goTypeString(t.key) + "]" + goTypeString(t.val)
	case chanT:
		return "chan " + goTypeString(t.val)
	case chanRecvT:
		return "<-chan " + goTypeString(t.val)
	case chanSendT:
		return "chan<- " + goTypeString(t.val)
	case errorT:
		return "error"
	case funcT:
		return "func" + signatureString(t)
	case structT:
		if len(t.field) == 0 {
			return "struct {}"
		}
		fs := make([]string, len(t.field))
		for i, fl := range t.field {
			s := goTypeString(fl.typ)
			if !fl.embed {
				s = fl.name + " " + s
			}
			if fl.tag != "" {
				s += " " + strconv.Quote(fl.tag)
			}
			fs[i] = s
		}
		return "struct { " + strings.Join(fs, "; ") + " }"
	case interfaceT:
		if len(t.field) == 0 {
			return "interface {}"
		}
		ms := make([]string, 0, len(t.field))
		for _, fl := range t.field {
			if fl.embed || fl.typ == nil || fl.typ.cat != funcT {
				return t.str
			}
			ms = append(ms, fl.name+signatureString(fl.typ))
		}
		return "interface { " + strings.Join(ms, "; ") + " }"
	}
	if rt := t.TypeOf(); rt != nil {
		return rt.String()
	}
	return t.str
}

// signatureString is a func type's parameters and results, as reflect
// writes them.
func signatureString(t *itype) string {
	args := make([]string, len(t.arg))
	for i, a := range t.arg {
		if a.cat == variadicT {
			args[i] = "..." + goTypeString(a.val)
			continue
		}
		args[i] = goTypeString(a)
	}
	s := "(" + strings.Join(args, ", ") + ")"
	switch len(t.ret) {
	case 0:
	case 1:
		s += " " + goTypeString(t.ret[0])
	default:
		rets := make([]string, len(t.ret))
		for i, r := range t.ret {
			rets[i] = goTypeString(r)
		}
		s += " (" + strings.Join(rets, ", ") + ")"
	}
	return s
}
