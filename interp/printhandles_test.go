package interp_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/interp"
)

// dbPreview is what a *sql.DB of leaktest's driver previews as.
const dbPreview = "*sql.DB handle (driver *sqlite.Driver)"

// evalWithDB runs code with lite, a real *sql.DB on a connection string
// that holds leaktest.Secret.
func evalWithDB(t *testing.T, code string) interp.Result {
	t.Helper()
	in, err := interp.New(interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), interp.Input{Code: code,
		Vars: []interp.Var{{Name: "lite", Value: reflect.ValueOf(leaktest.OpenDB(t))}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, code)
	}
	if leaktest.Leaks(res.Stdout) || leaktest.Leaks(res.Stderr) {
		t.Fatalf("the output holds the secret:\n%s%s", res.Stdout, res.Stderr)
	}
	return res
}

// TestHandlesPrintAsPreviews: a handle a snippet prints (a *sql.DB whose
// DSN holds a password, the sql.DB behind it) prints as its preview with
// every verb and every fmt function, at the top and inside structs,
// slices, maps, interfaces and a snippet type's Stringer or error; the
// connection string never shows.
func TestHandlesPrintAsPreviews(t *testing.T) {
	lines := []string{
		`fmt.Printf("%v\n", lite)`,
		`fmt.Printf("%+v\n", lite)`,
		`fmt.Printf("%#v\n", lite)`,
		`fmt.Printf("%s\n", lite)`,
		`fmt.Printf("%q\n", lite)`,
		`fmt.Printf("%d\n", lite)`,
		`fmt.Printf("%x\n", lite)`,
		`fmt.Printf("%50v|\n", lite)`,
		`fmt.Printf("%+v\n", *lite)`,
		`fmt.Printf("%#v\n", *lite)`,
		`fmt.Print(lite, "\n")`,
		`fmt.Println(lite)`,
		`fmt.Println(*lite)`,
		`fmt.Print(fmt.Sprint(lite), "\n")`,
		`fmt.Print(fmt.Sprintln(*lite))`,
		`fmt.Println(fmt.Sprintf("%+v", *lite))`,
		`fmt.Fprintf(os.Stdout, "%#v\n", lite)`,
		`fmt.Fprint(os.Stdout, *lite, "\n")`,
		`fmt.Fprintln(os.Stdout, lite)`,
		`fmt.Println(fmt.Errorf("%+v", *lite))`,
		`fmt.Println(string(fmt.Append(nil, lite)))`,
		`fmt.Print(string(fmt.Appendln(nil, *lite)))`,
		`fmt.Println(string(fmt.Appendf(nil, "%#v", *lite)))`,
		`fmt.Printf("%+v\n", Holder{DB: lite, db: lite, v: *lite})`,
		`fmt.Printf("%#v\n", &Holder{DB: *lite})`,
		`fmt.Printf("%v\n", []any{lite, *lite, 1})`,
		`fmt.Printf("%#v\n", one(*lite))`,
		`fmt.Printf("%v\n", one(lite))`,
		`fmt.Printf("%+v\n", map[string]any{"a": *lite})`,
		`fmt.Printf("%#v\n", map[any]int{lite: 1, "b": 2})`,
		`fmt.Printf("%#v %d\n", Named{*lite}, Named{lite})`,
		`fmt.Printf("%#v\n", []fmt.Stringer{Named{*lite}})`,
		`fmt.Printf("%#v\n", fmt.Errorf("%#v: %w", Failed{*lite}, Failed{*lite}))`,
	}
	code := `import "os"

type Holder struct {
	DB any
	db any
	v  any
}

type Named struct{ D any }

func (Named) String() string { return "named" }

type Failed struct{ D any }

func (Failed) Error() string { return "failed" }

func one[T any](v T) []T { return []T{v} }
` + strings.Join(lines, "\n")
	res := evalWithDB(t, code)
	got := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d lines printed, want %d:\n%s", len(got), len(lines), res.Stdout)
	}
	for i, line := range lines {
		if !strings.Contains(got[i], " handle") || strings.Contains(got[i], "dsn") {
			t.Errorf("%s printed %s, want the handle's preview", line, got[i])
		}
	}
	for _, want := range []string{
		"*sql.DB handle (driver *sqlite.Driver)\n",
		"*sql.DB handle (driver *sqlite.Driver)\n*sql.DB handle (driver *sqlite.Driver)\n",
		"          *sql.DB handle (driver *sqlite.Driver)|\n",
		"{DB:*sql.DB handle (driver *sqlite.Driver) db:*sql.DB handle (driver *sqlite.Driver) v:sql.DB handle}\n",
		"[" + dbPreview + " sql.DB handle 1]\n",
		"map[a:sql.DB handle]\n",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, res.Stdout)
		}
	}
}

// TestHandlesPrintOtherwiseAsGo: what holds no handle prints as before;
// %T still names a handle's type; an error that holds one still wraps
// through %w; json and xml encode a handle's exported fields (none).
func TestHandlesPrintOtherwiseAsGo(t *testing.T) {
	res := evalWithDB(t, `import (
	"encoding/json"
	"encoding/xml"
	"errors"
)

type Failed struct{ D any }

func (Failed) Error() string { return "failed" }

fmt.Printf("%T %T\n", lite, *lite)
err := fmt.Errorf("wrapped: %w", Failed{*lite})
var f Failed
fmt.Println(err, errors.As(err, &f))
b, err := json.Marshal(lite)
fmt.Println(string(b), err)
b, err = json.Marshal(*lite)
fmt.Println(string(b), err)
b, err = xml.Marshal(lite)
fmt.Println(string(b), err)
fmt.Printf("%+v %v\n", struct{ A int; B []string }{1, []string{"x"}}, map[string]int{"a": 1})`)
	want := `*sql.DB sql.DB
wrapped: failed true
{} <nil>
{} <nil>
<DB></DB> <nil>
{A:1 B:[x]} map[a:1]
`
	if res.Stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", res.Stdout, want)
	}
}

// TestHandlePanicsAsPreview: a snippet that panics with a handle, or with
// a value that holds one, fails with the preview in its PanicError.
func TestHandlePanicsAsPreview(t *testing.T) {
	db := leaktest.OpenDB(t)
	in, err := interp.New(interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[string]string{
		"panic(lite)":                            "snippet:1: panic: " + dbPreview,
		"panic(*lite)":                           "snippet:1: panic: sql.DB handle",
		"type W struct{ D any }\npanic(W{lite})": "snippet:2: panic: {" + dbPreview + "}",
		"panic([]any{*lite, 1})":                 "snippet:1: panic: [sql.DB handle 1]",
	} {
		res, err := in.Eval(context.Background(), interp.Input{Code: code,
			Vars: []interp.Var{{Name: "lite", Value: reflect.ValueOf(db)}}})
		var pe *interp.PanicError
		if !errors.As(err, &pe) || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", code, err, want)
		}
		if leaktest.Leaks(res.Stdout + res.Stderr) {
			t.Errorf("%s: the output holds the secret: %s%s", code, res.Stdout, res.Stderr)
		}
	}
}
