package interp

import (
	"reflect"
	"strings"

	"github.com/byref/byref/variable"
)

// The host's types are nameable in snippets without a symbol table: every
// exported named type that appears in a variable's type or in an action's
// parameters and results (at any depth: fields, elements, keys) is
// registered with the interpreter under the package that declares it, as
// variable.TypeName and the prompt show it. A type of package example.com/shop
// is shop.Customer; a type of the host program's own package main is
// main.Order. The package's name is variable.PackageQualifier's: a second
// host package of the same name, or one named like an allowed standard
// package, is model2 or time2, in the prompt and in the snippet alike. The package is imported without an import, like the allowed
// ones. Standard-library types are not registered: a snippet names those
// through the allowed packages only.

// mainAlias is the name the interpreter knows the host's package main by:
// yaegi compiles snippets in a package main of their own, where an import
// named main is not resolved, so main.X is rewritten to _byrefmain.X.
const (
	mainAlias = "_byrefmain"
	mainPath  = "byref.local/main"
)

// registerHostTypes registers the named types reachable from the
// variables' and functions' types that the Interpreter has not seen, and
// reports whether any was new.
func (in *Interpreter) registerHostTypes(vars []Var, funcs map[string]reflect.Value) {
	var fresh Exports
	add := func(t reflect.Type) {
		walkNamed(t, in.hostSeen, func(n reflect.Type) {
			p := n.PkgPath()
			if !hostPath(p) || !isExported(n.Name()) {
				return
			}
			if base, _, generic := strings.Cut(n.Name(), "["); generic {
				// yaegi cannot instantiate a host generic type: the
				// type check names it in its refusal.
				if in.tc.generics == nil {
					in.tc.generics = map[string]string{}
				}
				in.tc.generics[variable.PackageQualifier(p, hostPkgName(n))+"."+base] = variable.TypeName(n)
				return
			}
			name := variable.PackageQualifier(p, hostPkgName(n))
			yp := p
			if name == "main" { // the host's package main, whatever its path
				yp = mainPath
			}
			if q, taken := in.hostNames[name]; taken && q != yp {
				return // another package has the name; the first keeps it
			}
			if _, std := stdByNameLookup(name); std && name != "main" {
				return // the standard package of that name wins
			}
			in.hostNames[name] = yp
			in.hostPaths[yp] = true
			key := yp + "/" + name
			if fresh == nil {
				fresh = Exports{}
			}
			if fresh[key] == nil {
				fresh[key] = map[string]reflect.Value{}
			}
			fresh[key][n.Name()] = reflect.Zero(reflect.PointerTo(n))
			if in.hostSyms[key] == nil {
				in.hostSyms[key] = map[string]reflect.Value{}
			}
			in.hostSyms[key][n.Name()] = fresh[key][n.Name()]
		})
	}
	for _, v := range vars {
		if v.Value.IsValid() {
			add(v.Value.Type())
		}
	}
	for _, f := range funcs {
		if f.IsValid() {
			add(f.Type())
		}
	}
	if fresh != nil && in.inst != nil && !in.inst.broken {
		if err := in.inst.yi.Use(fresh); err != nil {
			in.inst.broken = true // the next Eval rebuilds with in.hostSyms
		}
	}
}

// hostPath reports whether an import path is the host's: its package main
// or a module path (a first element with a dot), not the standard library.
func hostPath(p string) bool {
	if p == "main" {
		return true
	}
	first, _, _ := strings.Cut(p, "/")
	return strings.Contains(first, ".")
}

func isExported(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}

// walkNamed calls fn for every named type reachable from t (t itself,
// fields, elements, keys, parameters, results), once per type in seen.
func walkNamed(t reflect.Type, seen map[reflect.Type]bool, fn func(reflect.Type)) {
	if seen[t] {
		return
	}
	seen[t] = true
	if t.Name() != "" && t.PkgPath() != "" {
		fn(t)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		walkNamed(t.Elem(), seen, fn)
	case reflect.Map:
		walkNamed(t.Key(), seen, fn)
		walkNamed(t.Elem(), seen, fn)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				walkNamed(f.Type, seen, fn)
			}
		}
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			walkNamed(t.In(i), seen, fn)
		}
		for i := 0; i < t.NumOut(); i++ {
			walkNamed(t.Out(i), seen, fn)
		}
	}
	if t.Name() != "" && t.Kind() != reflect.Interface {
		// Methods' signatures name types too (a method returning Item).
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			walkNamed(pt.Method(i).Type, seen, fn)
		}
	}
}
