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
// # Struct arguments
//
// A function whose one parameter (after an optional context.Context) is a
// struct takes that struct's fields as its arguments object, the way ADK
// Go, Eino and Genkit tools are written:
//
//	type SearchArgs struct {
//		Query string `json:"query" jsonschema:"description=What to look for."`
//		Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=20"`
//	}
//	search := action.MustNew(action.Spec{Name: "search", Func: func(ctx context.Context, a SearchArgs) ([]Hit, error) {…}})
//
// Each field is a [Parameter] of its own (Parameter.Field is its Go name,
// [Action.ArgsStruct] the struct), so a field takes a raw value or a
// reference to a compatible variable, is checked, approved and recorded
// like any parameter, and the model reads the same schema as for a
// function of one parameter per field. [Action.Call] takes one value per
// field and builds the struct. Snippets call such an action with one
// argument per field, in field order.
//
// The fields are the ones encoding/json sets: exported, not tagged
// json:"-", named by their json tag (a Go keyword such as "type" is fine).
// The fields of an untagged embedded struct are promoted in place
// (Parameter.Field is then a path, "Paging.Limit"); a struct embedded
// through a pointer is refused. A field is optional when its json tag says
// omitempty or omitzero, or when it is a pointer (nil when not given); an
// optional field left out gets its default or its zero value. The tag
// ",string" is refused.
//
// Descriptions and bounds come from the `jsonschema` tag as
// invopop/jsonschema writes it (and so Eino and Genkit): description=,
// enum= (repeated), minimum=, maximum=, minLength=, maxLength=, pattern=,
// default= and required (which makes an omitempty or pointer field
// required); `jsonschema_description` is read too. Other keys are refused
// with the list of these. Spec.Params may name fields by their JSON names
// to add to or override what the tags say; an entry that names no field
// is an error.
//
// A struct that decodes or describes itself (time.Time, a type with
// UnmarshalJSON, UnmarshalText or a JSONSchema method), and a struct with
// fields none of which JSON can set (a handle such as struct{ fd int }),
// are ordinary parameters. To take any other struct whole, as one
// parameter (a JSON object, or a reference to a variable of the struct's
// type), declare it with Params: []Param{{Name: "row", Whole: true}}.
//
// A [Set] is an immutable, shareable collection of actions: build it once
// and give it to as many runtimes as you like.
//
// Actions write output through [Stdout] and [Stderr], writers the runtime
// puts in each call's context, never through os.Stdout.
//
// The package imports only the standard library and byref's schema package.
package action
