package interp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	amodel "github.com/byref/byref/interp/internal/hosttest/a/model"
	bmodel "github.com/byref/byref/interp/internal/hosttest/b/model"
	"github.com/byref/byref/interp/internal/hosttest/page"
	hosttime "github.com/byref/byref/interp/internal/hosttest/time"
	"github.com/byref/byref/variable"
)

// TestHostTypeNames: every host type a variable holds can be written in a
// snippet under the name variable.TypeName (the prompt's) gives it, also
// when two host packages share a name and when a host package is named
// like an allowed standard package; a generic host type, which a snippet
// cannot name, is refused with a message that says so and what to do.
func TestHostTypeNames(t *testing.T) {
	ua, ub := amodel.User{Name: "ann"}, bmodel.User{ID: 7, Email: "b@x"}
	slot := hosttime.Slot{Start: "09:00", End: "10:00"}
	pg := page.Page[page.Item]{Items: []page.Item{{SKU: "PN-3"}}}
	vars := []Var{
		{Name: "ua", Value: reflect.ValueOf(ua)},
		{Name: "ub", Value: reflect.ValueOf(ub)},
		{Name: "slot", Value: reflect.ValueOf(slot)},
		{Name: "pg", Value: reflect.ValueOf(pg)},
	}
	name := map[string]string{}
	for _, v := range vars {
		name[v.Name] = variable.TypeName(v.Value.Type())
	}
	if name["ua"] == name["ub"] {
		t.Fatalf("both model.User types are shown as %s", name["ua"])
	}
	if !strings.HasPrefix(name["slot"], "time") || name["slot"] == "time.Slot" {
		t.Errorf("the host's time.Slot is shown as %s, the standard package's name", name["slot"])
	}
	if name["pg"] != "page.Page[page.Item]" {
		t.Errorf("the generic type is shown as %s, want page.Page[page.Item]", name["pg"])
	}
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := "var a " + name["ua"] + " = ua\nb := " + name["ub"] + "{ID: ub.ID + 1, Email: ub.Email}\n" +
		"s := " + name["slot"] + "{Start: slot.Start}\nd := time.Hour\nfmt.Println(a.Hello(), b.ID, s.Start, d)\n" +
		"it := page.Item{SKU: pg.Items[0].SKU}\nfmt.Println(it.SKU, len(pg.Items))"
	// An action's parameter and result types, under the same names.
	funcs := map[string]reflect.Value{"owner": reflect.ValueOf(func(u bmodel.User) amodel.User { return amodel.User{Name: u.Email} })}
	code += "\nvar o " + name["ua"] + " = owner(" + name["ub"] + "{Email: \"bo\"})\nfmt.Println(o.Hello())"
	res, err := in.Eval(context.Background(), Input{Code: code, Vars: vars, Funcs: funcs})
	if err != nil {
		t.Fatalf("%v\n%s", err, code)
	}
	if want := "hello ann 8 09:00 1h0m0s\nPN-3 1\nhello bo\n"; res.Stdout != want {
		t.Errorf("stdout %q, want %q", res.Stdout, want)
	}
	// The names in the type checker's messages are the prompt's too.
	_, err = in.Eval(context.Background(), Input{Code: "var x " + name["ub"] + " = ua", Vars: vars})
	if err == nil || !strings.Contains(err.Error(), name["ua"]) || !strings.Contains(err.Error(), name["ub"]) {
		t.Errorf("assigning ua to a %s: %v, want a message naming %s and %s", name["ub"], err, name["ua"], name["ub"])
	}
	_, err = in.Eval(context.Background(), Input{Code: "var p " + name["pg"] + "\nfmt.Println(p)", Vars: vars})
	if !errors.Is(err, ErrCompile) || !strings.Contains(err.Error(), "generic") {
		t.Errorf("naming the generic type: %v, want a compile error saying it is generic", err)
	} else if testing.Verbose() {
		t.Log(err)
	}
}

// TestReservedQualifiers: variable.PackageQualifier never shows a host
// package under the name of a package a snippet may use without an
// import (its list must follow the allow-list).
func TestReservedQualifiers(t *testing.T) {
	loadStd()
	for name := range stdByName {
		if q := variable.PackageQualifier("example.test/reserved/"+name, name); q == name {
			t.Errorf("a host package %s is shown as %s, the allowed standard package's name; add it to variable's reservedQualifiers", name, q)
		}
	}
	if q := variable.PackageQualifier("example.test/reserved/os", "os"); q == "os" {
		t.Errorf("a host package os is shown as os")
	}
}

// TestSnippetStructTypeName: the type of a variable a snippet creates with
// a declared struct type is shown as before, without the tag by which the
// interpreter tells declared struct types apart.
func TestSnippetStructTypeName(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "type Row struct{ N int `json:\"n\"`; Name string }\ntype Col struct{ N int `json:\"n\"`; Name string }\nrows := []Row{{1, \"a\"}}\nc := Col{2, \"b\"}"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"rows": "[]struct { N int \"json:\\\"n\\\"\"; Name string }",
		"c":    "struct { N int \"json:\\\"n\\\"\"; Name string }",
	} {
		if got := variable.TypeName(res.Values[name].Type()); got != want {
			t.Errorf("%s: TypeName %q, want %q", name, got, want)
		}
	}
}
