package action_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/byref/byref/action"
)

// Fetch is the kind of function a host registers: it takes a context and
// returns a value and an error.
func Fetch(ctx context.Context, url string, retries int, format string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !strings.HasPrefix(url, "https://") {
		return "", errors.New("only https URLs are allowed")
	}
	fmt.Fprintf(action.Stdout(ctx), "fetched %s (%s)\n", url, format)
	return "<html>…</html>", nil
}

func ExampleNew() {
	fetch, err := action.New(action.Spec{
		Name:        "fetch",
		Description: "Download a web page.",
		Func:        Fetch,
		Params: []action.Param{
			{Name: "url", Description: "The page's address."},
			{Name: "retries", Default: 2},
			{Name: "format", Enum: []any{"html", "text"}, Default: "html"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fetch.Name(), "takes a context:", fetch.TakesContext(), "returns an error:", fetch.ReturnsError())
	for _, p := range fetch.Params() {
		fmt.Printf("%s %s optional=%v refs=%v default=%s schema=%s\n", p.Name, p.Type, p.Optional, p.Refs(), p.DefaultJSON, p.Raw)
	}

	var out strings.Builder
	ctx := action.WithOutput(context.Background(), &out, nil)
	page, err := fetch.Call(ctx, []reflect.Value{reflect.ValueOf("https://example.com"), fetch.Default(1), fetch.Default(2)})
	fmt.Printf("%q %v %q\n", page, err, out.String())
	_, err = fetch.Call(ctx, []reflect.Value{reflect.ValueOf("ftp://example.com"), fetch.Default(1), fetch.Default(2)})
	fmt.Println(err)
	// Output:
	// fetch takes a context: true returns an error: true
	// url string optional=false refs=true default= schema={"type":"string"}
	// retries int optional=true refs=true default=2 schema={"type":"integer"}
	// format string optional=true refs=false default="html" schema={"enum":["html","text"],"type":"string"}
	// "<html>…</html>" <nil> "fetched https://example.com (html)\n"
	// only https URLs are allowed
}

func ExampleNew_invalid() {
	_, err := action.New(action.Spec{
		Name:   "resize",
		Func:   func(width, height int) error { return nil },
		Params: []action.Param{{Name: "width"}},
	})
	fmt.Println(errors.Is(err, action.ErrInvalidSpec))
	fmt.Println(err)
	// Output:
	// true
	// action "resize": the function takes 2 parameters (not counting a leading context) but Spec.Params declares 1; declare one Param per parameter, in order
}

func ExampleSet() {
	greet := action.MustNew(action.Spec{
		Name:   "greet",
		Func:   func(name string) string { return "hello " + name },
		Params: []action.Param{{Name: "name"}},
	})
	base := action.MustSet(greet, action.Terminate())
	fmt.Println(base.Names())
	if _, err := base.With(greet); err != nil {
		fmt.Println(err)
	}
	fmt.Println(base.Without("greet").Names(), base.Names())
	// Output:
	// [greet terminate]
	// action "greet": two actions are named "greet"; names must be unique in a set
	// [terminate] [greet terminate]
}
