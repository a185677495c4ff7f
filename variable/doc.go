// Package variable holds the values an agent run works on: named, typed Go
// values that the model refers to as <<var:name>> instead of copying them.
//
// A [Variable] has a name that is a Go identifier (so snippets can use it as
// one), a value of any Go type together with its [reflect.Type], an optional
// description, a secret flag and a [History] of the steps that set it. A [Set]
// is the per-run collection; the runtime owns one and guards it.
//
// The model never sees a value, only a [Preview]: its type and a bounded
// representation. Secret variables are usable by reference but their previews
// are redacted everywhere.
//
// The package imports only the standard library.
package variable
