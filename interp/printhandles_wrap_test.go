package interp

import (
	"fmt"
	"regexp"
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

type inner struct{ C *secretConn }

// shapes has fields of the shapes a struct type reflect builds must keep:
// blank, embedded (by value and by pointer), unexported, arrays, maps.
type shapes struct {
	_ int
	_ string
	inner
	*Exported
	conn  secretConn
	conns [2]*secretConn
	byKey map[*secretConn]int
	none  *secretConn
	N     int
}

// Exported is embedded in shapes by pointer.
type Exported struct{ C *secretConn }

// TestHideFieldsShapes: every shape of field keeps its name and value
// when a struct prints from a copy; only the handles change. (A map key
// in an unexported field prints as its address: fmt calls no method
// there, and compiled Go prints a pointer key so too.)
func TestHideFieldsShapes(t *testing.T) {
	conn := &secretConn{dsn: "password=hunter2"}
	v := shapes{inner: inner{conn}, Exported: &Exported{conn}, conn: *conn, conns: [2]*secretConn{conn, nil},
		byKey: map[*secretConn]int{conn: 1}, none: nil, N: 7}
	for format, want := range map[string]string{
		"%v":  "{0  {*interp.secretConn handle (conn)} ADDR interp.secretConn handle [*interp.secretConn handle (conn) <nil>] map[ADDR:1] <nil> 7}",
		"%+v": "{_:0 _: inner:{C:*interp.secretConn handle (conn)} Exported:ADDR conn:interp.secretConn handle conns:[*interp.secretConn handle (conn) <nil>] byKey:map[ADDR:1] none:<nil> N:7}",
	} {
		a := []any{v}
		fmtArgs("fmt.Sprintf", format, a)
		got := fmt.Sprintf(format, a...)
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(want), "ADDR", "0x[0-9a-f]+") + "$")
		if !re.MatchString(got) {
			t.Errorf("%s:\n got %s\nwant %s", format, got, want)
		}
	}
	a := []any{&v, map[any]int{conn: 1, "b": 2}}
	fmtArgs("fmt.Sprint", "", a)
	if got := fmt.Sprint(a...); strings.Contains(got, "hunter2") || !strings.HasPrefix(got, "&{") ||
		!strings.HasSuffix(got, "map[b:2 *interp.secretConn handle (conn):1]") {
		t.Errorf("a pointer to it and a map print %s", got)
	}
}

type benchRow struct {
	Name string
	N    int
	Tags []string
}

// BenchmarkFmtArgs: the check of fmt's arguments for 100 rows without a
// handle (the walk's added type test), and with one (the copy).
func BenchmarkFmtArgs(b *testing.B) {
	rows := make([]benchRow, 100)
	for i := range rows {
		rows[i] = benchRow{Name: "row", N: i, Tags: []string{"a", "b"}}
	}
	withHandle := struct {
		Rows []benchRow
		Conn *secretConn
	}{rows, &secretConn{}}
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fmtArgs("fmt.Sprint", "", []any{rows})
		}
	})
	b.Run("handle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fmtArgs("fmt.Sprint", "", []any{withHandle})
		}
	})
}
