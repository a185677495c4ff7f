// Package codegen turns a recorded run into Go code that replays it with no
// model: reviewable, editable, and free to run again.
//
// # Recordings
//
// A [Recording] is built from a run's event log with [FromEvents], as a
// store returns it or a run streams it: replay code needs nothing else.
// The runtime records in the log what replay needs about each action the
// run called: its Go identity ([run.GoAction]: the function's symbol,
// which says where it lives and whether it is a closure, a method or
// unexported; its signature; its parameters' names and defaults), on its
// first completed call; the types of the variables, qualified by import
// path ([run.GoType]); and the named types they are built from
// ([run.NamedType]). Each call is read as the runtime resolved it
// ([run.Resolution]), never parsed again. A host therefore needs no
// action set: byref replay, the inspector and a program reading its store
// all generate the same code. A Recording is plain data: callers may
// adjust it, e.g. [Recording.SetStart] for a starting value too large for
// the log.
//
// A log written before byref recorded these (no GoAction for a called
// action, no resolution for a call) is refused with an error that says to
// run the task again.
//
// # The generated file
//
// [Generate] writes one gofmt-clean file:
//
//	type Variables struct{ … }  // every variable the replay leaves, tagged with its name
//	func Replay(ctx context.Context, [actions Actions,] <starting variables>) (R, error)
//	func ReplayVariables(…same…) (R, Variables, error)
//	func main()                  // with Options.Main
//
// Starting variables are parameters, in creation order, named as in the run.
// R is the type of the variable the run returned (terminate's result by
// reference), or json.RawMessage for a raw or absent result. Each step is
// preceded by a comment with its number and the model's stated reason (its
// text without code blocks); approvals and answers become comments; failed
// and denied instructions are left out as comments that say why. A question
// the run asked its user (the built-in ask_user) is not asked again: the
// recorded answer is assigned to the call's result, under a comment that
// says what was asked. A call the run's client ran itself (an AG-UI front
// end's tool, marked in the log by run.AwaitRequested.Client) has no Go
// function: the client's recorded answer is assigned to the call's result,
// under a comment that says it was answered by the client. Text from the run (the model's, the user's, the run
// ID) is written into comments one rune at a time: line breaks cannot end a
// comment early, and control and invisible runes become escapes.
//
// # How actions are called
//
// An action whose function is an exported package-level function is called
// directly through its import path (read from its recorded symbol), with
// the arguments written as Go: references become the variables' names,
// raw JSON becomes Go literals of the parameters' types, omitted
// parameters their recorded defaults (or zero values). A closure
// ("pkg.F.func1"), a method value ("pkg.(*T).M-fm"), an unexported
// function, or one in a test or an internal package cannot be named from
// another package: Replay then takes an actions parameter of the
// generated type Actions, a struct with one field per such action, named
// after it and typed with the function's exact signature, and calls the
// field; a nil field fails the replay before any action runs. The
// generated main fills it from Options.ActionSet or Options.ActionSetFunc
// (byref replay --actions), through replay.Func, which also checks the
// signature; or says which fields to fill.
//
// # Values
//
// Recorded JSON (raw arguments, defaults, starting values, a child run's
// result) is written as a Go literal of the recorded type: basic values,
// slices, arrays, maps, pointers and structs, with struct fields matched to
// JSON keys as encoding/json does (tag names, then case-insensitively).
// Where the log cannot vouch for a literal (a type that decodes its JSON
// itself, such as time.Time; embedded fields; a ",string" field option; a
// type the log does not describe), the value is decoded at run time from
// the recorded JSON instead: replay.JSON[T](`…`), which gives exactly what
// the runtime's decoding gave.
//
// # Package main
//
// A run whose actions or variables use types or functions of package main
// replays as a file of package main (the default Options.Package) meant to
// sit next to the user's main.go: it names main's types and calls main's
// functions by their bare names, unexported ones included, and Options.Main
// then writes ReplayMain, for the user's main to call, instead of a second
// main. Generated into another package, such a run is refused with an
// error that says so.
//
// # Snippets
//
// Snippets are inlined in Replay's body, in order, so the variables they
// declare are Go variables later steps see. Their imports (explicit, or
// implied by a package name, as the interpreter allows) move into the file's
// import block; their func and type declarations move to file level. A
// top-level := or var whose names all exist already becomes an assignment,
// as the runtime treats a re-declared variable. A top-level return, which
// ends a snippet in the interpreter, becomes a break out of a labeled
// switch holding the rest of that snippet; a snippet that declares new
// variables after such a return is refused (they would be local to the
// switch). A snippet is inlined as written only once its parse shows the
// text is exactly statements (and func and type declarations, none of them
// init or main): a stray closing brace, which would end Replay's body and
// put the rest at file level, fails Generate. Actions called in snippets
// resolve to the same functions, through local funcs named as the actions,
// with the snippet's signature (no context). A host package a snippet
// names as the prompt showed it (model2.User for a second package named
// model, time2.Slot for a host package named time) is imported under that
// name (model2 "example.com/b/model"): [Recording.Packages] maps the names
// to import paths, and FromEvents fills it from each variable's type as the
// model saw it and as the log qualifies it, and from each action's
// signature likewise (run.GoAction.Shown). A log that does not show a
// name, when several of the run's packages could be meant, fails Generate
// with an error that names Recording.Packages (byref replay --package
// name=path); a single candidate is taken. [GenerateSnippet] writes the
// whole replay as one snippet instead, for package interp.
//
// # Secrets
//
// Secret variables are never written as literals: they stay parameters, a
// generated main reads them from the environment (BYREF_<NAME>), and the
// Variables struct does not encode them.
//
// # Child runs
//
// A call that started a child run (an agent used as an action) is replayed
// from the child's recorded result, written as a Go literal of the action's
// result type: replaying it must not run a model. The comment names the
// child run, which can be replayed on its own.
package codegen
