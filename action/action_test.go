package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
	"github.com/invopop/jsonschema"
)

type Mode string

// errorFirst has its results the wrong way round, as a definition to refuse.
//
//lint:ignore ST1008 the wrong shape is what is tested
func errorFirst() (error, int) { return nil, 0 }

type Page struct {
	URL   string
	Title string
}

func TestNewRefuses(t *testing.T) {
	ctxType := func(ctx context.Context, s string) {}
	tests := []struct {
		name string
		spec action.Spec
		msg  string // a fragment naming the problem or the fix
	}{
		{"nil Func", action.Spec{Name: "a"}, "Spec.Func is nil; give the Go function to call"},
		{"non-func", action.Spec{Name: "a", Func: 42}, "Spec.Func is a int, not a function"},
		{"variadic", action.Spec{Name: "a", Func: func(xs ...int) {}, Params: []action.Param{{Name: "xs"}}}, "variadic functions are not supported (func(...int)); take a slice instead"},
		{"ctx not first", action.Spec{Name: "a", Func: func(s string, ctx context.Context) {}, Params: []action.Param{{Name: "s"}, {Name: "ctx"}}}, "context.Context must be the first parameter, not parameter 2"},
		{"too few params", action.Spec{Name: "a", Func: func(a, b int) {}, Params: []action.Param{{Name: "a"}}}, "takes 2 parameters (not counting a leading context) but Spec.Params declares 1; declare one Param per parameter"},
		{"too many params", action.Spec{Name: "a", Func: ctxType, Params: []action.Param{{Name: "s"}, {Name: "t"}}}, "takes 1 parameters"},
		{"two results without error", action.Spec{Name: "a", Func: func() (int, string) { return 0, "" }}, "must return (value, error)"},
		{"error first", action.Spec{Name: "a", Func: errorFirst}, "must return (value, error)"},
		{"three results", action.Spec{Name: "a", Func: func() (int, int, error) { return 0, 0, nil }}, "returns 3 values; return one value, an error, or (value, error)"},
		{"duplicate params", action.Spec{Name: "a", Func: func(a, b int) {}, Params: []action.Param{{Name: "x"}, {Name: "x"}}}, `two parameters are named "x"`},
		{"param named return", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "return"}}}, `"return" is reserved`},
		{"param name empty", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{}}}, "parameter 1: the name is empty"},
		{"param name not identifier", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "page-url"}}}, `the name "page-url" must be a Go identifier`},
		{"param name keyword", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "type"}}}, `the name "type" must be a Go identifier`},
		{"empty name", action.Spec{Func: func() {}}, "Spec.Name is empty"},
		{"name too long", action.Spec{Name: strings.Repeat("a", 65), Func: func() {}}, "longer than 64 characters"},
		{"name keyword", action.Spec{Name: "func", Func: func() {}}, "must be a Go identifier"},
		{"name with dash", action.Spec{Name: "get-page", Func: func() {}}, "must be a Go identifier"},
		{"RefOnly and RawOnly", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", RefOnly: true, RawOnly: true}}}, `parameter "n": RefOnly and RawOnly are both set`},
		{"RefOnly with enum", action.Spec{Name: "a", Func: func(string) {}, Params: []action.Param{{Name: "s", RefOnly: true, Enum: []any{"x"}}}}, "an enum parameter takes raw values, so it cannot be RefOnly"},
		{"enum on non-representable", action.Spec{Name: "a", Func: func(chan int) {}, Params: []action.Param{{Name: "c", Enum: []any{1}}}}, "takes references only"},
		{"RawOnly on non-representable", action.Spec{Name: "a", Func: func(io.Reader) {}, Params: []action.Param{{Name: "r", RawOnly: true}}}, "cannot be RawOnly or have an enum"},
		{"enum value wrong type", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", Enum: []any{1, "two"}}}}, "enum value two is not a int"},
		{"enum value not integer", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", Enum: []any{1.5}}}}, "enum value 1.5 is not a int"},
		{"enum value not marshalable", action.Spec{Name: "a", Func: func(string) {}, Params: []action.Param{{Name: "s", Enum: []any{make(chan int)}}}}, "enum value"},
		{"default wrong type", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", Default: "3"}}}, "the default 3 (string) is not assignable to int"},
		{"default int to string", action.Spec{Name: "a", Func: func(string) {}, Params: []action.Param{{Name: "s", Default: 65}}}, "is not assignable to string"},
		{"default lossy float to int", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", Default: 1.5}}}, "the default 1.5 (float64) is not assignable to int"},
		{"default overflows", action.Spec{Name: "a", Func: func(int8) {}, Params: []action.Param{{Name: "n", Default: 300}}}, "is not assignable to int8"},
		{"default negative to uint", action.Spec{Name: "a", Func: func(uint) {}, Params: []action.Param{{Name: "n", Default: -1}}}, "is not assignable to uint"},
		{"default bool to int", action.Spec{Name: "a", Func: func(int) {}, Params: []action.Param{{Name: "n", Default: true}}}, "is not assignable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := action.New(tt.spec)
			if err == nil {
				t.Fatalf("New succeeded: %v", a)
			}
			if a != nil {
				t.Errorf("New returned an action with its error")
			}
			if !errors.Is(err, action.ErrInvalidSpec) {
				t.Errorf("error %v does not wrap ErrInvalidSpec", err)
			}
			var se *action.SpecError
			if !errors.As(err, &se) || se.Action != tt.spec.Name {
				t.Errorf("error %v is not a *SpecError for %q", err, tt.spec.Name)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error\n\t%s\ndoes not say\n\t%s", err, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), `action "`+tt.spec.Name+`": `) {
				t.Errorf("error %q does not name the action", err)
			}
		})
	}
}

func TestMustNewPanics(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, action.ErrInvalidSpec) {
			t.Errorf("MustNew panicked with %v, want an ErrInvalidSpec error", r)
		}
	}()
	action.MustNew(action.Spec{Name: "bad"})
	t.Error("MustNew did not panic")
}

func TestNewAcceptedShapes(t *testing.T) {
	tests := []struct {
		name        string
		fn          any
		params      []action.Param
		ctx, errRes bool
		result      reflect.Type
	}{
		{"nothing", func() {}, nil, false, false, nil},
		{"ctx only", func(context.Context) {}, nil, true, false, nil},
		{"error only", func() error { return nil }, nil, false, true, nil},
		{"value only", func(a int) string { return "" }, []action.Param{{Name: "a"}}, false, false, reflect.TypeFor[string]()},
		{"value and error", func(ctx context.Context, p *Page) (*Page, error) { return p, nil }, []action.Param{{Name: "p"}}, true, true, reflect.TypeFor[*Page]()},
		{"ctx and error", func(ctx context.Context, a, b int) error { return nil }, []action.Param{{Name: "a"}, {Name: "b"}}, true, true, nil},
		{"returns error as value of any", func() any { return nil }, nil, false, false, reflect.TypeFor[any]()},
		{"unicode param", func(int) {}, []action.Param{{Name: "größe"}}, false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := action.New(action.Spec{Name: "act", Description: "does", Result: "a thing", Func: tt.fn, Params: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if a.TakesContext() != tt.ctx || a.ReturnsError() != tt.errRes || a.Result() != tt.result {
				t.Errorf("ctx=%v err=%v result=%v; want %v %v %v", a.TakesContext(), a.ReturnsError(), a.Result(), tt.ctx, tt.errRes, tt.result)
			}
			if a.Name() != "act" || a.Description() != "does" || a.ResultDescription() != "a thing" {
				t.Errorf("name/description lost: %q %q %q", a.Name(), a.Description(), a.ResultDescription())
			}
			if a.NumParams() != len(tt.params) || len(a.Params()) != len(tt.params) {
				t.Errorf("NumParams = %d, want %d", a.NumParams(), len(tt.params))
			}
			if reflect.ValueOf(a.Func()).Pointer() != reflect.ValueOf(tt.fn).Pointer() {
				t.Error("Func() is not the function given")
			}
		})
	}
	// A 64-character name is accepted.
	if _, err := action.New(action.Spec{Name: strings.Repeat("a", 64), Func: func() {}}); err != nil {
		t.Errorf("64-character name refused: %v", err)
	}
}

func TestParameters(t *testing.T) {
	a, err := action.New(action.Spec{
		Name: "search",
		Func: func(ctx context.Context, query string, limit float64, mode Mode, in io.Reader, page Page, tags []string) ([]string, error) {
			return nil, nil
		},
		Params: []action.Param{
			{Name: "query", Description: "what to look for"},
			{Name: "limit", Default: 10}, // an int default for a float64
			{Name: "mode", Enum: []any{"fast", "exact"}, Default: "fast"},
			{Name: "in"},
			{Name: "page", RefOnly: true},
			{Name: "tags", RawOnly: true, Optional: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, p := range a.Params() {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "query,limit,mode,in,page,tags" {
		t.Errorf("params = %v", names)
	}
	if a.ParamIndex("mode") != 2 || a.ParamIndex("nope") != -1 || a.ParamIndex("ctx") != -1 {
		t.Errorf("ParamIndex wrong")
	}

	query := a.Param(0)
	if query.Type != reflect.TypeFor[string]() || string(query.Raw) != `{"type":"string"}` || query.Why != "" || !query.Refs() || query.Optional {
		t.Errorf("query = %+v", query)
	}

	limit := a.Param(1)
	if !limit.Optional || limit.DefaultJSON != "10" {
		t.Errorf("limit: Optional=%v DefaultJSON=%q", limit.Optional, limit.DefaultJSON)
	}
	if d := a.Default(1); d.Type() != reflect.TypeFor[float64]() || d.Float() != 10 {
		t.Errorf("Default(limit) = %v (%v), want float64 10", d, d.Type())
	}

	mode := a.Param(2)
	if mode.Refs() {
		t.Error("an enum parameter accepts references")
	}
	var raw map[string]any
	if err := json.Unmarshal(mode.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["type"] != "string" || !reflect.DeepEqual(raw["enum"], []any{"fast", "exact"}) {
		t.Errorf("mode.Raw = %s", mode.Raw)
	}
	if d := a.Default(2); d.Type() != reflect.TypeFor[Mode]() || d.String() != "fast" {
		t.Errorf("Default(mode) = %v (%v), want Mode fast", d, d.Type())
	}
	if mode.DefaultJSON != `"fast"` {
		t.Errorf("mode.DefaultJSON = %q", mode.DefaultJSON)
	}

	in := a.Param(3)
	if in.Raw != nil || !strings.Contains(in.Why, "io.Reader") || !errorsIsNotRepresentable(in.Why) || !in.Refs() {
		t.Errorf("in = %+v", in)
	}

	page := a.Param(4)
	if page.Raw != nil || page.Why != "declared by reference only" || !page.Refs() {
		t.Errorf("page = %+v", page)
	}

	tags := a.Param(5)
	if tags.Refs() || tags.Raw == nil || !tags.Optional || tags.DefaultJSON != "" {
		t.Errorf("tags = %+v", tags)
	}
	if d := a.Default(5); !d.IsValid() || !d.IsNil() || d.Type() != reflect.TypeFor[[]string]() {
		t.Errorf("Default(tags) = %v, want a nil []string", d)
	}
	if d := a.Default(0); d.IsValid() {
		t.Errorf("Default of a required parameter = %v, want the zero Value", d)
	}

	// Params returns a copy.
	ps := a.Params()
	ps[0].Name = "changed"
	if a.Param(0).Name != "query" {
		t.Error("changing Params() changed the action")
	}
}

func errorsIsNotRepresentable(why string) bool {
	return strings.Contains(why, schema.ErrNotRepresentable.Error())
}

func TestDefaultConversions(t *testing.T) {
	type Level int
	tests := []struct {
		name string
		fn   any
		def  any
		want any
	}{
		{"int to float64", func(float64) {}, 3, 3.0},
		{"int to float32", func(float32) {}, 2, float32(2)},
		{"float64 to float32", func(float32) {}, 0.5, float32(0.5)},
		{"whole float to int", func(int) {}, 4.0, 4},
		{"int to int64", func(int64) {}, 7, int64(7)},
		{"int to uint8", func(uint8) {}, 255, uint8(255)},
		{"int to named int", func(Level) {}, 2, Level(2)},
		{"string to named string", func(Mode) {}, "exact", Mode("exact")},
		{"assignable slice", func([]string) {}, []string{"a"}, []string{"a"}},
		{"interface", func(any) {}, 5, 5},
		{"pointer", func(*Page) {}, &Page{URL: "u"}, &Page{URL: "u"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := action.New(action.Spec{Name: "a", Func: tt.fn, Params: []action.Param{{Name: "x", Default: tt.def}}})
			if err != nil {
				t.Fatal(err)
			}
			d := a.Default(0)
			if !reflect.DeepEqual(d.Interface(), tt.want) {
				t.Errorf("Default = %#v, want %#v", d.Interface(), tt.want)
			}
			if d.Type() != a.Param(0).Type {
				t.Errorf("Default has type %v, want %v", d.Type(), a.Param(0).Type)
			}
			if !a.Param(0).Optional {
				t.Error("a Default does not make the parameter optional")
			}
		})
	}
}

func TestValidateRaw(t *testing.T) {
	a := action.MustNew(action.Spec{
		Name: "a",
		Func: func(n int, mode Mode, page Page, in io.Reader) {},
		Params: []action.Param{
			{Name: "n"},
			{Name: "mode", Enum: []any{"fast", "exact"}},
			{Name: "page"},
			{Name: "in"},
		},
	})
	tests := []struct {
		i   int
		raw string
		ok  bool
	}{
		{0, `3`, true},
		{0, `3.5`, false},
		{0, `"3"`, false},
		{1, `"fast"`, true},
		{1, `"slow"`, false},
		{2, `{"URL":"u","Title":"t"}`, true},
		{2, `{"URL":"u"}`, false},
		{2, `{"URL":"u","Title":"t","Extra":1}`, false},
		{2, `not json`, false},
	}
	for _, tt := range tests {
		err := a.ValidateRaw(tt.i, json.RawMessage(tt.raw))
		if tt.ok && err != nil {
			t.Errorf("ValidateRaw(%d, %s) = %v", tt.i, tt.raw, err)
		}
		if !tt.ok && (err == nil || !errors.Is(err, schema.ErrInvalid)) {
			t.Errorf("ValidateRaw(%d, %s) = %v, want a schema.ErrInvalid", tt.i, tt.raw, err)
		}
	}
	if err := a.ValidateRaw(3, json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "in takes a reference only") {
		t.Errorf("ValidateRaw(ref-only) = %v", err)
	}
	// Validators are compiled lazily and safe for concurrent use.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.ValidateRaw(0, json.RawMessage(`1`)); err != nil {
				t.Errorf("goroutine %d: %v", i, err)
			}
			if err := a.ValidateRaw(1, json.RawMessage(`"x"`)); err == nil {
				t.Errorf("goroutine %d: invalid enum value accepted", i)
			}
		}()
	}
	wg.Wait()
}

type ctxKey struct{}

func TestCall(t *testing.T) {
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	add := action.MustNew(action.Spec{
		Name: "add",
		Func: func(ctx context.Context, a, b int) (int, error) {
			return a + b + len(ctx.Value(ctxKey{}).(string)), nil
		},
		Params: []action.Param{{Name: "a"}, {Name: "b"}},
	})
	got, err := add.Call(ctx, []reflect.Value{reflect.ValueOf(2), reflect.ValueOf(3)})
	if err != nil || got.Int() != 6 {
		t.Errorf("Call = %v, %v; want 6 (ctx passed)", got, err)
	}

	boom := errors.New("boom")
	fail := action.MustNew(action.Spec{Name: "fail", Func: func() (*Page, error) { return &Page{}, boom }})
	got, err = fail.Call(ctx, nil)
	if !errors.Is(err, boom) || got.IsValid() {
		t.Errorf("Call = %v, %v; want the function's error and no result", got, err)
	}

	onlyErr := action.MustNew(action.Spec{Name: "e", Func: func() error { return boom }})
	if _, err := onlyErr.Call(ctx, nil); !errors.Is(err, boom) {
		t.Errorf("Call = %v", err)
	}
	onlyErrOK := action.MustNew(action.Spec{Name: "e", Func: func() error { return nil }})
	if got, err := onlyErrOK.Call(ctx, nil); err != nil || got.IsValid() {
		t.Errorf("Call = %v, %v", got, err)
	}

	nothing := action.MustNew(action.Spec{Name: "n", Func: func() {}})
	if got, err := nothing.Call(ctx, nil); err != nil || got.IsValid() {
		t.Errorf("Call = %v, %v", got, err)
	}

	// A nil result of an interface type is a valid Value holding nil.
	anyNil := action.MustNew(action.Spec{Name: "n", Func: func() any { return nil }})
	if got, err := anyNil.Call(ctx, nil); err != nil || !got.IsValid() || !got.IsNil() {
		t.Errorf("Call = %v, %v", got, err)
	}

	// A nil context reaches the function as nil, not as a panic.
	var seen context.Context = context.Background()
	withCtx := action.MustNew(action.Spec{Name: "c", Func: func(ctx context.Context) { seen = ctx }})
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := withCtx.Call(nil, nil); err != nil || seen != nil {
		t.Errorf("Call(nil ctx) = %v, ctx %v", err, seen)
	}

	// Cancellation reaches the function.
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	wait := action.MustNew(action.Spec{Name: "w", Func: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }})
	if _, err := wait.Call(cctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call(canceled) = %v", err)
	}
}

func TestCallRecoversPanics(t *testing.T) {
	a := action.MustNew(action.Spec{
		Name:   "explode",
		Func:   func(ctx context.Context, n int) (int, error) { panic("kaboom") },
		Params: []action.Param{{Name: "n"}},
	})
	got, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf(1)})
	if got.IsValid() {
		t.Errorf("result %v after a panic", got)
	}
	if !errors.Is(err, action.ErrPanicked) {
		t.Fatalf("err = %v, want ErrPanicked", err)
	}
	var pe *action.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %T, want *PanicError", err)
	}
	if pe.Action != "explode" || pe.Value != "kaboom" || err.Error() != "action explode panicked: kaboom" {
		t.Errorf("PanicError = %+v, %q", pe, err)
	}
	if !strings.Contains(pe.Stack, "action_test.TestCallRecoversPanics") {
		t.Errorf("stack does not show where it panicked:\n%s", pe.Stack)
	}

	// A runtime error panic (nil map write) is recovered too.
	nilMap := action.MustNew(action.Spec{Name: "m", Func: func() {
		var m map[string]int
		//lint:ignore SA5000 the panic is what is tested
		m["x"] = 1
	}})
	if _, err := nilMap.Call(context.Background(), nil); !errors.Is(err, action.ErrPanicked) {
		t.Errorf("nil map write: %v", err)
	}
	// So are wrong arguments: a programmer's error, but never a crash.
	if _, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf("x")}); !errors.Is(err, action.ErrPanicked) {
		t.Errorf("wrong argument type: %v", err)
	}
	if _, err := a.Call(context.Background(), nil); !errors.Is(err, action.ErrPanicked) {
		t.Errorf("missing argument: %v", err)
	}
}

// Call passes pointers through: a function can change the caller's value.
func TestCallByReference(t *testing.T) {
	a := action.MustNew(action.Spec{
		Name:   "retitle",
		Func:   func(p *Page, title string) { p.Title = title },
		Params: []action.Param{{Name: "p", RefOnly: true}, {Name: "title"}},
	})
	p := &Page{Title: "old"}
	if _, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf(p), reflect.ValueOf("new")}); err != nil {
		t.Fatal(err)
	}
	if p.Title != "new" {
		t.Errorf("Title = %q", p.Title)
	}
}

func BenchmarkCall3Params(b *testing.B) {
	a := action.MustNew(action.Spec{
		Name: "sum",
		Func: func(ctx context.Context, a, b int, scale float64) (float64, error) {
			return float64(a+b) * scale, nil
		},
		Params: []action.Param{{Name: "a"}, {Name: "b"}, {Name: "scale"}},
	})
	args := []reflect.Value{reflect.ValueOf(1), reflect.ValueOf(2), reflect.ValueOf(1.5)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParamSchemaOverride(t *testing.T) {
	a, err := action.New(action.Spec{Name: "ext", Func: func(q json.RawMessage) string { return string(q) },
		Params: []action.Param{{Name: "q", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if p := a.Param(0); !strings.Contains(string(p.Raw), `"n"`) {
		t.Fatalf("raw = %s", p.Raw)
	}
	if _, err := a.Decode(0, json.RawMessage(`{"n":"x"}`)); err == nil {
		t.Fatal("the override schema was not used for validation")
	}
	v, err := a.Decode(0, json.RawMessage(`{"n":2}`))
	if err != nil || string(v.Interface().(json.RawMessage)) != `{"n":2}` {
		t.Fatalf("decode = %v, %v", v, err)
	}
	for _, bad := range []action.Spec{
		{Name: "x", Func: func(c chan int) {}, Params: []action.Param{{Name: "c", Schema: json.RawMessage(`{"type":"string"}`)}}},
		{Name: "y", Func: func(q json.RawMessage) {}, Params: []action.Param{{Name: "q", Schema: json.RawMessage(`[1]`)}}},
	} {
		if _, err := action.New(bad); err == nil {
			t.Errorf("%s: accepted", bad.Name)
		}
	}
}

// color describes itself, with a description of its own.
type color string

func (color) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: "a CSS color", Pattern: "^#[0-9a-f]{6}$"}
}

// The tool schema carries one description: the parameter's, with the
// type's joined to it.
func TestTypeDescriptionJoinsTheParameters(t *testing.T) {
	a := action.MustNew(action.Spec{Name: "paint", Func: func(c color) {}, Params: []action.Param{{Name: "c", Description: "The color to paint with."}}})
	p := a.Param(0)
	if strings.Contains(string(p.Raw), "description") || p.Description != "The color to paint with. (a CSS color)" {
		t.Fatalf("raw = %s, description = %q", p.Raw, p.Description)
	}
	if _, err := a.Decode(0, json.RawMessage(`"red"`)); err == nil {
		t.Fatal("the type's own pattern was not checked")
	}
}
