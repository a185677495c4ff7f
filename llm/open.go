package llm

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
)

// Options configures [OpenWith]. The zero value reads keys and base URLs from
// the environment and uses a plain HTTP client.
type Options struct {
	// APIKey is the provider's API key; empty means the provider's usual
	// environment variable (see [Open]).
	APIKey string
	// BaseURL is the API's base URL, e.g. an httptest server's URL plus
	// "/v1"; empty means the environment variable for it, if the provider
	// has one, and then the provider's public endpoint.
	BaseURL string
	// HTTPClient sends the requests; nil means a client without a timeout
	// (the context of each call bounds it).
	HTTPClient *http.Client
	// MaxTokens caps the output tokens of requests that leave MaxTokens at 0.
	MaxTokens int
	// Temperature is used by requests that leave Temperature nil.
	Temperature *float64
	// Getenv looks up environment variables; nil means os.Getenv. Tests set
	// it to keep the real environment out.
	Getenv func(string) string
}

// provider describes how Open builds one provider's model.
type provider struct {
	// keyEnv lists the variables that may hold the key, in order; none
	// means the provider needs no key.
	keyEnv []string
	// baseEnv is the variable that may override the base URL.
	baseEnv string
	// build constructs the model once the key and base URL are resolved.
	build func(model string, c providerConfig) (*Langchain, error)
}

// providerConfig is what Open resolved for a provider.
type providerConfig struct {
	name    string
	key     string
	baseURL string
	client  *http.Client
	getenv  func(string) string
	opts    LangchainOptions
}

// providers is the table of known providers; each entry lives in its own
// provider_*.go file.
var providers = map[string]provider{
	"openai":    openaiProvider,
	"anthropic": anthropicProvider,
	"google":    googleProvider,
	"mistral":   mistralProvider,
	"ollama":    ollamaProvider,
}

// aliases maps other common names to the table's.
var aliases = map[string]string{"gemini": "google", "googleai": "google", "claude": "anthropic"}

// Open returns the model named by spec, "provider:model", with keys and base
// URLs from the environment:
//
//	openai:gpt-4o-mini      OPENAI_API_KEY; OPENAI_BASE_URL, default https://api.openai.com/v1
//	anthropic:claude-...    ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL, default https://api.anthropic.com/v1
//	google:gemini-...       GOOGLE_API_KEY or GEMINI_API_KEY (alias gemini:)
//	mistral:mistral-...     MISTRAL_API_KEY
//	ollama:llama3.1         no key; OLLAMA_HOST, default http://127.0.0.1:11434
//
// A missing key is an error wrapping [ErrMissingKey] that names the variable
// to set. Construction does no network I/O. See [Langchain] for what each
// provider supports.
func Open(spec string) (Model, error) {
	return OpenWith(spec, Options{})
}

// OpenWith is [Open] with options.
func OpenWith(spec string, opts Options) (Model, error) {
	name, model, ok := strings.Cut(spec, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	if a, found := aliases[name]; found {
		name = a
	}
	p, known := providers[name]
	if !known {
		return nil, fmt.Errorf("%w %q in %q; use one of %s, as in openai:gpt-4o-mini", ErrUnknownProvider, name, spec, knownProviders())
	}
	model = strings.TrimSpace(model)
	if !ok || model == "" {
		return nil, fmt.Errorf("llm: model spec %q names no model; write %s:<model>", spec, name)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := providerConfig{
		name:    name,
		key:     opts.APIKey,
		baseURL: opts.BaseURL,
		client:  opts.HTTPClient,
		getenv:  getenv,
		opts:    LangchainOptions{Provider: name, Model: model, MaxTokens: opts.MaxTokens, Temperature: opts.Temperature},
	}
	if c.key == "" && len(p.keyEnv) > 0 {
		for _, v := range p.keyEnv {
			if c.key = getenv(v); c.key != "" {
				break
			}
		}
		if c.key == "" {
			return nil, fmt.Errorf("%w for %s: set %s in the environment (or Options.APIKey)", ErrMissingKey, name, strings.Join(p.keyEnv, " or "))
		}
	}
	if c.baseURL == "" && p.baseEnv != "" {
		c.baseURL = getenv(p.baseEnv)
	}
	if c.client == nil {
		c.client = &http.Client{}
	}
	m, err := p.build(model, c)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: %w", name, err)
	}
	return m, nil
}

func knownProviders() string {
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
