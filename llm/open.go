package llm

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
)

// Config is one provider configuration: what [OpenWith] takes, what a
// [Provider]'s Open function is given, and what the provider packages'
// Options embed (openai.Options, anthropic.Options), so that each setting
// is declared once. The zero value reads keys and base URLs from the
// environment, uses a plain HTTP client and sends no sampling parameter.
type Config struct {
	// Provider is the provider's registered name ("openai"), which errors
	// name. OpenWith sets it from the spec.
	Provider string
	// Model is the model name sent with every request ("gpt-4o-mini").
	// OpenWith sets it from the spec, the part after the colon.
	Model string
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
	// 0 sends no limit, except to providers whose API requires one
	// (Anthropic: then the provider package's documented default).
	MaxTokens int
	// Temperature is used by requests that leave Temperature nil; nil sends
	// none (reasoning models refuse any but their default).
	Temperature *float64
	// TopP is used by requests that leave TopP nil; nil sends none.
	TopP *float64
	// Getenv looks up environment variables for OpenWith (and a provider's
	// Open); nil means os.Getenv. Tests set it to keep the real environment
	// out.
	Getenv func(string) string
}

// Provider is how a provider package opens models by name. A provider
// package fills one in and calls [Register] from its init function, the way
// a database/sql driver registers itself; importing
// github.com/byref/byref/llm/providers registers every provider byref ships.
type Provider struct {
	// Name is the name before the colon of a model spec ("openai").
	Name string
	// KeyEnv lists the environment variables that may hold the API key, in
	// order. Open fails with [ErrMissingKey] naming them when none is set,
	// unless KeyOptional.
	KeyEnv []string
	// KeyOptional lets a model open without a key (a local server).
	KeyOptional bool
	// BaseURLEnv is the environment variable that may override the base URL.
	BaseURLEnv string
	// Open builds the model once the key and base URL are resolved: its
	// Config has Provider and Model set from the spec, APIKey empty only
	// when the key is optional, BaseURL empty for the provider's public
	// endpoint, and HTTPClient and Getenv never nil. It must do no network
	// I/O.
	Open func(c Config) (Model, error)
}

// separate names the providers byref ships outside llm/providers, with
// the package that registers each, so that a spec naming one says what to
// import.
var separate = map[string]string{"bedrock": "github.com/byref/byref/llm/bedrock"}

var (
	registryMu sync.RWMutex
	registry   = map[string]Provider{}
)

// Register makes a provider available to [Open] under p.Name (case
// insensitive). It panics when p has no name or no Open function, or when the
// name is taken: registration happens in init functions, and two providers
// with one name is a programming error.
func Register(p Provider) {
	name := strings.ToLower(strings.TrimSpace(p.Name))
	if name == "" || p.Open == nil {
		panic("llm: Register needs a Provider with a Name and an Open function")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("llm: Register called twice for provider " + name)
	}
	p.Name = name
	registry[name] = p
}

// Providers returns the names of the registered providers, sorted.
func Providers() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open returns the model named by spec, "provider:model", with keys and base
// URLs from the environment. The providers byref ships register themselves
// when github.com/byref/byref/llm/providers is imported (usually with a
// blank import in package main):
//
//	openai:gpt-4o-mini           OPENAI_API_KEY; OPENAI_BASE_URL, default https://api.openai.com/v1
//	openai-responses:gpt-5-mini  the Responses API; as openai:
//	anthropic:claude-...         ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL, default https://api.anthropic.com (alias claude:)
//	azure:<deployment>           AZURE_OPENAI_ENDPOINT; AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN; AZURE_OPENAI_API_VERSION
//	azure-responses:<deployment> the Responses API on Azure; as azure:
//	openrouter:<vendor>/<model>  OPENROUTER_API_KEY; OPENROUTER_REFERER, OPENROUTER_TITLE
//	gemini:gemini-...            GOOGLE_API_KEY or GEMINI_API_KEY; GOOGLE_GEMINI_BASE_URL (alias google:)
//	gemini-openai:gemini-...     the same, through Gemini's OpenAI-compatible endpoint
//	mistral:mistral-...          MISTRAL_API_KEY
//	ollama:llama3.1              no key; OLLAMA_HOST, default http://127.0.0.1:11434
//	vllm:<model>                 VLLM_API_KEY if set; VLLM_BASE_URL, default http://127.0.0.1:8000/v1
//	bedrock:<model id>           the AWS credential chain and AWS_REGION (import github.com/byref/byref/llm/bedrock)
//
// A missing key is an error wrapping [ErrMissingKey] that names the variable
// to set; an unregistered provider is an error wrapping [ErrUnknownProvider]
// that names the import to add. Construction does no network I/O.
func Open(spec string) (Model, error) {
	return OpenWith(spec, Config{})
}

// OpenWith is [Open] with a configuration: c's settings win over the
// environment. Its Provider and Model are those of spec.
func OpenWith(spec string, c Config) (Model, error) {
	name, model, ok := strings.Cut(spec, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	registryMu.RLock()
	p, known := registry[name]
	registryMu.RUnlock()
	if !known {
		if pkg, ok := separate[name]; ok {
			return nil, fmt.Errorf("%w %q in %q: import _ %q in package main (llm/providers leaves it out, for the dependencies it brings)", ErrUnknownProvider, name, spec, pkg)
		}
		if len(Providers()) == 0 {
			return nil, fmt.Errorf("%w %q in %q: no provider is registered; import _ \"github.com/byref/byref/llm/providers\" (or a provider package) in package main", ErrUnknownProvider, name, spec)
		}
		return nil, fmt.Errorf("%w %q in %q; use one of %s, as in openai:gpt-4o-mini", ErrUnknownProvider, name, spec, strings.Join(Providers(), ", "))
	}
	model = strings.TrimSpace(model)
	if !ok || model == "" {
		return nil, fmt.Errorf("llm: model spec %q names no model; write %s:<model>", spec, name)
	}
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c.Provider, c.Model, c.Getenv = name, model, getenv
	if c.APIKey == "" {
		for _, v := range p.KeyEnv {
			if c.APIKey = getenv(v); c.APIKey != "" {
				break
			}
		}
		if c.APIKey == "" && !p.KeyOptional {
			return nil, fmt.Errorf("%w for %s: set %s in the environment (or Config.APIKey)", ErrMissingKey, name, strings.Join(p.KeyEnv, " or "))
		}
	}
	if c.BaseURL == "" && p.BaseURLEnv != "" {
		c.BaseURL = getenv(p.BaseURLEnv)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	m, err := p.Open(c)
	if errors.Is(err, ErrMissingKey) { // already "llm: missing API key for NAME: set …"
		return nil, err
	}
	if err != nil && strings.HasPrefix(err.Error(), name+": ") { // the provider named itself
		return nil, fmt.Errorf("llm: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: %s: %w", name, err)
	}
	return m, nil
}
