package validatorbench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	invopop "github.com/invopop/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xeipuuv/gojsonschema"
)

// toolSchema is a byref tool schema in reference mode: the model may pass a
// raw value or a "<<var:name>>" reference to a live variable.
const toolSchema = `{"type":"object","description":"Get the weather for a given location.","properties":{"location":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/location_possible_variables"}],"description":"(type: string) The location to get the weather for."},"unit":{"type":"string","enum":["c","f"],"description":"(type: string) The unit of the weather."},"return":{"anyOf":[{"$ref":"#/$defs/possible_return_assignment"},{"type":"null"}],"description":"Name of the variable to assign the result to, or null."}},"required":["location","unit","return"],"additionalProperties":false,"$defs":{"location_possible_variables":{"type":"string","enum":["<<var:language>>","<<var:location>>","<<var:country_of_origin>>"],"description":"Variables that can be passed by reference."},"possible_return_assignment":{"type":"string","enum":["location","language","country_of_origin"]}}}`

// Order is a raw parameter type, reflected with invopop/jsonschema the way
// byref does it.
type Order struct {
	ID    int `json:"id"`
	Items []struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	} `json:"items"`
	Note *string `json:"note"`
}

func orderSchema() string {
	r := invopop.Reflector{DoNotReference: true, ExpandedStruct: true}
	b, err := json.Marshal(r.Reflect(&Order{}))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// largeSchema builds a 200-property reference-mode tool schema: every fourth
// property is a string that may also be a variable reference, an integer, a
// string enum, or an array of strings. All are required.
func largeSchema() string {
	var props, req []string
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("p%03d", i)
		var p string
		switch i % 4 {
		case 0:
			p = `{"anyOf":[{"type":"string"},{"$ref":"#/$defs/string_vars"}],"description":"(type: string) a string"}`
		case 1:
			p = `{"type":"integer","description":"(type: integer) a number"}`
		case 2:
			p = `{"type":"string","enum":["red","green","blue","cyan","magenta"],"description":"(type: string) a colour"}`
		case 3:
			p = `{"type":"array","items":{"type":"string"},"description":"(type: array) tags"}`
		}
		props = append(props, fmt.Sprintf("%q:%s", name, p))
		req = append(req, fmt.Sprintf("%q", name))
	}
	props = append(props, `"return":{"anyOf":[{"$ref":"#/$defs/possible_return_assignment"},{"type":"null"}]}`)
	req = append(req, `"return"`)
	return `{"type":"object","description":"A wide tool.","properties":{` + strings.Join(props, ",") +
		`},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false,"$defs":{` +
		`"string_vars":{"type":"string","enum":["<<var:a>>","<<var:b>>","<<var:c>>"]},` +
		`"possible_return_assignment":{"type":"string","enum":["a","b","c"]}}}`
}

// largeInstance returns a valid instance, or one with property p199
// (an array) given the wrong type ("type"), or p198 (an enum) given a value
// outside the enum ("enum"). Both faults sit at the end of the object.
func largeInstance(fault string) string {
	var parts []string
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("p%03d", i)
		var v string
		switch i % 4 {
		case 0:
			if i%8 == 0 {
				v = `"<<var:a>>"`
			} else {
				v = `"hello world"`
			}
		case 1:
			v = fmt.Sprint(i * 7)
		case 2:
			v = `"green"`
			if fault == "enum" && i == 198 {
				v = `"purple"`
			}
		case 3:
			v = `["x","y"]`
			if fault == "type" && i == 199 {
				v = `"x,y"`
			}
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, v))
	}
	parts = append(parts, `"return":"b"`)
	return "{" + strings.Join(parts, ",") + "}"
}

type instance struct {
	name  string
	json  string
	valid bool
}

type fixture struct {
	name      string
	schema    string
	instances []instance
}

func fixtures() []fixture {
	return []fixture{
		{"tool", toolSchema, []instance{
			{"valid", `{"location":"<<var:location>>","unit":"c","return":"language"}`, true},
			{"invalid_type", `{"location":42,"unit":"c","return":null}`, false},
			{"invalid_enum", `{"location":"Paris","unit":"kelvin","return":null}`, false},
		}},
		{"order", orderSchema(), []instance{
			{"valid", `{"id":17,"items":[{"sku":"A-1","qty":2},{"sku":"B-2","qty":1}],"note":"leave at the door"}`, true},
			{"invalid_type", `{"id":17,"items":[{"sku":"A-1","qty":"2"}],"note":"leave at the door"}`, false},
		}},
		{"large", largeSchema(), []instance{
			{"valid", largeInstance(""), true},
			{"invalid_type", largeInstance("type"), false},
			{"invalid_enum", largeInstance("enum"), false},
		}},
	}
}

// --- santhosh-tekuri/jsonschema/v6 -----------------------------------------

// compileSanthosh is exactly how byref would compile a tool schema: decode it
// with UnmarshalJSON (json.Number), register it under a fixed in-memory URL
// and compile. The default loader only reads file:// URLs and the embedded
// metaschemas; nothing goes to the network.
func compileSanthosh(tb testing.TB, schema string) *santhosh.Schema {
	doc, err := santhosh.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		tb.Fatal(err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile("mem:///schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	return sch
}

func decodeSanthosh(tb testing.TB, inst string) any {
	v, err := santhosh.UnmarshalJSON(strings.NewReader(inst))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// --- xeipuuv/gojsonschema ---------------------------------------------------

func compileGo(tb testing.TB, schema string) *gojsonschema.Schema {
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader([]byte(schema)))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func validGo(tb testing.TB, s *gojsonschema.Schema, inst string) bool {
	r, err := s.Validate(gojsonschema.NewBytesLoader([]byte(inst)))
	if err != nil {
		tb.Fatal(err)
	}
	return r.Valid()
}

func validSanthosh(tb testing.TB, s *santhosh.Schema, inst string) bool {
	return s.Validate(decodeSanthosh(tb, inst)) == nil
}
