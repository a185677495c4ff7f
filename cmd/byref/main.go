// Command byref runs byref agents from a terminal.
//
// Usage:
//
//	byref demo     run the built-in demo (no API key needed)
//	byref help     show this help
package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `byref runs LLM agents whose tools are Go functions and whose state is Go values.

Usage:
  byref demo    run the built-in demo on the scripted model (no API key needed)
  byref help    show this help
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "demo":
		if err := demo(ctx, stdout); err != nil {
			fmt.Fprintln(stderr, "byref demo:", err)
			return 1
		}
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "byref: unknown command %q\n\n%s", args[0], usage)
	return 2
}
