package action

import (
	"context"
	"io"
)

type outputKey struct{}

type output struct{ stdout, stderr io.Writer }

// WithOutput returns a context whose Stdout and Stderr are the given
// writers. The runtime calls it once per call, with writers it captures into
// the tool response.
func WithOutput(ctx context.Context, stdout, stderr io.Writer) context.Context {
	return context.WithValue(ctx, outputKey{}, &output{stdout: stdout, stderr: stderr})
}

// Stdout returns the writer for the standard output of the call running
// under ctx, or io.Discard outside a call. What an action writes there goes
// back to the model in the tool response.
func Stdout(ctx context.Context) io.Writer {
	if o, ok := ctx.Value(outputKey{}).(*output); ok && o.stdout != nil {
		return o.stdout
	}
	return io.Discard
}

// Stderr is like Stdout for the call's standard error.
func Stderr(ctx context.Context) io.Writer {
	if o, ok := ctx.Value(outputKey{}).(*output); ok && o.stderr != nil {
		return o.stderr
	}
	return io.Discard
}
