// Package action turns plain Go functions into actions a model can call.
//
// An [Action] is built once, with [New], from a [Spec]: a name, a
// description, a function and the names (with descriptions, defaults and
// enums) of its parameters. The function may take a leading
// context.Context and may return one value, an error, or a value and an
// error. Everything that can be wrong with a definition is reported by New,
// not when the model calls the action.
//
// Each parameter is either JSON-representable (the model may send a raw
// value, or a reference to a compatible variable) or ref-only (a channel, a
// func, a *browser.Browser, most interfaces: the model can only name a
// variable). Param.RefOnly forces the second, Param.RawOnly forbids
// references.
//
// A [Set] is an immutable, shareable collection of actions: build it once
// and give it to as many runtimes as you like.
//
// Actions write output through [Stdout] and [Stderr], writers the runtime
// puts in each call's context, never through os.Stdout.
//
// The package imports only the standard library and byref's schema package.
package action
