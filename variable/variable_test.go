package variable_test

import (
	"fmt"
	"io"
	"iter"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

func TestVariablePreviewRedactsSecrets(t *testing.T) {
	v := variable.Variable{Name: "token", Value: "sk-live-1234", Type: reflect.TypeFor[string](), Secret: true}
	got := v.Preview(0)
	if strings.Contains(got, "sk-live") || got != "<secret string>" {
		t.Errorf("secret Preview = %q", got)
	}
	v.Secret = false
	if got := v.Preview(0); got != `sk-live-1234` {
		t.Errorf("Preview = %q", got)
	}
	if got := variable.Redacted(nil); got != "<secret any>" {
		t.Errorf("Redacted(nil) = %q", got)
	}
}

func TestTypeName(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want string
	}{
		{nil, "any"},
		{reflect.TypeFor[any](), "any"},
		{reflect.TypeFor[string](), "string"},
		{reflect.TypeFor[*point](), "*variable_test.point"},
		{reflect.TypeFor[[]point](), "[]variable_test.point"},
		{reflect.TypeFor[map[string][]byte](), "map[string][]uint8"},
		{reflect.TypeFor[error](), "error"},
		{reflect.TypeFor[box[point]](), "variable_test.box[variable_test.point]"},
		{reflect.TypeFor[map[string]*box[[]point]](), "map[string]*variable_test.box[[]variable_test.point]"},
		{reflect.TypeFor[func(point, ...int) (box[int], error)](), "func(variable_test.point, ...int) (variable_test.box[int], error)"},
		{reflect.TypeFor[iter.Seq[point]](), "iter.Seq[variable_test.point]"},
		{reflect.TypeFor[struct {
			P point `json:"p"`
			N int
		}](), "struct { P variable_test.point \"json:\\\"p\\\"\"; N int }"},
		// The snippet interpreter's tag naming a declared struct type is left out.
		{reflect.SliceOf(reflect.StructOf([]reflect.StructField{
			{Name: "N", Type: reflect.TypeFor[int](), Tag: `json:"n" byreftype:"main.Row"`},
			{Name: "M", Type: reflect.TypeFor[string](), Tag: `xml:"byreftype:"`},
		})), "[]struct { N int \"json:\\\"n\\\"\"; M string \"xml:\\\"byreftype:\\\"\" }"},
		{reflect.StructOf([]reflect.StructField{
			{Name: "P", Type: reflect.TypeFor[point](), Tag: `byreftype:"main.Row"`},
		}), "struct { P variable_test.point }"},
		// A declared struct type without fields carries it on a blank field.
		{reflect.SliceOf(reflect.StructOf([]reflect.StructField{
			{Name: "_", PkgPath: "main", Type: reflect.TypeFor[struct{}](), Tag: `byreftype:"main.Empty"`},
		})), "[]struct {}"},
		{reflect.StructOf([]reflect.StructField{
			{Name: "_", PkgPath: "main", Type: reflect.TypeFor[struct{}](), Tag: `json:"-"`},
		}), "struct { _ struct {} \"json:\\\"-\\\"\" }"},
	}
	for _, tt := range tests {
		if got := variable.TypeName(tt.t); got != tt.want {
			t.Errorf("TypeName(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestAs(t *testing.T) {
	v := variable.Variable{Name: "n", Value: 42, Type: reflect.TypeFor[int]()}
	if n, err := variable.As[int](v); err != nil || n != 42 {
		t.Errorf("As[int] = %v, %v", n, err)
	}
	_, err := variable.As[string](v)
	if err == nil || err.Error() != `variable "n" holds int, not string` {
		t.Errorf("As[string] error = %v", err)
	}
	if _, err := variable.As[float64](v); err == nil {
		t.Error("As[float64] of an int succeeded")
	}
	// Interfaces.
	if x, err := variable.As[any](v); err != nil || x != 42 {
		t.Errorf("As[any] = %v, %v", x, err)
	}
	if _, err := variable.As[fmt.Stringer](v); err == nil || !strings.Contains(err.Error(), "not fmt.Stringer") {
		t.Errorf("As[fmt.Stringer] error = %v", err)
	}
	// A nil value is the zero value of nillable types only.
	nilVar := variable.Variable{Name: "r", Type: reflect.TypeFor[io.Reader]()}
	if r, err := variable.As[io.Reader](nilVar); err != nil || r != nil {
		t.Errorf("As[io.Reader](nil) = %v, %v", r, err)
	}
	if p, err := variable.As[*point](nilVar); err != nil || p != nil {
		t.Errorf("As[*point](nil) = %v, %v", p, err)
	}
	if m, err := variable.As[map[string]int](nilVar); err != nil || m != nil {
		t.Errorf("As[map](nil) = %v, %v", m, err)
	}
	if _, err := variable.As[int](nilVar); err == nil {
		t.Error("As[int](nil) succeeded")
	}
	if _, err := variable.As[point](nilVar); err == nil {
		t.Error("As[point](nil) succeeded")
	}
	// Pointer identity is kept: As does not copy.
	p := &point{1, 2}
	got, err := variable.As[*point](variable.Variable{Name: "p", Value: p})
	if err != nil || got != p {
		t.Errorf("As[*point] = %p, %v; want %p", got, err, p)
	}
}

type box[T any] struct{ V T }

// TestPackageQualifier: host packages get distinct names, never a
// standard package's a snippet may use; the standard library and the
// host's package main keep theirs.
func TestPackageQualifier(t *testing.T) {
	for _, c := range []struct{ path, name, want string }{
		{"example.test/qa/store", "store", "store"},
		{"example.test/qb/store", "store", "store2"},
		{"example.test/qa/store", "store", "store"}, // the same again
		{"example.test/qa/time", "time", "time2"},
		{"example.test/qa/errors", "errors", "errors2"},
		{"time", "time", "time"},
		{"encoding/json", "json", "json"},
		{"main", "main", "main"},
	} {
		if got := variable.PackageQualifier(c.path, c.name); got != c.want {
			t.Errorf("PackageQualifier(%q, %q) = %q, want %q", c.path, c.name, got, c.want)
		}
	}
}
