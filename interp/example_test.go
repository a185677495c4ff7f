package interp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/byref/byref/interp"
)

// A snippet reads and writes run variables as plain identifiers and creates
// new ones; the results come back with their real types.
func Example() {
	in, err := interp.New(interp.Options{})
	if err != nil {
		panic(err)
	}
	prices := []float64{3.5, 10, 7.25}
	res, err := in.Eval(context.Background(), interp.Input{
		Code: `import "sort"

sort.Float64s(prices)
total := 0.0
for _, p := range prices {
	total += p
}
fmt.Printf("%d prices, total %.2f\n", len(prices), total)`,
		Vars: []interp.Var{{Name: "prices", Value: reflect.ValueOf(prices)}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Stdout)
	fmt.Println(res.Created, res.Values["total"].Interface(), res.Values["prices"].Interface())
	// Output:
	// 3 prices, total 20.75
	// [total] 20.75 [3.5 7.25 10]
}

// Host functions, such as actions, are callable from a snippet by name with
// their own signatures.
func Example_callAction() {
	in, _ := interp.New(interp.Options{})
	getWeather := func(location, unit string) (string, error) {
		return fmt.Sprintf("14°%s and cloudy in %s", unit, location), nil
	}
	res, err := in.Eval(context.Background(), interp.Input{
		Code: `w, err := get_weather(city, "C")
if err != nil {
	panic(err)
}
fmt.Println(w)`,
		Vars:  []interp.Var{{Name: "city", Value: reflect.ValueOf("Lyon")}},
		Funcs: map[string]reflect.Value{"get_weather": reflect.ValueOf(getWeather)},
	})
	fmt.Print(res.Stdout, err, "\n")
	// Output:
	// 14°C and cloudy in Lyon
	// <nil>
}

// Refusals and failures are typed errors whose messages say what to do.
func Example_refused() {
	in, _ := interp.New(interp.Options{})
	_, err := in.Eval(context.Background(), interp.Input{Code: `data, _ := os.ReadFile("/etc/passwd")
fmt.Println(string(data))`})
	fmt.Println(errors.Is(err, interp.ErrRefused))
	fmt.Println(err)
	_, err = in.Eval(context.Background(), interp.Input{Code: "xs := []int{1, 2}\nfmt.Println(xs[2])"})
	var pe *interp.PanicError
	fmt.Println(errors.As(err, &pe), pe.Line)
	// Output:
	// true
	// snippet:1: os.ReadFile is not allowed in snippets: of package os a snippet may use only os.Stdout and os.Stderr, its own output streams (for fmt.Fprintf, tabwriter.NewWriter, json.NewEncoder); it has no files, processes or environment
	// true 2
}

// Analyze tells an approver what a snippet will touch before it runs.
func ExampleAnalyze() {
	acc, err := interp.Analyze(`import "strings"
title = strings.ToUpper(title)
words := strings.Fields(body)
if len(words) > 3 { n := len(words); _ = n }`, map[string]reflect.Type{
		"title": reflect.TypeOf(""), "body": reflect.TypeOf(""),
	})
	fmt.Println(acc.Reads, acc.Writes, acc.Creates, acc.Imports, err)
	// Output:
	// [title body] [title] [words] [strings] <nil>
}

// ExtractCode pulls Go blocks out of a model's text.
func ExampleExtractCode() {
	text := "I'll count them:\n```go\nfmt.Println(len(items))\n```\nDone."
	fmt.Printf("%q\n", interp.ExtractCode(text))
	// Output:
	// ["fmt.Println(len(items))"]
}

// An error of a type the snippet declares reaches the host as a
// SnippetError: the text its Error method returned when the snippet ended,
// and its data, which encoding/json encodes.
func ExampleSnippetError() {
	in, err := interp.New(interp.Options{})
	if err != nil {
		panic(err)
	}
	res, err := in.Eval(context.Background(), interp.Input{Code: `type StockError struct{ SKU string }
func (e *StockError) Error() string { return "out of stock: " + e.SKU }
var err error = &StockError{"PN-3"}`})
	if err != nil {
		panic(err)
	}
	kept := res.Values["err"].Interface().(error)
	var se *interp.SnippetError
	data, _ := json.Marshal(kept)
	fmt.Println(kept, errors.As(kept, &se), string(data))
	// Output:
	// out of stock: PN-3 true {"SKU":"PN-3"}
}
