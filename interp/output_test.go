package interp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
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

// TestOSStreamsLater: os.Stdout is an *os.File to %T, as in compiled Go;
// a writer an earlier snippet made around it and kept in a variable writes
// to the output of the snippet that uses it, also after the interpreter was
// rebuilt; after a stopped snippet it refuses with a message naming the
// fix instead of losing the output.
func TestOSStreamsLater(t *testing.T) {
	in, err := New(Options{RebuildEvery: 1, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := in.Eval(ctx, Input{Code: "fmt.Printf(\"%T %T\\n\", os.Stdout, os.Stderr)\ntw := tabwriter.NewWriter(os.Stdout, 0, 8, 1, ' ', 0)\nfmt.Fprintln(tw, \"a\\tb\")\ntw.Flush()"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "*os.File *os.File\na b\n"; res.Stdout != want {
		t.Errorf("stdout %q, want %q", res.Stdout, want)
	}
	tw := res.Values["tw"]
	rebuilds := in.Stats().Rebuilds
	res, err = in.Eval(ctx, Input{Code: "fmt.Fprintln(tw, \"later\\tsnippet\")\ntw.Flush()", Vars: []Var{{Name: "tw", Value: tw}}})
	if err != nil || res.Stdout != "later snippet\n" {
		t.Errorf("the kept tabwriter after a rebuild: stdout %q, %v", res.Stdout, err)
	}
	if in.Stats().Rebuilds == rebuilds {
		t.Errorf("no rebuild before the second snippet")
	}
	// The streams of an instance where a snippet was stopped refuse.
	in, err = New(Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err = in.Eval(ctx, Input{Code: "w := tabwriter.NewWriter(os.Stdout, 0, 8, 1, ' ', 0)"})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Values["w"]
	if _, err := in.Eval(ctx, Input{Code: "for {}"}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("the loop: %v", err)
	}
	_, err = in.Eval(ctx, Input{Code: "fmt.Fprintln(w, \"x\")\nw.Flush()", Vars: []Var{{Name: "w", Value: w}}})
	if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "make it again in this snippet") {
		t.Errorf("a writer of a stopped instance: %v, want a panic naming the fix", err)
	} else if testing.Verbose() {
		t.Log(err)
	}
}
