package validatorbench

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// Both validators must agree with the expected verdict on every fixture.
func TestFixturesAgree(t *testing.T) {
	for _, f := range fixtures() {
		g := compileGo(t, f.schema)
		s := compileSanthosh(t, f.schema)
		for _, in := range f.instances {
			if got := validGo(t, g, in.json); got != in.valid {
				t.Errorf("gojsonschema %s/%s: valid=%v, want %v", f.name, in.name, got, in.valid)
			}
			if got := validSanthosh(t, s, in.json); got != in.valid {
				t.Errorf("santhosh %s/%s: valid=%v, want %v", f.name, in.name, got, in.valid)
			}
		}
	}
}

// gojsonschema resolves "#/$defs/..." as a plain JSON pointer into the
// document, so byref's reference-mode $defs do work: a return assignment
// outside the $defs enum is rejected by both.
func TestDefsRefsResolved(t *testing.T) {
	bad := `{"location":"<<var:location>>","unit":"c","return":"not_a_variable"}`
	if validGo(t, compileGo(t, toolSchema), bad) {
		t.Error("gojsonschema ignored $defs/$ref: accepted a return outside the enum")
	}
	if validSanthosh(t, compileSanthosh(t, toolSchema), bad) {
		t.Error("santhosh accepted a return outside the enum")
	}
}

// recordingTransport replaces http.DefaultTransport (which gojsonschema's
// http.Get uses) so the test sees every attempted fetch without any network.
type recordingTransport struct {
	mu   sync.Mutex
	urls []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	return nil, errors.New("network disabled in test")
}

func withRecordingTransport(t *testing.T) *recordingTransport {
	rt := &recordingTransport{}
	old := http.DefaultTransport
	http.DefaultTransport = rt
	t.Cleanup(func() { http.DefaultTransport = old })
	return rt
}

const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`

// Plain NewSchema (SchemaLoader.Validate == false, the default) does not
// fetch anything, even with a 2020-12 $schema: the URL is unknown to it, so it
// falls back to its "Hybrid" draft 4/6/7 mode without a word.
func TestGoNoFetchByDefault(t *testing.T) {
	rt := withRecordingTransport(t)
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader([]byte(schema2020)))
	if err != nil {
		t.Fatal(err)
	}
	if validGo(t, s, `{"a":1}`) {
		t.Error("should reject a:1")
	}
	if len(rt.urls) != 0 {
		t.Errorf("unexpected fetches: %v", rt.urls)
	}
}

// Asking gojsonschema to validate the schema itself (SchemaLoader.Validate)
// with a 2020-12 $schema makes it http.Get the metaschema: only drafts 4, 6
// and 7 are embedded. Offline this is an error (or a hang until the dial
// times out); here the recording transport shows the attempt.
func TestGoFetchesMetaschemaWhenValidatingSchema(t *testing.T) {
	rt := withRecordingTransport(t)
	sl := gojsonschema.NewSchemaLoader()
	sl.Validate = true
	_, err := sl.Compile(gojsonschema.NewBytesLoader([]byte(schema2020)))
	if err == nil {
		t.Error("expected an error: the 2020-12 metaschema cannot be fetched")
	}
	if len(rt.urls) == 0 {
		t.Fatal("expected a metaschema fetch, saw none")
	}
	t.Logf("gojsonschema tried to fetch %v; error: %v", rt.urls, err)

	// With a draft-07 $schema the embedded copy is used: no fetch.
	rt.urls = nil
	sl = gojsonschema.NewSchemaLoader()
	sl.Validate = true
	if _, err := sl.Compile(gojsonschema.NewBytesLoader([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`))); err != nil {
		t.Fatal(err)
	}
	if len(rt.urls) != 0 {
		t.Errorf("draft-07: unexpected fetches %v", rt.urls)
	}
}

// santhosh-tekuri never touches the network: 2020-12 metaschemas are embedded
// and the default loader only reads file:// URLs.
func TestSanthoshNoFetch(t *testing.T) {
	rt := withRecordingTransport(t)
	s := compileSanthosh(t, schema2020)
	if validSanthosh(t, s, `{"a":1}`) {
		t.Error("should reject a:1")
	}
	if len(rt.urls) != 0 {
		t.Errorf("unexpected fetches: %v", rt.urls)
	}
}

// 2020-12 keywords that gojsonschema silently ignores (or reads with the
// older meaning). Each case has an instance whose 2020-12 verdict differs
// from gojsonschema's; santhosh-tekuri gets all of them right.
var draft2020Cases = []struct {
	name, schema, instance string
	valid2020              bool
}{
	{"prefixItems ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`,
		`[1,"x"]`, false},
	{"prefixItems+items:false (valid tuple rejected)",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","prefixItems":[{"type":"string"}],"items":false}`,
		`["only"]`, true},
	{"dependentRequired ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","dependentRequired":{"card":["cvv"]}}`,
		`{"card":"4111"}`, false},
	{"dependentSchemas ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","dependentSchemas":{"card":{"required":["cvv"]}}}`,
		`{"card":"4111"}`, false},
	{"unevaluatedProperties ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`,
		`{"a":"x","extra":1}`, false},
	{"$ref siblings ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/s","maxLength":3}}}`,
		`{"x":"far too long"}`, false},
	{"minContains ignored",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","contains":{"type":"integer"},"minContains":2}`,
		`[1,"a"]`, false},
}

func TestDraft2020KeywordsSilentlyIgnoredByGojsonschema(t *testing.T) {
	for _, c := range draft2020Cases {
		t.Run(c.name, func(t *testing.T) {
			g := compileGo(t, c.schema) // compiles without any error or warning
			if got := validGo(t, g, c.instance); got == c.valid2020 {
				t.Errorf("gojsonschema now agrees with 2020-12 (valid=%v); update the decision record", got)
			}
			if got := validSanthosh(t, compileSanthosh(t, c.schema), c.instance); got != c.valid2020 {
				t.Errorf("santhosh: valid=%v, want %v", got, c.valid2020)
			}
		})
	}
}

// A compiled *jsonschema.Schema is read-only after Compile; Validate builds
// a fresh validator per call. Run many goroutines on one Schema (meaningful
// under -race).
func TestSanthoshConcurrentValidate(t *testing.T) {
	for _, f := range fixtures() {
		s := compileSanthosh(t, f.schema)
		var wg sync.WaitGroup
		var wrong atomic.Int64
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					for _, in := range f.instances {
						if (s.Validate(decodeSanthosh(t, in.json)) == nil) != in.valid {
							wrong.Add(1)
						}
					}
				}
			}()
		}
		wg.Wait()
		if n := wrong.Load(); n != 0 {
			t.Errorf("%s: %d wrong verdicts under concurrency", f.name, n)
		}
	}
}
