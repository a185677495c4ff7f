package interp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// LineItem and Cart are host struct types with methods, the shape of the
// values models write snippets over.
type LineItem struct {
	SKU   string
	Qty   int
	Price float64
}

// Total is the line's price.
func (l LineItem) Total() float64 { return float64(l.Qty) * l.Price }

// Cart holds a customer's line items.
type Cart struct {
	Owner string
	Items []LineItem
}

// Sum is the cart's total.
func (c *Cart) Sum() float64 {
	var s float64
	for _, l := range c.Items {
		s += l.Total()
	}
	return s
}

// hostMethodsSnippet is what a model writes over such values: range over
// a slice, call a method on each element, print.
const hostMethodsSnippet = `total := 0.0
for _, it := range cart.Items {
	total += it.Total()
	fmt.Printf("%s x%d = %.2f\n", it.SKU, it.Qty, it.Total())
}
fmt.Println(cart.Owner, total, cart.Sum())`

func hostMethodVars() []Var {
	c := &Cart{Owner: "ada"}
	for i := range 20 {
		c.Items = append(c.Items, LineItem{SKU: fmt.Sprintf("SKU-%d", i), Qty: i%3 + 1, Price: 1.25 * float64(i)})
	}
	return []Var{{Name: "cart", Value: reflect.ValueOf(c)}}
}

// BenchmarkEvalWarmHostMethods: a warm snippet over a host variable of a
// host struct type with methods, ranging over its slice of host structs
// and calling a method on each element and on the variable.
func BenchmarkEvalWarmHostMethods(b *testing.B) {
	benchWarm(b, Options{}, Input{Code: hostMethodsSnippet, Vars: hostMethodVars()})
}

// TestHostMethodsSnippet: the benchmark's snippet prints what the same
// code compiled prints.
func TestHostMethodsSnippet(t *testing.T) {
	vars := hostMethodVars()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: hostMethodsSnippet, Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	cart := vars[0].Value.Interface().(*Cart)
	var want strings.Builder
	total := 0.0
	for _, it := range cart.Items {
		total += it.Total()
		fmt.Fprintf(&want, "%s x%d = %.2f\n", it.SKU, it.Qty, it.Total())
	}
	fmt.Fprintln(&want, cart.Owner, total, cart.Sum())
	if res.Stdout != want.String() {
		t.Errorf("stdout:\n%s\nwant:\n%s", res.Stdout, want.String())
	}
}
