package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the validator's messages in English.
var printer = message.NewPrinter(language.English)

// ErrInvalid is wrapped by the errors of Validator.Validate for values the
// schema rejects.
var ErrInvalid = errors.New("schema: invalid value")

// Validator checks JSON values against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	s *jsonschema.Schema
}

// Compile prepares a schema for validation. It never reads from the network
// or the file system: a $ref must point inside the schema.
func Compile(schema json.RawMessage) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource("byref:///schema.json", doc); err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	s, err := c.Compile("byref:///schema.json")
	if err != nil {
		return nil, fmt.Errorf("schema: compile: %w", err)
	}
	return &Validator{s: s}, nil
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema: external reference %q refused: byref schemas are self-contained", url)
}

// Validate checks the JSON text value. The error wraps ErrInvalid and says,
// in one line, where the value is wrong and how.
func (v *Validator) Validate(value json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return fmt.Errorf("%w: not JSON: %v", ErrInvalid, err)
	}
	return v.ValidateValue(inst)
}

// ValidateValue checks a value already decoded from JSON (numbers as
// json.Number, objects as map[string]any, arrays as []any).
func (v *Validator) ValidateValue(inst any) error {
	err := v.s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return fmt.Errorf("%w: %s", ErrInvalid, summarize(ve))
}

// summarize reduces a validation error tree to its leaves, one clause each.
func summarize(ve *jsonschema.ValidationError) string {
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			parts = append(parts, "at "+loc+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return strings.Join(parts, "; ")
}
