package browser

import (
	"reflect"
)

// SymbolsPath is the key of the package's table in Symbols: its import path,
// "/", and its name.
const SymbolsPath = "github.com/byref/byref/browser/browser"

// Symbols are the package's identifiers that Go snippets may use, in the
// form interp.Options.Symbols takes. A snippet holding a *Browser variable
// can call its methods without them (snippets get the step's context as
// ctx: txt, err := web.Text(ctx, "h1")); with them it can also name the
// package's types and values: browser.Point{X: 10, Y: 20}, *browser.Snapshot,
// errors.Is(err, browser.ErrTimeout).
//
// Start, Options and the action constructors are left out: a snippet
// drives the browsers the run holds, it does not launch processes. Errors
// are given as values, not variables, so a snippet cannot reassign them.
//
// Its type is interp.Exports spelled out (that type is an alias of this
// map), so that package browser does not link the interpreter.
var Symbols = map[string]map[string]reflect.Value{SymbolsPath: {
	// Types.
	"Browser":         reflect.ValueOf((*Browser)(nil)),
	"Snapshot":        reflect.ValueOf((*Snapshot)(nil)),
	"Element":         reflect.ValueOf((*Element)(nil)),
	"Screenshot":      reflect.ValueOf((*Screenshot)(nil)),
	"Point":           reflect.ValueOf((*Point)(nil)),
	"Error":           reflect.ValueOf((*Error)(nil)),
	"Call":            reflect.ValueOf((*Call)(nil)),
	"OpenAIAction":    reflect.ValueOf((*OpenAIAction)(nil)),
	"AnthropicAction": reflect.ValueOf((*AnthropicAction)(nil)),

	// Functions.
	"MapOpenAIAction":    reflect.ValueOf(MapOpenAIAction),
	"MapAnthropicAction": reflect.ValueOf(MapAnthropicAction),

	// Errors.
	"ErrNoChromium":        reflect.ValueOf(ErrNoChromium),
	"ErrClosed":            reflect.ValueOf(ErrClosed),
	"ErrTimeout":           reflect.ValueOf(ErrTimeout),
	"ErrUnknownID":         reflect.ValueOf(ErrUnknownID),
	"ErrUnsupportedAction": reflect.ValueOf(ErrUnsupportedAction),

	// Constants.
	"ButtonLeft":          reflect.ValueOf(ButtonLeft),
	"ButtonRight":         reflect.ValueOf(ButtonRight),
	"ButtonMiddle":        reflect.ValueOf(ButtonMiddle),
	"ButtonBack":          reflect.ValueOf(ButtonBack),
	"ButtonForward":       reflect.ValueOf(ButtonForward),
	"MaxSnapshotElements": reflect.ValueOf(MaxSnapshotElements),
	"MaxSnapshotText":     reflect.ValueOf(MaxSnapshotText),
	"ScrollClick":         reflect.ValueOf(ScrollClick),
	"DefaultWidth":        reflect.ValueOf(DefaultWidth),
	"DefaultHeight":       reflect.ValueOf(DefaultHeight),
}}
