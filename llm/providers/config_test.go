package providers_test

import (
	"reflect"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/azure"
	"github.com/byref/byref/llm/gemini"
	"github.com/byref/byref/llm/openai"
	"github.com/byref/byref/llm/openai/responses"
)

// TestOneConfigType: a provider's Options hold its configuration as the
// one llm.Config, embedded, and declare none of its settings again: the
// key, base URL, client and sampling defaults are declared once.
func TestOneConfigType(t *testing.T) {
	config := reflect.TypeFor[llm.Config]()
	shared := map[string]bool{}
	for f := range config.Fields() {
		shared[f.Name] = true
	}
	for _, opts := range []reflect.Type{reflect.TypeFor[openai.Options](), reflect.TypeFor[anthropic.Options](),
		reflect.TypeFor[responses.Options](), reflect.TypeFor[azure.Options](), reflect.TypeFor[gemini.Options]()} {
		embeds := false
		for f := range opts.Fields() {
			switch {
			case f.Anonymous && f.Type == config:
				embeds = true
			case shared[f.Name]:
				t.Errorf("%v declares %s again; it is llm.Config's", opts, f.Name)
			}
		}
		if !embeds {
			t.Errorf("%v does not embed llm.Config", opts)
		}
	}
}
