package interp

import (
	"fmt"
	"testing"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// TestTypeNames: %T verbs alone formatting a yaegi.TypeNamed argument
// print its name, with their flags and width; every other use of it
// prints its value.
func TestTypeNames(t *testing.T) {
	c := yaegi.TypeNamed{Value: 7, Type: "main.C"}
	for _, tc := range []struct {
		format string
		args   []any
		want   string
	}{
		{"%T %v", []any{c, c}, "main.C 7"},
		{"%-8T|%5d%%", []any{c, 3}, "main.C  |    3%"},
		{"%*T|%T", []any{9, c, 1.5}, "   main.C|float64"},
		{"%[2]T %[1]v", []any{c, c}, "main.C 7"},
		{"%v %[1]T", []any{c}, "7 int"}, // one argument for both: reflect's name
		{"%d %T", []any{c}, "7 %!T(MISSING)"},
		{"trailing %", []any{c}, "trailing %!(NOVERB)%!(EXTRA int=7)"},
		{"%.2f %T", []any{1.5, c}, "1.50 main.C"},
	} {
		format, args := typeNames(tc.format, tc.args)
		if got := fmt.Sprintf(format, args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.format, got, tc.want)
		}
	}
}
