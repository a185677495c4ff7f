package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/byref/byref/schema"
)

func ExampleBuildTool() {
	str, _ := schema.For(reflect.TypeFor[string]())
	num, _ := schema.For(reflect.TypeFor[int]())
	tool := schema.BuildTool(schema.ToolSpec{
		Name:        "summarize",
		Description: "Summarize a page.",
		Params: []schema.Param{
			// A string: the model writes one, or "<<var:page>>".
			{Name: "text", TypeName: "string", Raw: str, Refs: []string{"page", "notes"}},
			// Not a string: a number, or a reference by the one pattern.
			{Name: "words", TypeName: "int", Raw: num, Refs: []string{"limit"}, Description: "How many words at most."},
		},
		Return: &schema.Return{TypeName: "string"},
	})
	var out bytes.Buffer
	json.Indent(&out, tool.Parameters, "", "  ")
	fmt.Println(out.String())
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "text": {
	//       "type": "string"
	//     },
	//     "words": {
	//       "anyOf": [
	//         {
	//           "type": "integer"
	//         },
	//         {
	//           "$ref": "#/$defs/ref"
	//         }
	//       ],
	//       "description": "How many words at most."
	//     }
	//   },
	//   "required": [
	//     "text",
	//     "words"
	//   ],
	//   "additionalProperties": false,
	//   "$defs": {
	//     "ref": {
	//       "type": "string",
	//       "pattern": "^<<var:[A-Za-z_][A-Za-z0-9_]*>>$"
	//     }
	//   }
	// }
}

func ExampleCheckOpenAIStrict() {
	type Filter struct {
		Field string `json:"field"`
		Value string `json:"value,omitempty"`
	}
	filter, _ := schema.For(reflect.TypeFor[Filter]())
	labels, _ := schema.For(reflect.TypeFor[map[string]string]())

	ok := schema.BuildTool(schema.ToolSpec{Name: "search", Params: []schema.Param{{Name: "filter", TypeName: "Filter", Raw: filter}}})
	fmt.Println(schema.CheckOpenAIStrict(ok))

	withMap := schema.BuildTool(schema.ToolSpec{Name: "label", Params: []schema.Param{{Name: "labels", TypeName: "map[string]string", Raw: labels}}})
	fmt.Println(schema.CheckOpenAIStrict(withMap))
	fmt.Println(schema.CheckAnthropic(withMap))
	// Output:
	// <nil>
	// schema: breaks a provider's rule: /properties/labels: an object must declare its properties and set "additionalProperties": false (maps are not allowed in strict mode)
	// <nil>
}

func ExampleCompile() {
	v, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Validate(json.RawMessage(`{"n": 3}`)))
	fmt.Println(v.Validate(json.RawMessage(`{"n": "three"}`)))
	// Output:
	// <nil>
	// schema: invalid value: at /n: got string, want integer
}
