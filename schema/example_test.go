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
	tool := schema.BuildTool(schema.ToolSpec{
		Name:        "summarize",
		Description: "Summarize a page.",
		Params: []schema.Param{
			// The model may write a string or name a compatible variable.
			{Name: "text", TypeName: "string", Raw: str, Refs: []string{"page", "notes"}},
		},
		Return: &schema.Return{TypeName: "string"},
	})
	var out bytes.Buffer
	json.Indent(&out, tool.Parameters, "", "  ")
	fmt.Println(out.String())
	// Output:
	// {
	//   "type": "object",
	//   "description": "Summarize a page.",
	//   "properties": {
	//     "text": {
	//       "anyOf": [
	//         {
	//           "type": "string"
	//         },
	//         {
	//           "$ref": "#/$defs/text_possible_variables"
	//         }
	//       ],
	//       "description": "(type: string)"
	//     },
	//     "return": {
	//       "type": "null",
	//       "description": "The variable to assign the result to: the name of a compatible existing variable, or null to create a new variable. (type: string)"
	//     }
	//   },
	//   "required": [
	//     "text",
	//     "return"
	//   ],
	//   "additionalProperties": false,
	//   "$defs": {
	//     "text_possible_variables": {
	//       "type": "string",
	//       "enum": [
	//         "<<var:page>>",
	//         "<<var:notes>>"
	//       ],
	//       "description": "A reference <<var:NAME>> to a variable compatible with 'text' (type string)."
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
