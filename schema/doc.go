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
// [BuildTool] writes one lean object schema per action in reference mode,
// since the model reads it on every call. A string parameter with
// compatible variables is its raw schema (a reference is a string); any
// other takes
//
//	{"anyOf": [<raw schema>, {"$ref": "#/$defs/ref"}]}
//
// where $defs.ref is the one reference pattern, [RefPattern]. The
// compatible variables are not listed per parameter: the runtime's system
// prompt names each variable once, with its type. A ref-only parameter lists
// its compatible variables as an enum of "<<var:name>>" values. There is no
// "return" property: results go to new variables ([ReturnProperty] is still
// accepted). [BuildPlainTool] writes ordinary schemas with no references.
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
