package run_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

type gtPoint struct {
	X, Y int
	Tag  string `json:"tag,omitempty"`
	skip bool   // unexported: not written
}

var _ = gtPoint{skip: true}

type gtCelsius float64

type gtTree struct {
	Kids []*gtTree
	Pt   gtPoint
}

func TestGoType(t *testing.T) {
	const p = "github.com/byref/byref/run_test."
	tests := []struct {
		t    reflect.Type
		want string
	}{
		{nil, "any"},
		{reflect.TypeFor[any](), "any"},
		{reflect.TypeFor[int](), "int"},
		{reflect.TypeFor[error](), "error"},
		{reflect.TypeFor[[]byte](), "[]uint8"},
		{reflect.TypeFor[*gtPoint](), "*" + p + "gtPoint"},
		{reflect.TypeFor[map[string][]gtPoint](), "map[string][]" + p + "gtPoint"},
		{reflect.TypeFor[[3]gtCelsius](), "[3]" + p + "gtCelsius"},
		{reflect.TypeFor[<-chan int](), "<-chan int"},
		{reflect.TypeFor[func(context.Context, ...string) (time.Time, error)](), "func(context.Context, ...string) (time.Time, error)"},
		{reflect.TypeFor[struct {
			A int `json:"a"`
			b int
		}](), `struct { A int "json:\"a\"" }`},
		{reflect.TypeFor[json.RawMessage](), "encoding/json.RawMessage"},
	}
	for _, tt := range tests {
		if got := run.GoType(tt.t); got != tt.want {
			t.Errorf("GoType(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestNamedTypes(t *testing.T) {
	const p = "github.com/byref/byref/run_test."
	seen := map[string]bool{}
	got := run.NamedTypes(seen, reflect.TypeFor[func(context.Context, []gtTree, gtCelsius) time.Time]())
	want := []run.NamedType{
		{Name: p + "gtTree", Underlying: "struct { Kids []*" + p + "gtTree; Pt " + p + "gtPoint }"},
		{Name: p + "gtPoint", Underlying: `struct { X int; Y int; Tag string "json:\"tag,omitempty\"" }`},
		{Name: p + "gtCelsius", Underlying: "float64"},
		{Name: "time.Time", Underlying: "struct { }", Unmarshals: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NamedTypes =\n%+v\nwant\n%+v", got, want)
	}
	// Described once: a second call with the same seen set adds nothing.
	if again := run.NamedTypes(seen, reflect.TypeFor[[]gtPoint]()); len(again) != 0 {
		t.Errorf("described again: %+v", again)
	}
}

func TestFuncSymbol(t *testing.T) {
	if got := run.FuncSymbol(run.GoType); got != "github.com/byref/byref/run.GoType" {
		t.Errorf("FuncSymbol = %q", got)
	}
	if run.FuncSymbol(nil) != "" || run.FuncSymbol(3) != "" {
		t.Error("FuncSymbol of a non-function is not empty")
	}
}
