package interp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestBoundedBuffer(t *testing.T) {
	flooded := 0
	b := &boundedBuffer{max: 4, floodAt: 10, onFlood: func() { flooded++ }}
	b.Write([]byte("abcdef"))
	if got := b.String(); got != "abcd\n[output truncated: 2 more bytes dropped]\n" {
		t.Fatalf("%q", got)
	}
	b.Write([]byte("0123456789"))
	b.Write([]byte("x"))
	if flooded != 1 {
		t.Fatalf("onFlood called %d times", flooded)
	}
}

// TestOSStreams: os.Stdout and os.Stderr are the snippet's own output
// streams, for tabwriter, fmt.Fprintf and json.NewEncoder, imported or
// not; every other name of os is refused by its rule.
func TestOSStreams(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: `w := tabwriter.NewWriter(os.Stdout, 0, 8, 1, ' ', 0)
fmt.Fprintln(w, "name\tqty")
fmt.Fprintln(w, "pen\t3")
w.Flush()
fmt.Fprintf(os.Stderr, "warn %d\n", 1)
json.NewEncoder(os.Stdout).Encode(map[string]int{"a": 1})`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "name qty\npen  3\n{\"a\":1}\n"; res.Stdout != want || res.Stderr != "warn 1\n" {
		t.Errorf("stdout %q stderr %q, want %q and %q", res.Stdout, res.Stderr, want, "warn 1\n")
	}
	res, err = in.Eval(context.Background(), Input{Code: "import o \"os\"\nfmt.Fprint(o.Stdout, \"renamed\")"})
	if err != nil || res.Stdout != "renamed" {
		t.Errorf("renamed os: %q %v", res.Stdout, err)
	}
	// A snippet that replaces os.Stdout replaces its own only.
	res, err = in.Eval(context.Background(), Input{Code: "os.Stdout = os.Stderr\nfmt.Fprint(os.Stdout, \"to stderr\")"})
	if err != nil || res.Stdout != "" || res.Stderr != "to stderr" {
		t.Errorf("os.Stdout = os.Stderr: stdout %q stderr %q, %v", res.Stdout, res.Stderr, err)
	}
	res, err = in.Eval(context.Background(), Input{Code: "fmt.Fprint(os.Stdout, \"next\")"})
	if err != nil || res.Stdout != "next" {
		t.Errorf("the next snippet's os.Stdout: stdout %q stderr %q, %v", res.Stdout, res.Stderr, err)
	}
	for _, code := range []string{"x := os.Args", "import \"os\"\nos.Exit(1)", "f, _ := os.Open(\"/etc/passwd\")"} {
		_, err := in.Eval(context.Background(), Input{Code: code})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "only os.Stdout and os.Stderr") {
			t.Errorf("%q: %v, want the os rule", code, err)
		}
	}
}
