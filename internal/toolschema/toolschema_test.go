package toolschema

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// Func makes one parameter of type any per property (required first),
// gives the call the arguments as JSON, and falls back to one "arguments"
// parameter when the properties cannot each be one.
func TestFunc(t *testing.T) {
	var got any
	call := func(ctx context.Context, args any) ([]byte, error) {
		got = args
		return []byte("ok"), nil
	}
	input := map[string]any{"type": "object", "required": []any{"city"},
		"properties": map[string]any{"seats": map[string]any{"type": "integer"}, "city": map[string]any{"type": "string"}}}
	fn, params := Func(input, false, call)
	if len(params) != 2 || params[0].Name != "city" || params[0].Optional || params[1].Name != "seats" || !params[1].Optional {
		t.Fatalf("params %+v", params)
	}
	ft := reflect.TypeOf(fn)
	if ft.NumIn() != 3 || ft.In(1) != reflect.TypeFor[any]() || ft.Out(0) != reflect.TypeFor[string]() {
		t.Fatalf("func type %v", ft)
	}
	type place struct{ Name string }
	out := reflect.ValueOf(fn).Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(any(place{"Paris"})), reflect.Zero(reflect.TypeFor[any]())})
	if out[0].String() != "ok" || !out[1].IsNil() {
		t.Fatalf("result %v, %v", out[0], out[1])
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"city":{"Name":"Paris"}}` {
		t.Fatalf("arguments %s: a variable's value goes as its JSON, an absent optional one not at all", b)
	}

	whole := map[string]any{"type": "object", "oneOf": []any{map[string]any{"required": []any{"a"}}}}
	_, params = Func(whole, true, call)
	if len(params) != 1 || params[0].Name != ArgsParam {
		t.Fatalf("params %+v, want the one %q parameter", params, ArgsParam)
	}
}
