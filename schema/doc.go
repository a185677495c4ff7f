// Package schema turns Go types into the JSON Schemas a model sees, builds
// the reference-aware tool schemas of byref, checks them against providers'
// rules and validates arguments.
//
// # Raw schemas
//
// [For] describes a Go type with github.com/invopop/jsonschema, normalised so
// that providers accept it: no $schema or $id, every object closed
// (additionalProperties: false) with every property required, and fields that
// may be omitted (omitempty) made nullable instead. [Representable] says
// whether a type can travel as JSON at all; a type that cannot (a channel, a
// func, an interface other than any, a struct with unexported fields, a
// recursive type) is passed by reference only.
//
// # Tool schemas
//
// [BuildTool] writes one object schema per action in reference mode: a
// parameter with compatible variables takes
//
//	{"anyOf": [<raw schema>, {"$ref": "#/$defs/<param>_possible_variables"}]}
//
// where the $defs entry is a string enum of "<<var:name>>" values; a ref-only
// parameter offers only the enum; a required, nullable "return" property
// names an existing variable to assign the result to. [BuildPlainTool] writes
// ordinary schemas with no references.
//
// # Provider rules
//
// [CheckOpenAIStrict] and [CheckAnthropic] test a schema against the rules
// documented on each; byref's tool schemas pass both except where a
// parameter's type is a map or any (OpenAI's strict mode requires closed
// objects with declared types).
//
// # Validation
//
// [Compile] prepares a schema for validating values with
// github.com/santhosh-tekuri/jsonschema/v6 (JSON Schema 2020-12, no network
// access). A compiled [Validator] is safe for concurrent use.
package schema
