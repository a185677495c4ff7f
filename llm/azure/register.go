package azure

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/openai/responses"
)

// init registers the providers azure (chat completions) and
// azure-responses (the Responses API), both opened by deployment name:
// llm.Open("azure:gpt-4o-mini"). The endpoint is AZURE_OPENAI_ENDPOINT
// (required), the key AZURE_OPENAI_API_KEY, or a Microsoft Entra ID token
// in AZURE_OPENAI_AD_TOKEN; AZURE_OPENAI_API_VERSION, when set, selects
// the deployment endpoints with that api-version, and otherwise the v1
// endpoint is used. azure-responses reads OPENAI_REASONING_EFFORT and
// OPENAI_REASONING_SUMMARY as openai-responses does, and
// AZURE_OPENAI_REASONING (true or false) says whether the deployment's
// model reasons when its name does not.
func init() {
	for _, p := range []struct {
		name string
		open func(Options) (llm.Model, error)
	}{
		{"azure", func(o Options) (llm.Model, error) { return NewChat(o) }},
		{"azure-responses", func(o Options) (llm.Model, error) { return NewResponses(o) }},
	} {
		llm.Register(llm.Provider{
			Name: p.name, KeyEnv: []string{"AZURE_OPENAI_API_KEY"}, KeyOptional: true, BaseURLEnv: "AZURE_OPENAI_ENDPOINT",
			Open: func(c llm.Config) (llm.Model, error) {
				o := Options{Config: c, APIVersion: c.Getenv("AZURE_OPENAI_API_VERSION"), Responses: responses.FromEnv(c.Getenv)}
				if tok := c.Getenv("AZURE_OPENAI_AD_TOKEN"); tok != "" {
					o.Token = func(context.Context) (string, error) { return tok, nil }
				} else if c.APIKey == "" {
					return nil, fmt.Errorf("%w for %s: set AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN, or Config.APIKey)", llm.ErrMissingKey, c.Provider)
				}
				if v := c.Getenv("AZURE_OPENAI_REASONING"); v != "" {
					reasons, err := strconv.ParseBool(v)
					if err != nil {
						return nil, fmt.Errorf("AZURE_OPENAI_REASONING=%q: say true or false (whether the deployment's model reasons)", v)
					}
					o.Responses.Reasoning = &reasons
				}
				if c.BaseURL == "" {
					return nil, errors.New("missing endpoint: set AZURE_OPENAI_ENDPOINT to https://<resource>.openai.azure.com (or Config.BaseURL)")
				}
				return p.open(o)
			},
		})
	}
}
