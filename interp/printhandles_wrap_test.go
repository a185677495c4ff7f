package interp

import (
	"fmt"
	"strings"
	"testing"
)

// secretConn is a handle (it has a HandleIdentity method) that keeps a
// secret in an unexported field.
type secretConn struct{ dsn string }

func (*secretConn) HandleIdentity() string { return "conn" }

// fakeWrapper has the shape of the interpreter's wrapper of a value of a
// snippet's type with a String method: the value, then the method.
type fakeWrapper struct {
	IValue  any
	WString func() string
}

func (w fakeWrapper) String() string { return w.WString() }

// TestHideWrappedTangled: a snippet Stringer whose data is beyond the
// print limits (a cycle) and holds a handle prints through its method for
// every verb; one whose data holds a handle within them prints that data
// with the handle's preview.
func TestHideWrappedTangled(t *testing.T) {
	conn := &secretConn{dsn: "password=hunter2"}
	cyclic := []any{nil, conn}
	cyclic[0] = cyclic
	w := fakeWrapper{IValue: cyclic, WString: func() string { return "stringer" }}
	for _, verb := range []string{"%v", "%#v", "%d", "%+v"} {
		a := []any{w}
		fmtArgs("fmt.Sprintf", verb, a)
		if got := fmt.Sprintf(verb, a...); got != "stringer" {
			t.Errorf("%s of a tangled wrapper = %q, want its String", verb, got)
		}
	}
	w.IValue = struct{ C *secretConn }{conn}
	a := []any{w}
	fmtArgs("fmt.Sprintf", "%#v", a)
	if got := fmt.Sprintf("%#v", a...); strings.Contains(got, "hunter2") || !strings.Contains(got, "*interp.secretConn handle (conn)") {
		t.Errorf("%%#v of a wrapper holding a handle = %q", got)
	}
}
