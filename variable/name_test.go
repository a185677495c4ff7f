package variable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		why  string // a fragment of the error message
	}{
		{"page", true, ""},
		{"Page2", true, ""},
		{"_private", true, ""},
		{"result_2", true, ""},
		{"données", true, ""},
		{"π", true, ""},
		{"名前", true, ""},
		{"len_", true, ""},
		{"stringer", true, ""},

		{"", false, "empty"},
		{"_", false, "blank identifier"},
		{"func", false, "keyword"},
		{"range", false, "keyword"},
		{"type", false, "keyword"},
		{"go", false, "keyword"},
		{"len", false, "predeclared"},
		{"string", false, "predeclared"},
		{"nil", false, "predeclared"},
		{"true", false, "predeclared"},
		{"iota", false, "predeclared"},
		{"fmt", false, "package Go snippets use"},
		{"strings", false, "package Go snippets use"},
		{"time", false, "package Go snippets use"},
		{"sort", false, "package Go snippets use"},
		{"json", false, "package Go snippets use"},
		{"path", false, "package Go snippets use"},
		{"any", false, "predeclared"},
		{"error", false, "predeclared"},
		{"append", false, "predeclared"},
		{"min", false, "predeclared"},
		{"clear", false, "predeclared"},
		{"2fast", false, "not a Go identifier"},
		{"9", false, "not a Go identifier"},
		{"my-var", false, "not a Go identifier"},
		{"my var", false, "not a Go identifier"},
		{"a.b", false, "not a Go identifier"},
		{"<<var:x>>", false, "not a Go identifier"},
		{"x\x00", false, "not a Go identifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := variable.ValidName(tt.name)
			if tt.ok {
				if err != nil {
					t.Fatalf("ValidName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidName(%q) = nil, want an error", tt.name)
			}
			if !errors.Is(err, variable.ErrInvalidName) {
				t.Errorf("ValidName(%q) = %v, does not wrap ErrInvalidName", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("ValidName(%q) = %q, want it to mention %q", tt.name, err, tt.why)
			}
		})
	}
}

// The suggested replacement in the message must itself be valid.
func TestValidNameSuggestionIsValid(t *testing.T) {
	for _, name := range []string{"func", "len", "string", "nil", "map"} {
		err := variable.ValidName(name)
		if err == nil {
			t.Fatalf("ValidName(%q) = nil", name)
		}
		if !strings.Contains(err.Error(), name+"_") {
			t.Errorf("ValidName(%q) = %q, want a suggestion %s_", name, err, name)
		}
		if err := variable.ValidName(name + "_"); err != nil {
			t.Errorf("suggested name %s_ is not valid: %v", name, err)
		}
	}
}
