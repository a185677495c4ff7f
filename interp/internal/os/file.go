// Package os declares the type of a snippet's os.Stdout and os.Stderr. Its
// name is os so that the type prints as compiled Go prints those streams'
// (%T gives *os.File); it has nothing else of the standard os package.
package os

import "io"

// File is a snippet's output stream: what it writes goes to the
// interpreter's writer for the stream.
type File struct {
	w io.Writer
}

// NewFile returns a stream writing to w.
func NewFile(w io.Writer) *File { return &File{w: w} }

// Write writes p to the stream.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// WriteString writes s to the stream.
func (f *File) WriteString(s string) (int, error) { return io.WriteString(f.w, s) }
