package interp

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

type node struct {
	Name string
	Next *node
	Tags []string
	Meta map[string]int
}

// TestAllOrNothing: a snippet that fails after changing shared storage
// (slice elements, map entries, pointees, nested and cyclic ones) leaves
// every variable as it was.
func TestAllOrNothing(t *testing.T) {
	cases := []struct{ name, code string }{
		{"slice element then panic", "nums[0] = 99\npanic(\"boom\")"},
		{"pointer field then error", "doc.Title = \"changed\"\nx := nope"},
		{"map entry", "m[\"k\"] = 0\ndelete(m, \"a\")\nm[\"new\"] = 1\npanic(1)"},
		{"nested through a pointer", "doc.Rows[0].N = 42\ndoc.Rows = nil\npanic(1)"},
		{"cyclic graph", "n.Next.Name = \"x\"\nn.Next.Tags[0] = \"y\"\nn.Next.Meta[\"z\"] = 9\nn.Next = nil\npanic(1)"},
		{"sort then panic", "sort.Ints(nums)\nnums[1] = 7\npanic(1)"},
		{"in a helper", "func f(d *app.Doc) { d.Title = \"h\" }\nf(doc)\ndoc.Title += \"!\"\npanic(1)"},
		{"timeout", "nums[2] = 5\nfor {}"},
	}
	in, err := New(Options{Symbols: []Exports{appSymbols}, Timeout: 200e6})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nums := []int{3, 1, 2}
			m := map[string]int{"k": 5, "a": 1}
			doc := &Doc{Title: "t", Rows: []Row{{"z", 9}}}
			loop := &node{Name: "b", Tags: []string{"t"}, Meta: map[string]int{"m": 1}}
			n := &node{Name: "a", Next: loop}
			loop.Next = n
			_, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: []Var{
				{"nums", reflect.ValueOf(nums)}, {"m", reflect.ValueOf(m)},
				{"doc", reflect.ValueOf(doc)}, {"n", reflect.ValueOf(n)},
			}})
			if err == nil {
				t.Fatal("the snippet succeeded")
			}
			if !slices.Equal(nums, []int{3, 1, 2}) {
				t.Errorf("nums = %v", nums)
			}
			if !reflect.DeepEqual(m, map[string]int{"k": 5, "a": 1}) {
				t.Errorf("m = %v", m)
			}
			if doc.Title != "t" || len(doc.Rows) != 1 || doc.Rows[0] != (Row{"z", 9}) {
				t.Errorf("doc = %+v", doc)
			}
			if n.Next != loop || loop.Name != "b" || loop.Tags[0] != "t" || !reflect.DeepEqual(loop.Meta, map[string]int{"m": 1}) || loop.Next != n {
				t.Errorf("n = %+v, loop = %+v", n, loop)
			}
		})
	}
}

// TestUnrestored: a written variable reaching storage that cannot be
// copied (a channel here) is named in Result.Unrestored on failure.
func TestUnrestored(t *testing.T) {
	type handle struct {
		C   chan int
		Hit int
	}
	h := &handle{C: make(chan int, 1)}
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "h.Hit = 5\nnums[0] = 1\npanic(1)", Vars: []Var{{"h", reflect.ValueOf(h)}, {"nums", reflect.ValueOf([]int{0})}}})
	if err == nil {
		t.Fatal("the snippet succeeded")
	}
	if !slices.Equal(res.Unrestored, []string{"h"}) {
		t.Errorf("Unrestored = %v, want [h]", res.Unrestored)
	}
}

// TestRestoreSnippetStruct: the unexported fields of a snippet's own struct
// type (a created variable handed back) are restored on failure, as the
// interpreter builds them and reads and sets them itself.
func TestRestoreSnippetStruct(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "type stack struct{ items []int }\nst := &stack{items: []int{1, 2}}"})
	if err != nil {
		t.Fatal(err)
	}
	vars := []Var{{Name: "st", Value: res.Values["st"]}}
	res, err = in.Eval(context.Background(), Input{Code: "st.items[0] = 9\npanic(1)", Vars: vars})
	if err == nil {
		t.Fatal("the snippet succeeded")
	}
	if len(res.Unrestored) != 0 {
		t.Errorf("Unrestored = %v, want none", res.Unrestored)
	}
	res, err = in.Eval(context.Background(), Input{Code: "fmt.Println(st.items)", Vars: vars})
	if err != nil || res.Stdout != "[1 2]\n" {
		t.Errorf("after the failure: %q %v, want [1 2]", res.Stdout, err)
	}
}
