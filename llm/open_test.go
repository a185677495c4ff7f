package llm

import (
	"errors"
	"strings"
	"testing"
)

func noEnv(string) string { return "" }

// keyed is a provider that needs a key, registered once for these tests.
var keyed = func() string {
	Register(Provider{
		Name: "test-keyed", KeyEnv: []string{"TEST_KEYED_KEY", "TEST_KEYED_OTHER"}, BaseURLEnv: "TEST_KEYED_BASE",
		Open: func(c Config) (Model, error) {
			return NewScriptedFunc(func(Request) (Response, error) {
				return Text(c.Model + " " + c.APIKey + " " + c.BaseURL), nil
			}), nil
		},
	})
	return "test-keyed"
}()

func TestOpenResolvesKeyAndBaseURL(t *testing.T) {
	env := map[string]string{"TEST_KEYED_OTHER": "k2", "TEST_KEYED_BASE": "http://127.0.0.1:1"}
	m, err := OpenWith(" Test-Keyed : m1 ", Config{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := m.Generate(t.Context(), Request{})
	if resp.Text != "m1 k2 http://127.0.0.1:1" {
		t.Errorf("the provider got %q", resp.Text)
	}
}

func TestOpenMissingKeyNamesTheVariables(t *testing.T) {
	_, err := OpenWith(keyed+":m", Config{Getenv: noEnv})
	if !errors.Is(err, ErrMissingKey) || !strings.Contains(err.Error(), "TEST_KEYED_KEY or TEST_KEYED_OTHER") {
		t.Errorf("err = %v", err)
	}
	if _, err := OpenWith(keyed+":m", Config{APIKey: "k", Getenv: noEnv}); err != nil {
		t.Errorf("Options.APIKey: %v", err)
	}
}

func TestOpenBadSpecs(t *testing.T) {
	_, err := OpenWith("cohere:command", Config{Getenv: noEnv})
	if !errors.Is(err, ErrUnknownProvider) || !strings.Contains(err.Error(), keyed) {
		t.Errorf("unknown provider: err = %v, want ErrUnknownProvider listing the registered ones", err)
	}
	for _, spec := range []string{keyed, keyed + ":", "gpt-4o"} {
		if _, err := OpenWith(spec, Config{APIKey: "k", Getenv: noEnv}); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
}

func TestRegisterRefusesDuplicatesAndBlanks(t *testing.T) {
	for name, p := range map[string]Provider{
		"duplicate": {Name: keyed, Open: func(Config) (Model, error) { return nil, nil }},
		"no name":   {Open: func(Config) (Model, error) { return nil, nil }},
		"no open":   {Name: "test-no-open"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(p)
		}()
	}
}

// A provider byref ships outside llm/providers, not imported, is named
// with the import to add.
func TestOpenSeparateProviderNamesItsPackage(t *testing.T) {
	_, err := OpenWith("bedrock:amazon.nova-micro-v1:0", Config{Getenv: noEnv})
	if !errors.Is(err, ErrUnknownProvider) || !strings.Contains(err.Error(), `import _ "github.com/byref/byref/llm/bedrock"`) {
		t.Errorf("err = %v", err)
	}
}

// A provider's error is prefixed with its name once, whether or not the
// provider named itself.
func TestOpenNamesTheProviderOnce(t *testing.T) {
	for _, tc := range []struct{ name, err string }{{"test-named", "test-named: no region"}, {"test-unnamed", "no region"}} {
		Register(Provider{Name: tc.name, KeyOptional: true, Open: func(Config) (Model, error) { return nil, errors.New(tc.err) }})
		_, err := OpenWith(tc.name+":m", Config{Getenv: noEnv})
		if want := "llm: " + tc.name + ": no region"; err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, want)
		}
	}
}
