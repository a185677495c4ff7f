package schema_test

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/schema"
	"github.com/invopop/jsonschema"
)

type Exported struct {
	Name  string            `json:"name"`
	Count int               `json:"count,omitempty"`
	When  time.Time         `json:"when"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"meta,omitempty"`
	Data  []byte            `json:"data"`
	Next  *Leaf             `json:"next"`
	Skip  chan int          `json:"-"`
}

type Leaf struct{ V float64 }

type hidden struct {
	Name string
	age  int
}

// The unexported fields are what is tested; use them once.
var _, _ = hidden{age: 1}, Described{x: 1}

type Recursive struct {
	Name     string
	Children []Recursive
}

type RecursivePtr struct {
	Next *RecursivePtr
}

type Marshals struct{ X int }

func (Marshals) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type MarshalsText struct{ X int }

func (*MarshalsText) MarshalText() ([]byte, error) { return []byte("x"), nil }

// Color marshals to a string although its kind is int.
type Color int

func (Color) MarshalJSON() ([]byte, error) { return []byte(`"red"`), nil }

// Described marshals itself and says how.
type Described struct{ x int }

func (Described) MarshalJSON() ([]byte, error) { return []byte(`"d"`), nil }
func (Described) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: "a described value"}
}

type withFunc struct {
	F func()
}

type Embeds struct {
	Leaf
	Extra string
}

func TestRepresentable(t *testing.T) {
	tests := []struct {
		t   reflect.Type
		why string // "" when representable; else a fragment of the error
	}{
		{reflect.TypeFor[bool](), ""},
		{reflect.TypeFor[int](), ""},
		{reflect.TypeFor[int8](), ""},
		{reflect.TypeFor[uint64](), ""},
		{reflect.TypeFor[float32](), ""},
		{reflect.TypeFor[float64](), ""},
		{reflect.TypeFor[string](), ""},
		{reflect.TypeFor[time.Time](), ""},
		{reflect.TypeFor[*time.Time](), ""},
		{reflect.TypeFor[time.Duration](), ""},
		{reflect.TypeFor[any](), ""},
		{reflect.TypeFor[*int](), ""},
		{reflect.TypeFor[[]string](), ""},
		{reflect.TypeFor[[]byte](), ""},
		{reflect.TypeFor[[4]int](), ""},
		{reflect.TypeFor[map[string]int](), ""},
		{reflect.TypeFor[map[int]string](), ""},
		{reflect.TypeFor[map[uint16][]bool](), ""},
		{reflect.TypeFor[Exported](), ""},
		{reflect.TypeFor[*Exported](), ""},
		{reflect.TypeFor[[]Exported](), ""},
		{reflect.TypeFor[Embeds](), ""},
		{reflect.TypeFor[Described](), ""},
		{reflect.TypeFor[net.IP](), ""},
		{reflect.TypeFor[json.RawMessage](), ""},
		{reflect.TypeFor[struct{}](), ""},

		{nil, "a nil type"},
		{reflect.TypeFor[map[Leaf]int](), "map key type schema_test.Leaf is not a string or an integer"},
		{reflect.TypeFor[map[float64]int](), "map key type float64"},
		{reflect.TypeFor[map[bool]int](), "map key type bool"},
		{reflect.TypeFor[hidden](), "schema_test.hidden has unexported field age, which JSON cannot carry"},
		{reflect.TypeFor[[]hidden](), "unexported field age"},
		{reflect.TypeFor[chan int](), "chan int values (kind chan) cannot be written as JSON"},
		{reflect.TypeFor[func()](), "kind func"},
		{reflect.TypeFor[withFunc](), "kind func"},
		{reflect.TypeFor[complex128](), "kind complex128"},
		{reflect.TypeFor[uintptr](), "kind uintptr"},
		{reflect.TypeFor[error](), "interface error has methods, so no JSON value can implement it"},
		{reflect.TypeFor[io.Reader](), "interface io.Reader has methods"},
		{reflect.TypeFor[Recursive](), "schema_test.Recursive is recursive"},
		{reflect.TypeFor[*RecursivePtr](), "is recursive"},
		{reflect.TypeFor[Marshals](), "schema_test.Marshals marshals itself to JSON but has no JSONSchema method describing that"},
		{reflect.TypeFor[*Marshals](), "marshals itself"},
		{reflect.TypeFor[MarshalsText](), "marshals itself"},
		{reflect.TypeFor[Color](), "schema_test.Color marshals itself"},
		{reflect.TypeFor[[]Color](), "Color marshals itself"},
		{reflect.TypeFor[map[string]Color](), "Color marshals itself"},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.t != nil {
			name = tt.t.String()
		}
		t.Run(name, func(t *testing.T) {
			err := schema.Representable(tt.t)
			if tt.why == "" {
				if err != nil {
					t.Fatalf("Representable = %v, want nil", err)
				}
				// For must then describe it, as a JSON object.
				raw, err := schema.For(tt.t)
				if err != nil {
					t.Fatalf("For = %v", err)
				}
				var obj map[string]any
				if err := json.Unmarshal(raw, &obj); err != nil {
					t.Errorf("For = %s, not a JSON object: %v", raw, err)
				}
				return
			}
			if err == nil {
				t.Fatal("Representable = nil, want an error")
			}
			if !errors.Is(err, schema.ErrNotRepresentable) {
				t.Errorf("%v does not wrap ErrNotRepresentable", err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("error\n\t%s\ndoes not say\n\t%s", err, tt.why)
			}
			// Cached answers are the same.
			if again := schema.Representable(tt.t); again == nil || again.Error() != err.Error() {
				t.Errorf("second call = %v", again)
			}
			if raw, err := schema.For(tt.t); err == nil || raw != nil || !errors.Is(err, schema.ErrNotRepresentable) {
				t.Errorf("For = %s, %v; want ErrNotRepresentable", raw, err)
			}
		})
	}
}

// Representable must agree with encoding/json on the values it accepts:
// the representable types round-trip.
func TestRepresentableRoundTrips(t *testing.T) {
	next := &Leaf{V: 1.5}
	values := []any{
		true, 42, uint8(7), 2.5, "s", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		[]string{"a"}, []byte("bytes"), [2]int{1, 2}, map[string]int{"a": 1}, map[int]string{3: "c"},
		Exported{Name: "n", Count: 2, Tags: []string{"t"}, Meta: map[string]string{"k": "v"}, Data: []byte{1}, Next: next,
			When: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		Embeds{Leaf: Leaf{V: 2}, Extra: "e"},
	}
	for _, v := range values {
		typ := reflect.TypeOf(v)
		if err := schema.Representable(typ); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := reflect.New(typ)
		if err := json.Unmarshal(b, p.Interface()); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		if !reflect.DeepEqual(p.Elem().Interface(), v) {
			t.Errorf("%v: round trip gave %#v, want %#v", typ, p.Elem().Interface(), v)
		}
		// And the JSON is valid against the type's schema.
		raw, err := schema.For(typ)
		if err != nil {
			t.Fatal(err)
		}
		val, err := schema.Compile(raw)
		if err != nil {
			t.Fatalf("%v: Compile(%s): %v", typ, raw, err)
		}
		if err := val.Validate(b); err != nil {
			t.Errorf("%v: %s does not validate against %s: %v", typ, b, raw, err)
		}
	}
}

func schemaOf(t *testing.T, typ reflect.Type) map[string]any {
	t.Helper()
	raw, err := schema.For(typ)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("For(%v) = %s: %v", typ, raw, err)
	}
	return m
}

func TestForNormalises(t *testing.T) {
	raw, err := schema.For(reflect.TypeFor[Exported]())
	if err != nil {
		t.Fatal(err)
	}
	for _, forbidden := range []string{"$schema", "$id", "$defs", "$ref", "contentEncoding"} {
		if strings.Contains(string(raw), forbidden) {
			t.Errorf("schema has %s: %s", forbidden, raw)
		}
	}
	s := schemaOf(t, reflect.TypeFor[Exported]())
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("not a closed object: %s", raw)
	}
	props := s["properties"].(map[string]any)
	want := []any{"name", "count", "when", "tags", "meta", "data", "next"}
	if !reflect.DeepEqual(s["required"], want) {
		t.Errorf("required = %v, want every property %v", s["required"], want)
	}
	if _, ok := props["Skip"]; ok {
		t.Error(`a json:"-" field is described`)
	}
	// omitempty fields are nullable instead of optional.
	for _, name := range []string{"count", "meta"} {
		alts, ok := props[name].(map[string]any)["anyOf"].([]any)
		if !ok || len(alts) != 2 || !reflect.DeepEqual(alts[1], map[string]any{"type": "null"}) {
			t.Errorf("%s = %v, want anyOf [<schema>, null]", name, props[name])
		}
	}
	if props["name"].(map[string]any)["type"] != "string" {
		t.Errorf("name = %v", props["name"])
	}
	when := props["when"].(map[string]any)
	if when["type"] != "string" || when["format"] != "date-time" {
		t.Errorf("when = %v", when)
	}
	data := props["data"].(map[string]any)
	if data["type"] != "string" || !strings.Contains(data["description"].(string), "base64") {
		t.Errorf("data = %v, want a string described as base64", data)
	}
	// Nested objects are closed and fully required too.
	next := props["next"].(map[string]any)
	if next["additionalProperties"] != false || !reflect.DeepEqual(next["required"], []any{"V"}) {
		t.Errorf("next = %v", next)
	}

	b := schemaOf(t, reflect.TypeFor[[]byte]())
	if b["type"] != "string" || !strings.Contains(b["description"].(string), "base64") || b["contentEncoding"] != nil {
		t.Errorf("[]byte = %v", b)
	}
	if got := schemaOf(t, reflect.TypeFor[any]()); len(got) != 0 {
		t.Errorf("any = %v, want {}", got)
	}
	if got := schemaOf(t, reflect.TypeFor[[]Leaf]()); got["items"].(map[string]any)["additionalProperties"] != false {
		t.Errorf("[]Leaf items not closed: %v", got)
	}
	arr := schemaOf(t, reflect.TypeFor[[3]int]())
	if arr["minItems"] != 3.0 || arr["maxItems"] != 3.0 {
		t.Errorf("[3]int = %v", arr)
	}
	if got := schemaOf(t, reflect.TypeFor[Described]()); got["description"] != "a described value" {
		t.Errorf("Described = %v", got)
	}
}

func TestForCaches(t *testing.T) {
	typ := reflect.TypeFor[Exported]()
	a, err := schema.For(typ)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := schema.For(typ)
	if string(a) != string(b) {
		t.Errorf("second call differs:\n%s\n%s", a, b)
	}
	if &a[0] != &b[0] {
		t.Error("For did not return the cached bytes")
	}
	// Concurrent first calls agree.
	types := []reflect.Type{reflect.TypeFor[struct{ A, B int }](), reflect.TypeFor[map[string][]Leaf](), reflect.TypeFor[*[2]Leaf]()}
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, typ := range types {
				raw, err := schema.For(typ)
				if err != nil {
					t.Error(err)
				}
				results[i] = append(results[i], string(raw))
			}
		}()
	}
	wg.Wait()
	for i := range results {
		if !reflect.DeepEqual(results[i], results[0]) {
			t.Errorf("goroutine %d got %v, goroutine 0 %v", i, results[i], results[0])
		}
	}
}
