package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ErrProviderRule is wrapped by the errors of CheckOpenAIStrict and
// CheckAnthropic.
var ErrProviderRule = errors.New("schema: breaks a provider's rule")

// toolName is the tool name both OpenAI and Anthropic accept.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// openAIKeywords are the keywords OpenAI's strict function calling accepts.
var openAIKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "$ref": true, "$defs": true,
	"description": true, "title": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minItems": true, "maxItems": true,
}

// OpenAI's documented limits for strict schemas ("Supported schemas" in the
// Structured Outputs guide, platform.openai.com/docs/guides/structured-outputs).
const (
	openAIMaxProperties = 5000
	openAIMaxDepth      = 10
	openAIMaxEnumValues = 1000
	// An enum of more than openAILongEnum string values may total at most
	// openAIMaxEnumChars characters.
	openAILongEnum     = 250
	openAIMaxEnumChars = 15000
	// All property names, definition names, enum values and const values
	// together may total at most openAIMaxSchemaChars characters.
	openAIMaxSchemaChars = 120000
)

// openAIFormats are the string formats strict mode supports.
var openAIFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// CheckOpenAIStrict reports every way tool breaks the rules of OpenAI's
// strict function calling ("strict": true), as documented for Structured
// Outputs:
//
//   - the name matches ^[a-zA-Z0-9_-]{1,64}$;
//   - the root is an object schema, not an anyOf;
//   - every object has "additionalProperties": false and lists every
//     property in "required" (optional values are nullable instead);
//   - every subschema has a "type", an "enum"/"const", an "anyOf" or a
//     "$ref", and a "$ref" has no sibling keywords;
//   - only these keywords appear: type, properties, required,
//     additionalProperties, items, enum, const, anyOf, $ref, $defs,
//     description, title, pattern, format, minimum, maximum,
//     exclusiveMinimum, exclusiveMaximum, multipleOf, minItems, maxItems
//     (so no allOf, oneOf, not, if/then/else, patternProperties, default…);
//   - a "format" is one of date-time, time, date, duration, email, hostname,
//     ipv4, ipv6 or uuid (so not uri, which OpenAI refuses as "not a valid
//     format");
//   - at most 5,000 properties, 10 levels of nesting and 1,000 enum values
//     in all (the tool's own enums and the variable references together);
//   - an enum of more than 250 string values totals at most 15,000
//     characters;
//   - property names, definition names, enum values and const values total
//     at most 120,000 characters.
//
// It returns nil when the schema can be sent with "strict": true.
func CheckOpenAIStrict(tool Tool) error {
	c := checker{}
	if !toolName.MatchString(tool.Name) {
		c.fail("", "the tool name %q must match ^[a-zA-Z0-9_-]{1,64}$", tool.Name)
	}
	root, err := decodeObject(tool.Parameters)
	if err != nil {
		return err
	}
	if root["type"] != "object" {
		c.fail("", "the root must have \"type\": \"object\"")
	}
	c.openAI(root, "", 0)
	if c.props > openAIMaxProperties {
		c.fail("", "%d properties; the limit is %d", c.props, openAIMaxProperties)
	}
	if c.enums > openAIMaxEnumValues {
		c.fail("", "%d enum values in all; the limit is %d", c.enums, openAIMaxEnumValues)
	}
	if c.chars > openAIMaxSchemaChars {
		c.fail("", "property names, definition names, enum and const values total %d characters; the limit is %d", c.chars, openAIMaxSchemaChars)
	}
	return c.err()
}

// CheckAnthropic reports every way tool breaks the rules of Anthropic's tool
// definitions: the name matches ^[a-zA-Z0-9_-]{1,64}$, and input_schema is a
// JSON Schema whose root has "type": "object" and no oneOf, anyOf or allOf
// at the top level.
func CheckAnthropic(tool Tool) error {
	c := checker{}
	if !toolName.MatchString(tool.Name) {
		c.fail("", "the tool name %q must match ^[a-zA-Z0-9_-]{1,64}$", tool.Name)
	}
	root, err := decodeObject(tool.Parameters)
	if err != nil {
		return err
	}
	if root["type"] != "object" {
		c.fail("", "input_schema must have \"type\": \"object\"")
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if _, ok := root[k]; ok {
			c.fail("", "input_schema may not use %s at the top level", k)
		}
	}
	return c.err()
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("%w: the schema is not a JSON object: %v", ErrProviderRule, err)
	}
	return root, nil
}

type checker struct {
	problems            []string
	props, enums, chars int
}

func (c *checker) fail(at, format string, args ...any) {
	if at == "" {
		at = "/"
	}
	c.problems = append(c.problems, at+": "+fmt.Sprintf(format, args...))
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrProviderRule, strings.Join(c.problems, "; "))
}

func (c *checker) openAI(s map[string]any, at string, depth int) {
	if depth > openAIMaxDepth {
		c.fail(at, "nested deeper than %d levels", openAIMaxDepth)
		return
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !openAIKeywords[k] {
			c.fail(at, "keyword %q is not supported in strict mode", k)
		}
	}
	if _, ok := s["$ref"]; ok && len(s) > 1 {
		c.fail(at, "$ref may not have sibling keywords")
	}
	_, hasType := s["type"]
	_, hasEnum := s["enum"]
	_, hasConst := s["const"]
	_, hasAnyOf := s["anyOf"]
	_, hasRef := s["$ref"]
	if !hasType && !hasEnum && !hasConst && !hasAnyOf && !hasRef {
		c.fail(at, "the schema has no type (an any value is not allowed in strict mode)")
	}
	if e, ok := s["enum"].([]any); ok {
		c.enums += len(e)
		n := 0
		for _, v := range e {
			if str, ok := v.(string); ok {
				n += len(str)
			}
		}
		c.chars += n
		if len(e) > openAILongEnum && n > openAIMaxEnumChars {
			c.fail(at, "an enum of %d values totals %d characters; above %d values the limit is %d", len(e), n, openAILongEnum, openAIMaxEnumChars)
		}
	}
	if str, ok := s["const"].(string); ok {
		c.chars += len(str)
	}
	if f, ok := s["format"].(string); ok && !openAIFormats[f] {
		c.fail(at, "format %q is not supported in strict mode (only date-time, time, date, duration, email, hostname, ipv4, ipv6 and uuid)", f)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		c.props += len(props)
		for n := range props {
			c.chars += len(n)
		}
		if s["additionalProperties"] != false {
			c.fail(at, "an object must set \"additionalProperties\": false")
		}
		var required []string
		if r, ok := s["required"].([]any); ok {
			for _, x := range r {
				if n, ok := x.(string); ok {
					required = append(required, n)
				}
			}
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !slices.Contains(required, n) {
				c.fail(at, "property %q must be listed in \"required\" (make it nullable instead of optional)", n)
			}
			c.sub(props[n], at+"/properties/"+n, depth+1)
		}
	} else if s["type"] == "object" {
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			c.fail(at, "an object must declare its properties and set \"additionalProperties\": false (maps are not allowed in strict mode)")
		}
	}
	if sub, ok := s["items"]; ok {
		c.sub(sub, at+"/items", depth+1)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		if at == "" {
			c.fail(at, "the root may not be an anyOf")
		}
		for i, a := range alts {
			c.sub(a, fmt.Sprintf("%s/anyOf/%d", at, i), depth)
		}
	}
	if defs, ok := s["$defs"].(map[string]any); ok {
		names := make([]string, 0, len(defs))
		for n := range defs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c.chars += len(n)
			c.sub(defs[n], at+"/$defs/"+n, depth)
		}
	}
}

// sub checks the subschema x found at at: it must be an object, since the
// boolean schemas true (any value) and false are not allowed in strict mode.
func (c *checker) sub(x any, at string, depth int) {
	m, ok := x.(map[string]any)
	if !ok {
		c.fail(at, "the schema %v is not an object with a type (an any value is not allowed in strict mode)", x)
		return
	}
	c.openAI(m, at, depth)
}
