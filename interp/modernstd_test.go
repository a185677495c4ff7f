package interp

import (
	"context"
	"reflect"
	"testing"
)

// TestModernStd: the standard library as of the Go byref builds with, as
// far as yaegi v0.16.1 can interpret it: functions added after Go 1.22
// (strings.Lines, SplitSeq...), the slices and maps generic functions over
// host and snippet values, range over integers, and range over the standard
// iterator functions (rewritten, see ranges.go).
func TestModernStd(t *testing.T) {
	cases := []struct{ code, out string }{
		{"s := []int{3, 1, 2}\nslices.Sort(s)\nfmt.Println(s)", "[1 2 3]\n"},
		{"slices.Sort(nums)\nfmt.Println(nums)", "[1 2 3]\n"},
		{"ks := slices.Sorted(maps.Keys(m))\nfmt.Println(ks)", "[a k]\n"},
		{"fmt.Println(slices.Max(nums), slices.Min(nums))", "3 1\n"},
		{"slices.SortFunc(rows, func(a, b app.Row) int { return cmp.Compare(b.N, a.N) })\nfmt.Println(rows)", "[{b 2} {a 1}]\n"},
		{"ls := slices.Collect(strings.Lines(\"a\\nb\\n\"))\nfmt.Printf(\"%q\\n\", ls)", "[\"a\\n\" \"b\\n\"]\n"},
		{"vals := slices.Sorted(maps.Values(m))\nfmt.Println(vals)", "[1 5]\n"},
		{"parts := slices.Collect(strings.SplitSeq(\"a,b\", \",\"))\nfmt.Println(parts)", "[a b]\n"},
		{"mm := maps.Collect(maps.All(m))\nfmt.Println(len(mm))", "2\n"},
		{"c := maps.Clone(m)\nc[\"new\"] = 1\nfmt.Println(len(c), len(m))", "3 2\n"},
		{"x := slices.Concat(nums, []int{9})\nfmt.Println(x)", "[3 1 2 9]\n"},
		{"x := slices.Insert(nums, 1, 7)\nfmt.Println(x)", "[3 7 1 2]\n"},
		{"x := slices.Compact([]int{1, 1, 2})\nfmt.Println(x)", "[1 2]\n"},
		{"x := slices.DeleteFunc(slices.Clone(nums), func(v int) bool { return v == 2 })\nfmt.Println(x)", "[3 1]\n"},
		{"i, ok := slices.BinarySearch([]int{1, 3, 5}, 3)\nfmt.Println(i, ok)", "1 true\n"},
		{"idx := slices.IndexFunc(rows, func(r app.Row) bool { return r.Name == \"b\" })\nfmt.Println(idx)", "1\n"},
		{"fmt.Println(slices.Equal(nums, []int{3, 1, 2}), slices.Contains(nums, 2))", "true true\n"},
		{"x := slices.Clone(rows)\nslices.Reverse(x)\nfmt.Println(x, rows)", "[{b 2} {a 1}] [{a 1} {b 2}]\n"},
		{"for l := range strings.Lines(\"a\\nb\\n\") { fmt.Print(l) }", "a\nb\n"},
		{"for i := range 3 { fmt.Print(i) }", "012"},
		{"n := len(nums)\nfor i := range n { fmt.Print(i) }", "012"},
		{"for range 2 { fmt.Print(\"x\") }", "xx"},
		{"for i := range len(nums) - 1 { fmt.Print(nums[i]) }", "31"},
		{"const N = 2\nfor i := range N { fmt.Print(i) }", "01"},
		{"func f() { for i := range 2 { fmt.Print(i) } }\nf()", "01"},
		{"for k := range maps.Keys(m) { fmt.Print(len(k)) }", "11"},
		{"total := 0\nfor _, v := range maps.All(m) { total += v }\nfmt.Println(total)", "6\n"},
		{"for p := range strings.FieldsSeq(\"a b\") { fmt.Print(p) }", "ab"},
		{"maps.All(m)(func(k string, v int) bool { return true })", ""},
		{"x, ok := strings.CutPrefix(\"v1.2\", \"v\")\nfmt.Println(x, ok)", "1.2 true\n"},
		{"fmt.Println(min(3, 1, 2), max(7, 2), max(\"a\", \"b\"))", "1 7 b\n"},
		{"lo := min(nums[0], nums[1])\nfmt.Println(lo)", "1\n"},
		{"x := 2.5\nfmt.Println(max(x, 3))", "3\n"},
	}
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: []Var{
			{"rows", reflect.ValueOf([]Row{{"a", 1}, {"b", 2}})},
			{"nums", reflect.ValueOf([]int{3, 1, 2})},
			{"m", reflect.ValueOf(map[string]int{"k": 5, "a": 1})},
		}})
		if err != nil {
			t.Errorf("%q: %v", tc.code, err)
			continue
		}
		if res.Stdout != tc.out {
			t.Errorf("%q: stdout %q, want %q", tc.code, res.Stdout, tc.out)
		}
	}
}

// TestMinMaxShadowed: a snippet's own max function, or a top-level variable
// named min, does not break min and max for later snippets.
func TestMinMaxShadowed(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ code, out string }{
		{"func max(a, b int) int { if a > b { return a }; return b }\nfmt.Println(max(1, 2))", "2\n"},
		{"fmt.Println(max(3, 4))", "4\n"},
		{"min := 5\nfmt.Println(min)", "5\n"},
		{"fmt.Println(min(3, 4))", "3\n"},
	} {
		res, err := in.Eval(context.Background(), Input{Code: tc.code})
		if err != nil || res.Stdout != tc.out {
			t.Errorf("%q: %q, %v; want %q", tc.code, res.Stdout, err, tc.out)
		}
	}
}
