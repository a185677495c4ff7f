package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/byref/byref/schema"
)

const personSchema = `{
	"type": "object",
	"properties": {
		"name": {"type": "string", "minLength": 1},
		"age": {"type": "integer", "minimum": 0},
		"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
		"kind": {"enum": ["a", "b"]},
		"home": {"$ref": "#/$defs/place"}
	},
	"required": ["name", "age"],
	"additionalProperties": false,
	"$defs": {"place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}
}`

func TestValidate(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		value string
		msg   []string // fragments of the error; none when valid
	}{
		{`{"name":"Ada","age":36}`, nil},
		{`{"name":"Ada","age":36,"tags":["x"],"kind":"a","home":{"city":"London"}}`, nil},
		{` {"name":"Ada","age":36} `, nil},
		{`{"name":"Ada"}`, []string{"at /: missing property 'age'"}},
		{`{"name":"","age":1}`, []string{"at /name: minLength: got 0, want 1"}},
		{`{"name":"Ada","age":-1}`, []string{"at /age:", "minimum"}},
		{`{"name":"Ada","age":1.5}`, []string{"at /age: got number, want integer"}},
		{`{"name":"Ada","age":"36"}`, []string{"at /age: got string, want integer"}},
		{`{"name":"Ada","age":1,"tags":["x",2]}`, []string{"at /tags/1: got number, want string"}},
		{`{"name":"Ada","age":1,"tags":["x","y","z"]}`, []string{"at /tags: maxItems: got 3, want 2"}},
		{`{"name":"Ada","age":1,"kind":"c"}`, []string{"at /kind:", "'a'", "'b'"}},
		{`{"name":"Ada","age":1,"home":{}}`, []string{"at /home: missing property 'city'"}},
		{`{"name":"Ada","age":1,"extra":true}`, []string{"at /:", "'extra'", "not allowed"}},
		{`[]`, []string{"at /: got array, want object"}},
		{`{"name":"Ada","age":1`, []string{"not JSON"}},
		{``, []string{"not JSON"}},
		{`{"name":"Ada","age":1} {}`, []string{"not JSON"}},
	}
	for _, tt := range tests {
		err := v.Validate(json.RawMessage(tt.value))
		if tt.msg == nil {
			if err != nil {
				t.Errorf("Validate(%s) = %v", tt.value, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Validate(%s) = nil, want an error", tt.value)
			continue
		}
		if !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("Validate(%s) = %v, does not wrap ErrInvalid", tt.value, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate(%s): the message spans lines: %q", tt.value, err)
		}
		for _, m := range tt.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("Validate(%s) = %q, want it to say %q", tt.value, err, m)
			}
		}
	}
}

func TestValidateManyErrorsSummarised(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(`{"type":"array","items":{"type":"integer"}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = v.Validate(json.RawMessage(`["a","b","c","d","e","f","g"]`))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if strings.Count(msg, "at /") != 4 || !strings.HasSuffix(msg, "; and 3 more") || strings.Contains(msg, "\n") {
		t.Errorf("message = %q, want 4 clauses and a count of the rest, on one line", msg)
	}
}

func TestValidateValue(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateValue(map[string]any{"name": "Ada", "age": json.Number("36")}); err != nil {
		t.Errorf("ValidateValue = %v", err)
	}
	if err := v.ValidateValue(map[string]any{"name": "Ada", "age": json.Number("3.5")}); err == nil || !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("ValidateValue(3.5) = %v", err)
	}
	if err := v.ValidateValue(nil); err == nil || !strings.Contains(err.Error(), "got null, want object") {
		t.Errorf("ValidateValue(nil) = %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema, msg string
	}{
		{"not JSON", `{`, "schema: compile"},
		{"bad type", `{"type": 5}`, "schema: compile"},
		{"dangling local ref", `{"$ref": "#/$defs/missing"}`, "schema: compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := schema.Compile(json.RawMessage(tt.schema))
			if err == nil || v != nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Compile = %v, %v", v, err)
			}
		})
	}
}

func TestCompileRefusesExternalRefs(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	refs := []string{
		srv.URL + "/schema.json",
		srv.URL + "/schema.json#/defs/x",
		"file:///etc/passwd",
		"https://example.com/schema.json",
		"other.json",
	}
	for _, ref := range refs {
		s := fmt.Sprintf(`{"type":"object","properties":{"a":{"$ref":%q}}}`, ref)
		v, err := schema.Compile(json.RawMessage(s))
		if err == nil || v != nil {
			t.Errorf("$ref %s: Compile succeeded", ref)
			continue
		}
		if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "self-contained") {
			t.Errorf("$ref %s: error %q does not say the reference was refused", ref, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("Compile fetched %d external references", n)
	}
	// A $schema naming a standard draft needs no network.
	if _, err := schema.Compile(json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`)); err != nil {
		t.Errorf("standard $schema refused: %v", err)
	}
}

func TestValidatorConcurrentUse(t *testing.T) {
	v, err := schema.Compile(json.RawMessage(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				good := fmt.Sprintf(`{"name":"n%d","age":%d}`, i, j)
				if err := v.Validate(json.RawMessage(good)); err != nil {
					t.Errorf("Validate(%s) = %v", good, err)
					return
				}
				bad := fmt.Sprintf(`{"name":"n%d","age":"x","tags":[%d]}`, i, j)
				if err := v.Validate(json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "/age") || !strings.Contains(err.Error(), "/tags/0") {
					t.Errorf("Validate(%s) = %v", bad, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkValidateSmall(b *testing.B) {
	v, err := schema.Compile(json.RawMessage(personSchema))
	if err != nil {
		b.Fatal(err)
	}
	value := json.RawMessage(`{"name":"Ada","age":36,"tags":["math"],"home":{"city":"London"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(value); err != nil {
			b.Fatal(err)
		}
	}
}
