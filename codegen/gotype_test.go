package codegen

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

type rtPoint struct {
	X   int `json:"x"`
	Pts []*rtPoint
	rtEmbedded
	time.Time
}

type rtEmbedded struct{ Z int }

// TestParseTypeRoundTrip: every type the log writes (run.GoType) parses
// and writes back the same.
func TestParseTypeRoundTrip(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[int](), reflect.TypeFor[any](), reflect.TypeFor[error](), reflect.TypeFor[[]byte](),
		reflect.TypeFor[map[string][]*rtPoint](), reflect.TypeFor[[4]json.RawMessage](), reflect.TypeFor[chan<- int](),
		reflect.TypeFor[<-chan []string](), reflect.TypeFor[chan map[int]bool](),
		reflect.TypeFor[func(context.Context, ...string) (map[string]any, error)](), reflect.TypeFor[func()](),
		reflect.TypeFor[func(func(int) bool) func() string](),
		reflect.TypeFor[struct {
			A  int `json:"a,omitempty" xml:"b"`
			B  []struct{ C string }
			Fn func(int) (int, error)
		}](),
		reflect.TypeFor[fmtStringer](),
	} {
		s := run.GoType(typ)
		got, err := parseType(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if got.String() != s {
			t.Errorf("parseType(%q).String() = %q", s, got.String())
		}
	}
	// The underlying type of a struct with embedded fields.
	for _, nt := range run.NamedTypes(map[string]bool{}, reflect.TypeFor[rtPoint]()) {
		if _, err := parseType(nt.Underlying); err != nil {
			t.Errorf("%s's underlying %q: %v", nt.Name, nt.Underlying, err)
		}
	}
	for _, bad := range []string{"", "[", "map[string", "func(", "struct {", "example.com/p.List[int]", "[]int extra"} {
		if _, err := parseType(bad); err == nil {
			t.Errorf("parseType(%q) did not fail", bad)
		}
	}
}

type fmtStringer interface{ String() string }
