package interp

import (
	"fmt"
	"reflect"
)

// byref: run-time panics carry Go's messages and values. A failed index or
// slice expression panics with a runtime.Error saying what Go says
// ("index out of range [5] with length 2"; reflect said "reflect: slice
// index out of range"), a failed type assertion with a runtime.Error
// without the source position in its message, and a nil pointer
// dereference (which reflect reports as a call on a zero Value) with
// "invalid memory address or nil pointer dereference".

// runtimeError is a run-time panic value, a runtime.Error as Go's are.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks runtimeError as a runtime.Error.
func (runtimeError) RuntimeError() {}

// assertionError is the panic value of a failed type assertion, a
// runtime.Error whose message has no "runtime error: " prefix, as Go's
// *runtime.TypeAssertionError.
type assertionError string

func (e assertionError) Error() string { return string(e) }

// RuntimeError marks assertionError as a runtime.Error.
func (assertionError) RuntimeError() {}

func assertionErrorf(format string, args ...any) assertionError {
	return assertionError(fmt.Sprintf(format, args...))
}

const nilDeref = runtimeError("invalid memory address or nil pointer dereference")

// goPanic returns the panic value Go would have for r, a value recovered
// from the interpreter's own code: reflect's panics on a zero Value (a
// nil pointer dereference in the snippet) become Go's.
func goPanic(r any) any {
	if e, ok := r.(*reflect.ValueError); ok && e.Kind == reflect.Invalid {
		return nilDeref
	}
	return r
}

// indexValue is a[i], with Go's panic when i is out of range.
func indexValue(a reflect.Value, i int) reflect.Value {
	if i < 0 || i >= a.Len() {
		panic(indexError(i, a.Len()))
	}
	return a.Index(i)
}

func indexError(i, n int) runtimeError {
	if i < 0 {
		return runtimeError(fmt.Sprintf("index out of range [%d]", i))
	}
	return runtimeError(fmt.Sprintf("index out of range [%d] with length %d", i, n))
}

// sliceValue is a[lo:hi], with Go's panics.
func sliceValue(a reflect.Value, lo, hi int) reflect.Value {
	limit, what := a.Len(), "length"
	if a.Kind() == reflect.Slice {
		limit, what = a.Cap(), "capacity"
	}
	switch {
	case hi < 0 || hi > limit:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [:%d] with %s %d", hi, what, limit)))
	case lo < 0 || lo > hi:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [%d:%d]", lo, hi)))
	}
	return a.Slice(lo, hi)
}

// sliceValue3 is a[lo:hi:max], with Go's panics.
func sliceValue3(a reflect.Value, lo, hi, max int) reflect.Value {
	limit, what := a.Len(), "length"
	if a.Kind() == reflect.Slice {
		limit, what = a.Cap(), "capacity"
	}
	switch {
	case max < 0 || max > limit:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [::%d] with %s %d", max, what, limit)))
	case hi < 0 || hi > max:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [:%d:%d]", hi, max)))
	case lo < 0 || lo > hi:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [%d:%d:]", lo, hi)))
	}
	return a.Slice3(lo, hi, max)
}
