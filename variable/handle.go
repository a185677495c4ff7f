package variable

import (
	"database/sql/driver"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// Handle is implemented by host types that are handles and name
// themselves: HandleIdentity returns a short identity that holds no
// secret, e.g. "customers on db1" or "", shown after the type.
type Handle interface {
	HandleIdentity() string
}

// RegisterHandle marks values of type t as handles: their previews show
// t and no field, and modification tracking sees only their identity
// (see the package documentation, "Previews and handles"). It is meant for a library's
// types the host cannot give a HandleIdentity method, e.g.
//
//	variable.RegisterHandle(reflect.TypeFor[*pgxpool.Pool]())
//
// A pointer type covers the pointers only; register the struct type too
// when values of it are held directly. RegisterHandle is safe for
// concurrent use; call it before the runs that hold such values.
func RegisterHandle(t reflect.Type) {
	registeredHandles.Store(t, true)
	handleTypes.Delete(t)
	handlesRegistered.Store(true)
}

var (
	registeredHandles sync.Map // reflect.Type → true
	handleTypes       sync.Map // reflect.Type → bool, the answers of isHandle
	// handlesRegistered is set once a type is registered: until then a
	// type without methods is no handle.
	handlesRegistered atomic.Bool
)

// stdHandles are the standard library's handle types, by package path and
// name; a pointer to one is a handle too.
var stdHandles = map[[2]string]bool{
	{"database/sql", "DB"}: true, {"database/sql", "Conn"}: true, {"database/sql", "Tx"}: true,
	{"database/sql", "Stmt"}: true, {"database/sql", "Rows"}: true, {"database/sql", "Row"}: true,
	{"net/http", "Client"}: true, {"net/http", "Transport"}: true, {"net/http", "Server"}: true,
	{"os", "File"}: true, {"os", "Process"}: true, {"os", "Root"}: true,
	{"os/exec", "Cmd"}: true, {"crypto/tls", "Conn"}: true,
	{"net", "TCPListener"}: true, {"net", "UnixListener"}: true,
}

// deadlined has the methods a connection (net.Conn, net.PacketConn) has
// beyond reading and writing, without importing package net.
type deadlined interface {
	Close() error
	SetDeadline(time.Time) error
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

var (
	handleType    = reflect.TypeFor[Handle]()
	deadlinedType = reflect.TypeFor[deadlined]()
)

// IsHandle reports whether values of type t are handles (see the package
// documentation, "Previews and handles"): an interface type is not, its
// dynamic values may be.
func IsHandle(t reflect.Type) bool { return t != nil && isHandle(t) }

// isHandle reports whether values of type t are handles.
func isHandle(t reflect.Type) bool {
	if t.NumMethod() == 0 && t.Kind() != reflect.Pointer && !handlesRegistered.Load() {
		// The common cell of a preview (a number, a string, a plain
		// struct): no handle, without a lookup.
		return false
	}
	if h, ok := handleTypes.Load(t); ok {
		return h.(bool)
	}
	h := isHandleType(t)
	handleTypes.Store(t, h)
	return h
}

func isHandleType(t reflect.Type) bool {
	if _, ok := registeredHandles.Load(t); ok {
		return true
	}
	if t.Kind() == reflect.Interface {
		// The dynamic value decides.
		return false
	}
	if t.Implements(handleType) || t.Implements(deadlinedType) {
		return true
	}
	named := t
	if t.Kind() == reflect.Pointer {
		named = t.Elem()
	}
	return stdHandles[[2]string{named.PkgPath(), named.Name()}]
}

// handlePreview returns the preview of a handle v (not nil): its type and,
// where it has one that holds no secret, its identity.
func handlePreview(v reflect.Value) string {
	s := TypeName(v.Type()) + " handle"
	if !v.CanInterface() {
		return s
	}
	id := func() (id string) {
		defer func() {
			if recover() != nil {
				id = ""
			}
		}()
		switch x := v.Interface().(type) {
		case Handle:
			return x.HandleIdentity()
		case interface{ Driver() driver.Driver }: // *sql.DB
			return "driver " + TypeName(reflect.TypeOf(x.Driver()))
		case interface{ Name() string }: // *os.File
			if v.Type().String() == "*os.File" {
				return x.Name()
			}
		}
		return ""
	}()
	if id == "" {
		return s
	}
	return s + " (" + id + ")"
}
