package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
)

type Paging struct {
	Limit  int `json:"limit,omitempty" jsonschema:"description=How many results at most.,minimum=1,maximum=50"`
	Offset int `json:"offset,omitempty"`
}

type QueryArgs struct {
	Query  string   `json:"query" jsonschema:"description=What to look for."`
	Lang   string   `json:"lang" jsonschema:"enum=en,enum=fr,default=en"`
	Since  *string  `json:"since" jsonschema_description:"An ISO date; all dates when omitted."`
	Tags   []string `json:"tags,omitzero"`
	Type   string   `json:"type,omitempty" jsonschema:"pattern=^[a-z]+$,minLength=2,maxLength=10"`
	Paging          // promoted, as encoding/json does
	Secret string   `json:"-"`
	//lint:ignore U1000 an unexported field is skipped, which is what is tested
	hidden int
	Exact  bool // no tag: named by its Go name
}

type SearchResult struct {
	Query string
	Lang  string
	Limit int
	Exact bool
}

func query(ctx context.Context, a QueryArgs) (SearchResult, error) {
	if ctx == nil {
		return SearchResult{}, errors.New("no context")
	}
	return SearchResult{Query: a.Query, Lang: a.Lang, Limit: a.Limit, Exact: a.Exact}, nil
}

func TestStructArgsParameters(t *testing.T) {
	a, err := action.New(action.Spec{Name: "search", Func: query})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.ArgsStruct(); got != reflect.TypeFor[QueryArgs]() {
		t.Fatalf("ArgsStruct() = %v, want QueryArgs", got)
	}
	type want struct {
		name, field, typ, desc string
		optional               bool
		raw, def               string
	}
	wants := []want{
		{"query", "Query", "string", "What to look for.", false, `{"type":"string"}`, ""},
		{"lang", "Lang", "string", "", true, `{"enum":["en","fr"],"type":"string"}`, `"en"`},
		{"since", "Since", "*string", "An ISO date; all dates when omitted.", true, `{"type":"string"}`, ""},
		{"tags", "Tags", "[]string", "", true, `{"items":{"type":"string"},"type":"array"}`, ""},
		{"type", "Type", "string", "", true, `{"maxLength":10,"minLength":2,"pattern":"^[a-z]+$","type":"string"}`, ""},
		{"limit", "Paging.Limit", "int", "How many results at most.", true, `{"maximum":50,"minimum":1,"type":"integer"}`, ""},
		{"offset", "Paging.Offset", "int", "", true, `{"type":"integer"}`, ""},
		{"Exact", "Exact", "bool", "", false, `{"type":"boolean"}`, ""},
	}
	if a.NumParams() != len(wants) {
		var names []string
		for _, p := range a.Params() {
			names = append(names, p.Name)
		}
		t.Fatalf("parameters %v, want %d", names, len(wants))
	}
	for i, w := range wants {
		p := a.Param(i)
		got := want{p.Name, p.Field, p.Type.String(), p.Description, p.Optional, string(p.Raw), p.DefaultJSON}
		if got != w {
			t.Errorf("parameter %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

func TestStructArgsCall(t *testing.T) {
	a := action.MustNew(action.Spec{Name: "search", Func: query})
	args := make([]reflect.Value, a.NumParams())
	for i := range args {
		args[i] = a.Default(i)
	}
	q, err := a.Decode(a.ParamIndex("query"), json.RawMessage(`"gophers"`))
	if err != nil {
		t.Fatal(err)
	}
	args[a.ParamIndex("query")] = q
	limit, err := a.Decode(a.ParamIndex("limit"), json.RawMessage(`7`))
	if err != nil {
		t.Fatal(err)
	}
	args[a.ParamIndex("limit")] = limit
	args[a.ParamIndex("Exact")] = reflect.ValueOf(true)
	res, err := a.Call(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	want := SearchResult{Query: "gophers", Lang: "en", Limit: 7, Exact: true}
	if got := res.Interface().(SearchResult); got != want {
		t.Errorf("Call built %+v, want %+v", got, want)
	}
	// The field's bounds are checked like a parameter's.
	if _, err := a.Decode(a.ParamIndex("limit"), json.RawMessage(`51`)); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "1 to 50") {
		t.Errorf("limit 51: %v", err)
	}
	if _, err := a.Decode(a.ParamIndex("type"), json.RawMessage(`"A1"`)); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("type A1: %v", err)
	}

	// Without a context, and a function returning nothing but an error.
	var got Paging
	b := action.MustNew(action.Spec{Name: "page", Func: func(p Paging) error { got = p; return nil }})
	if b.TakesContext() || b.ArgsStruct() != reflect.TypeFor[Paging]() {
		t.Fatalf("TakesContext %v ArgsStruct %v", b.TakesContext(), b.ArgsStruct())
	}
	if _, err := b.Call(context.Background(), []reflect.Value{reflect.ValueOf(3), reflect.ValueOf(9)}); err != nil || got != (Paging{3, 9}) {
		t.Errorf("Call: %v, built %+v", err, got)
	}
}

func TestStructArgsParamsOverride(t *testing.T) {
	a, err := action.New(action.Spec{Name: "search", Func: query, Params: []action.Param{
		{Name: "limit", Max: 10, Description: "Results per page."},
		{Name: "query", MinLength: 3, RawOnly: true},
		{Name: "Exact", Default: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	limit := a.Param(a.ParamIndex("limit"))
	if limit.Description != "Results per page." || string(limit.Raw) != `{"maximum":10,"minimum":1,"type":"integer"}` {
		t.Errorf("limit: %q %s", limit.Description, limit.Raw)
	}
	query := a.Param(a.ParamIndex("query"))
	if query.Description != "What to look for." || !query.RawOnly || string(query.Raw) != `{"minLength":3,"type":"string"}` {
		t.Errorf("query: %q raw-only %v %s", query.Description, query.RawOnly, query.Raw)
	}
	exact := a.Param(a.ParamIndex("Exact"))
	if !exact.Optional || exact.DefaultJSON != "true" {
		t.Errorf("Exact: optional %v default %s", exact.Optional, exact.DefaultJSON)
	}
}

type Link struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

func TestStructArgsWhole(t *testing.T) {
	// Whole takes the struct as one parameter, as before struct arguments.
	a := action.MustNew(action.Spec{Name: "save", Func: func(l Link) string { return l.URL }, Params: []action.Param{{Name: "link", Whole: true}}})
	if a.ArgsStruct() != nil || a.NumParams() != 1 || a.Param(0).Name != "link" || a.Param(0).Field != "" {
		t.Fatalf("ArgsStruct %v, params %+v", a.ArgsStruct(), a.Params())
	}
	res, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf(Link{URL: "https://go.dev"})})
	if err != nil || res.String() != "https://go.dev" {
		t.Errorf("Call: %v %v", res, err)
	}
	// A struct that decodes itself is one parameter without Whole.
	b := action.MustNew(action.Spec{Name: "at", Func: func(t time.Time) int { return t.Year() }, Params: []action.Param{{Name: "when"}}})
	if b.ArgsStruct() != nil || b.Param(0).Name != "when" {
		t.Errorf("time.Time: ArgsStruct %v, params %+v", b.ArgsStruct(), b.Params())
	}
	// A struct with no fields takes no arguments.
	c := action.MustNew(action.Spec{Name: "ping", Func: func(struct{}) string { return "pong" }})
	if c.NumParams() != 0 {
		t.Errorf("struct{}: %d params", c.NumParams())
	}
	if res, err := c.Call(context.Background(), nil); err != nil || res.String() != "pong" {
		t.Errorf("Call: %v %v", res, err)
	}
}

type withPtrEmbed struct {
	*Paging
	Q string `json:"q"`
}

type named struct {
	B string `json:"name"`
}

// withDupNames has two fields of one JSON name, one promoted, which
// encoding/json resolves silently (the shallower wins) and New refuses.
type withDupNames struct {
	A string `json:"name"`
	named
}

type withStringOpt struct {
	N int `json:"n,string"`
}

type withBadTag struct {
	N int `json:"n" jsonschema:"format=int32"`
}

type withADKTag struct {
	City string `json:"city" jsonschema:"the city to look up"`
}

type withDash struct {
	UserID string `json:"user-id"`
}

type withReturn struct {
	R string `json:"return"`
}

type withPtrDefault struct {
	N *int `json:"n" jsonschema:"default=3"`
}

type withBadEnum struct {
	N int `json:"n" jsonschema:"enum=one"`
}

type withBadMin struct {
	S string `json:"s" jsonschema:"minimum=1"`
}

type withRequiredDefault struct {
	N int `json:"n" jsonschema:"required,default=2"`
}

func TestStructArgsRefuses(t *testing.T) {
	tests := []struct {
		name string
		spec action.Spec
		msg  string
	}{
		{"Params names no field", action.Spec{Name: "a", Func: query, Params: []action.Param{{Name: "qeury"}}},
			`Spec.Params[0] names "qeury", which is no field of action_test.QueryArgs (its fields are query, lang, since, tags, type, limit, offset, Exact); name a field by its JSON name, or set Param.Whole to take the whole struct as one parameter`},
		{"Params names a Go name", action.Spec{Name: "a", Func: query, Params: []action.Param{{Name: "Query"}}},
			`Spec.Params[0] names "Query", the Go name of field "query"; Params name fields by their JSON names: write "query"`},
		{"Params names a field twice", action.Spec{Name: "a", Func: query, Params: []action.Param{{Name: "query"}, {Name: "query"}}},
			`Spec.Params names field "query" twice; merge the two entries`},
		{"old one-param form", action.Spec{Name: "a", Func: func(l Link) {}, Params: []action.Param{{Name: "link"}}},
			`names "link", which is no field of action_test.Link (its fields are url, title); name a field by its JSON name, or set Param.Whole`},
		{"Whole on a non-struct", action.Spec{Name: "a", Func: func(s string) {}, Params: []action.Param{{Name: "s", Whole: true}}},
			`Spec.Params[0] ("s") sets Whole, which is for a function whose one parameter is a struct; remove it`},
		{"embedded pointer", action.Spec{Name: "a", Func: func(withPtrEmbed) {}},
			"field Paging embeds *action_test.Paging through a pointer; embed action_test.Paging by value, or give the field a json tag"},
		{"two fields one name", action.Spec{Name: "a", Func: func(withDupNames) {}},
			`fields A and named.B of action_test.withDupNames are both named "name" in JSON; rename one with a json tag`},
		{",string option", action.Spec{Name: "a", Func: func(withStringOpt) {}},
			`field N has the json option ",string", which arguments do not support`},
		{"unsupported tag key", action.Spec{Name: "a", Func: func(withBadTag) {}},
			`field N: the jsonschema tag has "format=int32", which action arguments do not read; use description, enum, minimum`},
		{"ADK-style bare description", action.Spec{Name: "a", Func: func(withADKTag) {}},
			`field City: the jsonschema tag has "the city to look up", which action arguments do not read; use description, enum, minimum, maximum, minLength, maxLength, pattern, default, required (jsonschema:"description=…,minimum=1")`},
		{"JSON name not a word", action.Spec{Name: "a", Func: func(withDash) {}},
			`field UserID: the name "user-id" must be a Go identifier (letters, digits and _); name the field with a json tag (json:"user_id")`},
		{"JSON name return", action.Spec{Name: "a", Func: func(withReturn) {}},
			`field R: "return" is reserved for naming the variable that receives the result; name the field with a json tag (json:"result")`},
		{"default on a pointer", action.Spec{Name: "a", Func: func(withPtrDefault) {}},
			"field N: a pointer field is nil when not given, so it cannot have a default; drop default= or make the field a int"},
		{"enum of the wrong type", action.Spec{Name: "a", Func: func(withBadEnum) {}},
			"field N: the jsonschema tag's enum=one: not a int"},
		{"minimum on a string", action.Spec{Name: "a", Func: func(withBadMin) {}},
			`parameter "s": the bounds Min and Max are for numbers, and string is not one`},
		{"required with a default", action.Spec{Name: "a", Func: func(withRequiredDefault) {}},
			"field N: the jsonschema tag says both required and a default; keep one"},
		{"Params bound of the wrong kind", action.Spec{Name: "a", Func: query, Params: []action.Param{{Name: "query", Min: 1}}},
			`parameter "query": the bounds Min and Max are for numbers, and string is not one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := action.New(tt.spec)
			if !errors.Is(err, action.ErrInvalidSpec) {
				t.Fatalf("New: %v, want ErrInvalidSpec", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("New: %v\nwant it to contain %q", err, tt.msg)
			}
		})
	}
}

type keywords struct {
	Type  string `json:"type"`
	Range int    `json:"range" jsonschema:"required"`
	Ptr   *int   `json:"ptr" jsonschema:"required"`
}

func TestStructArgsNames(t *testing.T) {
	// A Go keyword is a fine JSON name: snippets pass fields by position.
	a := action.MustNew(action.Spec{Name: "k", Func: func(keywords) {}})
	if a.Param(0).Name != "type" || a.Param(1).Name != "range" {
		t.Errorf("params %+v", a.Params())
	}
	// jsonschema:"required" makes even a pointer required.
	if a.Param(2).Optional {
		t.Errorf("ptr is optional despite jsonschema:\"required\"")
	}
}

func BenchmarkStructArgsCall(b *testing.B) {
	a := action.MustNew(action.Spec{Name: "search", Func: query})
	args := make([]reflect.Value, a.NumParams())
	for i := range args {
		args[i] = a.Default(i)
	}
	args[0] = reflect.ValueOf("gophers")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}
