package variable_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/byref/byref/variable"
)

func ExamplePreview() {
	type Row struct {
		ID   int
		Name string
	}
	fmt.Println(variable.Preview("hello", 0))
	fmt.Println(variable.Preview(strings.Repeat("ab", 50), 30))
	fmt.Println(variable.Preview([]Row{{1, "Ada"}, {2, "Grace"}}, 0))
	fmt.Println(variable.Preview(map[string]int{"b": 2, "a": 1}, 0))
	fmt.Println(variable.Preview(make([]int, 10000), 40))
	fmt.Println(variable.Preview(errors.New("no such page"), 0))
	// Output:
	// hello
	// ababababababababa… (100 chars)
	// 2 rows × 2 columns (ID int, Name string); first rows: {1, "Ada"}, {2, "Grace"}
	// {"a": 1, "b": 2} (2 entries)
	// [0, 0, 0, 0, 0, 0, 0, 0…] (10000 items)
	// error: no such page
}

func ExampleSet() {
	var vars variable.Set
	// The host hands in the starting variables.
	vars.Define(variable.Spec{Name: "count", Value: 1, Description: "clicks so far"}, variable.HostStep, "host")
	vars.Define(variable.Spec{Name: "apiKey", Value: "sk-123", Secret: true}, variable.HostStep, "host")
	// Steps change them.
	vars.Assign("count", 2, 1, "click")
	vars.Assign("count", 3, 2, "snippet")
	if err := vars.Assign("count", "four", 3, "snippet"); err != nil {
		fmt.Println(err)
	}

	for _, v := range vars.All() {
		fmt.Printf("%s %s = %s\n", v.Name, v.TypeName(), v.Preview(0))
		for _, c := range v.History {
			fmt.Printf("  step %d: %s by %s: %s\n", c.Step, c.Kind, c.By, c.Preview)
		}
	}
	n, _ := vars.Get("count")
	count, err := variable.As[int](n)
	fmt.Println(count, err)
	// Output:
	// variable "count" has type int; a string cannot be assigned to it
	// count int = 3
	//   step 0: created by host: 1
	//   step 1: assigned by click: 2
	//   step 2: assigned by snippet: 3
	// apiKey string = <secret string>
	//   step 0: created by host: <secret string>
	// 3 <nil>
}

// pgPool stands for a library's connection pool: its exported field
// holds a password.
type pgPool struct{ DSN string }

// A library's type the host cannot change is marked as a handle once; its
// previews then show its type only.
func ExampleRegisterHandle() {
	variable.RegisterHandle(reflect.TypeFor[*pgPool]())
	fmt.Println(variable.Preview(&pgPool{DSN: "postgres://app:hunter2@db/prod"}, 0))
	// Output: *variable_test.pgPool handle
}

// ordersDB is a host type that wraps a database and names itself.
type ordersDB struct {
	DSN string
}

func (d *ordersDB) HandleIdentity() string { return "orders on db1" }

// A host type with a HandleIdentity method is a handle: its preview is
// its type and the identity it gives, never its fields.
func ExampleHandle() {
	fmt.Println(variable.Preview(&ordersDB{DSN: "postgres://app:hunter2@db1/orders"}, 0))
	// Output: *variable_test.ordersDB handle (orders on db1)
}
