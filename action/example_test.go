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

// SearchArgs is an arguments struct, written the way ADK Go, Eino and Genkit
// tools are: json tags name the fields, invopop-style jsonschema tags
// describe and bound them, omitempty (or a pointer) makes one optional.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=What to look for."`
	Lang  string `json:"lang" jsonschema:"enum=en,enum=fr"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=20"`
}

// Search is a tool function of one arguments struct.
func Search(ctx context.Context, a SearchArgs) ([]string, error) {
	return []string{fmt.Sprintf("%s (%s), %d results", a.Query, a.Lang, a.Limit)}, nil
}

func ExampleNew_structArguments() {
	search := action.MustNew(action.Spec{
		Name:        "search",
		Description: "Search the documentation.",
		Func:        Search,
		// Optional: Params add to or override what the tags say, by JSON name.
		Params: []action.Param{{Name: "limit", Default: 5}},
	})
	fmt.Println("arguments struct:", search.ArgsStruct())
	for _, p := range search.Params() {
		fmt.Printf("%s (field %s) %q optional=%v refs=%v schema=%s\n", p.Name, p.Field, p.Description, p.Optional, p.Refs(), p.Raw)
	}
	// Call takes one value per field and builds the struct.
	res, err := search.Call(context.Background(), []reflect.Value{reflect.ValueOf("generics"), reflect.ValueOf("en"), search.Default(2)})
	fmt.Println(res, err)

	// A Params entry must name a field.
	_, err = action.New(action.Spec{Name: "search", Func: Search, Params: []action.Param{{Name: "q"}}})
	fmt.Println(err)
	// Output:
	// arguments struct: action_test.SearchArgs
	// query (field Query) "What to look for." optional=false refs=true schema={"type":"string"}
	// lang (field Lang) "" optional=false refs=false schema={"enum":["en","fr"],"type":"string"}
	// limit (field Limit) "" optional=true refs=true schema={"maximum":20,"minimum":1,"type":"integer"}
	// [generics (en), 5 results] <nil>
	// action "search": Spec.Params[0] names "q", which is no field of action_test.SearchArgs (its fields are query, lang, limit); name a field by its JSON name, or set Param.Whole to take the whole struct as one parameter
}
