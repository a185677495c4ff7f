package variable

import (
	"hash/maphash"
	"math"
	"reflect"
)

// Versioned is implemented by types that count their own changes, such as a
// browser whose internals change on their own. When a value implements it,
// Fingerprint uses Version instead of walking the value.
type Versioned interface {
	Version() uint64
}

// maxFingerprintNodes bounds the work of one Fingerprint: values larger than
// this are fingerprinted on their first maxFingerprintNodes nodes only.
const maxFingerprintNodes = 1 << 16

var fingerprintSeed = maphash.MakeSeed()

// Fingerprint returns a hash of everything reachable from v: the pointed-to
// values of pointers, the elements of slices, arrays and maps (in any order),
// and every struct field, exported or not. Comparing fingerprints taken
// before and after a call tells whether the call changed the value in place.
//
// Channels, funcs and handles (a *sql.DB, a connection, a file: see
// RegisterHandle) are hashed by identity, so that using a handle does not
// count as changing it. A value implementing Versioned is hashed by its
// Version. Cycles are followed once. The walk stops after
// 65,536 nodes, so a change deep inside a huge value may go unseen.
func Fingerprint(v any) uint64 {
	f := fingerprinter{seen: &seenSet{}}
	f.h.SetSeed(fingerprintSeed)
	f.value(reflect.ValueOf(v))
	return f.h.Sum64()
}

// NeedsFingerprint reports whether a value of type t can be changed in place
// through a copy of it, so that a call may modify a variable it was given.
// Scalars and strings cannot.
func NeedsFingerprint(t reflect.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return false
	case reflect.Array:
		return NeedsFingerprint(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if NeedsFingerprint(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

var versionedType = reflect.TypeFor[Versioned]()

type fingerprinter struct {
	h     maphash.Hash
	seen  *seenSet
	layer seenSet // the storage of seen for a map entry's fingerprinter
	nodes int
}

// seenKey identifies a walked pointer. The type is part of it: a pointer to
// a struct and a pointer to its first field hold the same address.
type seenKey struct {
	p uintptr
	t reflect.Type
}

// seenSet holds the pointers already walked. Each map entry is walked with
// a layer of its own over its parent's, merged only after the whole map, so
// that what an entry contributes does not depend on the iteration order.
type seenSet struct {
	m      map[seenKey]bool
	parent *seenSet
}

func (s *seenSet) has(k seenKey) bool {
	for ; s != nil; s = s.parent {
		if s.m[k] {
			return true
		}
	}
	return false
}

func (s *seenSet) add(k seenKey) {
	if s.m == nil {
		s.m = make(map[seenKey]bool)
	}
	s.m[k] = true
}

func (f *fingerprinter) u64(x uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	f.h.Write(b[:])
}

func (f *fingerprinter) value(v reflect.Value) {
	f.nodes++
	if f.nodes > maxFingerprintNodes {
		return
	}
	if !v.IsValid() {
		f.u64(0)
		return
	}
	if v.Type().Implements(versionedType) && v.CanInterface() && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		f.u64(v.Interface().(Versioned).Version())
		return
	}
	f.u64(uint64(v.Kind()))
	if v.Kind() != reflect.Interface && isHandle(v.Type()) {
		// A handle's insides change on every use: only which handle it
		// is counts.
		f.h.WriteString(v.Type().String())
		if k := v.Kind(); k == reflect.Pointer || k == reflect.Map || k == reflect.Chan || k == reflect.Func || k == reflect.UnsafePointer {
			f.u64(uint64(v.Pointer()))
		}
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			f.u64(1)
		} else {
			f.u64(2)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.u64(v.Uint())
	case reflect.Float32, reflect.Float64:
		f.u64(math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		f.u64(math.Float64bits(real(c)))
		f.u64(math.Float64bits(imag(c)))
	case reflect.String:
		f.h.WriteString(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			f.u64(0)
			return
		}
		p := v.Pointer()
		f.u64(uint64(p))
		k := seenKey{p, v.Type()}
		if f.seen.has(k) {
			return
		}
		f.seen.add(k)
		f.value(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			f.u64(0)
			return
		}
		f.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			f.u64(0)
			return
		}
		f.u64(uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			f.h.Write(v.Bytes())
			return
		}
		for i := 0; i < v.Len() && f.nodes <= maxFingerprintNodes; i++ {
			f.value(v.Index(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len() && f.nodes <= maxFingerprintNodes; i++ {
			f.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			f.u64(0)
			return
		}
		f.u64(uint64(v.Len()))
		// Order-independent: sum the entries' own hashes.
		var sum uint64
		var layers []map[seenKey]bool
		it := v.MapRange()
		for it.Next() && f.nodes <= maxFingerprintNodes {
			e := fingerprinter{layer: seenSet{parent: f.seen}, nodes: f.nodes}
			e.seen = &e.layer
			e.h.SetSeed(fingerprintSeed)
			e.value(it.Key())
			e.value(it.Value())
			f.nodes = e.nodes
			sum += e.h.Sum64()
			if e.layer.m != nil {
				layers = append(layers, e.layer.m)
			}
		}
		for _, m := range layers {
			for k := range m {
				f.seen.add(k)
			}
		}
		f.u64(sum)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f.value(v.Field(i))
		}
	default: // chan, func, unsafe pointer: identity
		f.u64(uint64(v.Pointer()))
	}
}
