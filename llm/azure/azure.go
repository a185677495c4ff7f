package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/openai"
	"github.com/byref/byref/llm/openai/responses"
)

// Options configures [NewChat] and [NewResponses]. Of the configuration:
// Model is the deployment's name (on the v1 endpoint, the deployment name
// is the model); BaseURL is the resource's endpoint,
// https://<resource>.openai.azure.com (a URL ending in /openai/v1 is taken
// as the v1 endpoint itself); APIKey is sent as the api-key header; the
// rest is as for the openai and responses packages.
type Options struct {
	llm.Config
	// APIVersion, when set, selects the deployment endpoints and is sent as
	// the api-version query parameter: chat completions at
	// /openai/deployments/{deployment}/chat/completions, the Responses API
	// at /openai/responses. Empty selects the v1 endpoint, /openai/v1/,
	// which takes no api-version.
	APIVersion string
	// Token, when set, is called before each request for a Microsoft Entra
	// ID access token, sent as "Authorization: Bearer"; APIKey is then not
	// sent. It must be safe for concurrent use and should cache its token
	// until it nears expiry (azidentity's credentials do).
	Token func(ctx context.Context) (string, error)
	// Responses holds the Responses API's own settings for [NewResponses]
	// (Store, Reasoning, ReasoningEffort, ReasoningSummary,
	// PromptCacheKey); its Config is ignored.
	Responses responses.Options
}

// NewChat returns a model speaking chat completions to an Azure OpenAI
// deployment. It does no network I/O.
func NewChat(opts Options) (*openai.Model, error) {
	base, client, err := opts.endpoint(false)
	if err != nil {
		return nil, err
	}
	c := opts.inner(base, client)
	// Azure takes OpenAI's request, without prompt_cache_key (it caches by
	// prefix, and older api-versions refuse unknown fields).
	return openai.New(openai.Options{Config: c, Dialect: openai.Dialect{NoPromptCacheKey: true}})
}

// NewResponses returns a model speaking the Responses API to Azure
// OpenAI. It does no network I/O.
func NewResponses(opts Options) (*responses.Model, error) {
	base, client, err := opts.endpoint(true)
	if err != nil {
		return nil, err
	}
	r := opts.Responses
	r.Config = opts.inner(base, client)
	return responses.New(r)
}

// inner is the configuration of the model that speaks the API: no key (the
// client's transport sends the credentials), the base URL and client.
func (o Options) inner(base string, client *http.Client) llm.Config {
	c := o.Config
	c.APIKey, c.BaseURL, c.HTTPClient = "", base, client
	if c.Provider == "" {
		c.Provider = "azure"
	}
	return c
}

// endpoint returns the base URL the model appends its path to, and an HTTP
// client that sends the credentials and the api-version.
func (o Options) endpoint(forResponses bool) (string, *http.Client, error) {
	if strings.TrimSpace(o.Model) == "" {
		return "", nil, errors.New("azure: Options.Model is empty; name the deployment")
	}
	if o.APIKey == "" && o.Token == nil {
		return "", nil, errors.New("azure: no credentials; set Options.APIKey (AZURE_OPENAI_API_KEY) or Options.Token (a Microsoft Entra ID token)")
	}
	endpoint := strings.TrimSuffix(strings.TrimSpace(o.BaseURL), "/")
	if endpoint == "" {
		return "", nil, errors.New("azure: Options.BaseURL is empty; set the resource's endpoint, https://<resource>.openai.azure.com (AZURE_OPENAI_ENDPOINT)")
	}
	if _, err := url.Parse(endpoint); err != nil {
		return "", nil, fmt.Errorf("azure: Options.BaseURL: %w", err)
	}
	var base string
	switch {
	case strings.HasSuffix(endpoint, "/openai/v1"):
		base = endpoint
	case o.APIVersion == "":
		base = endpoint + "/openai/v1"
	case forResponses:
		base = endpoint + "/openai"
	default:
		base = endpoint + "/openai/deployments/" + url.PathEscape(o.Model)
	}
	if strings.HasSuffix(endpoint, "/openai/v1") && o.APIVersion != "" {
		return "", nil, errors.New("azure: the v1 endpoint takes no api-version; leave Options.APIVersion empty, or give the resource's endpoint without /openai/v1")
	}
	client := &http.Client{}
	if o.HTTPClient != nil {
		*client = *o.HTTPClient
	}
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = &credentials{next: next, key: o.APIKey, token: o.Token, version: o.APIVersion}
	return base, client, nil
}

// credentials adds Azure's credentials and api-version to each request.
type credentials struct {
	next    http.RoundTripper
	key     string
	token   func(context.Context) (string, error)
	version string
}

// RoundTrip implements http.RoundTripper.
func (c *credentials) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if c.token != nil {
		tok, err := c.token(req.Context())
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, fmt.Errorf("azure: get a token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	} else {
		req.Header.Set("api-key", c.key)
	}
	if c.version != "" {
		q := req.URL.Query()
		q.Set("api-version", c.version)
		req.URL.RawQuery = q.Encode()
	}
	return c.next.RoundTrip(req)
}
