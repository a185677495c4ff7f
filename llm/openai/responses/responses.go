package responses

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Provider is the name a Responses reasoning item carries in
// [llm.Thinking.Provider]: this package sends back only its own.
const Provider = "openai-responses"

// Options configures [New]: a provider configuration ([llm.Config]) and
// what only this adapter has. Model is required; the zero value of every
// other field works. Of the configuration: APIKey is sent as a bearer
// token, none when empty; BaseURL is the base URL to which "/responses" is
// appended, https://api.openai.com/v1 when empty; Provider names the
// provider in errors, "openai-responses" when empty; MaxTokens,
// Temperature and TopP apply to requests that leave theirs unset; Getenv
// is not read.
type Options struct {
	llm.Config
	// Organization, when set, is sent as the OpenAI-Organization header.
	Organization string
	// Header holds more headers sent with every request.
	Header http.Header
	// PromptCacheKey is sent as prompt_cache_key with every request; empty
	// means each request's own llm.Request.CacheKey, and none when that is
	// empty too.
	PromptCacheKey string
	// Store sends "store": true, so that the provider keeps each response
	// (its dashboard, its evals). false, the default, keeps nothing there:
	// the run's log is the conversation, and a reasoning model's reasoning
	// items come back with their encrypted_content, which the next request
	// sends back.
	Store bool
	// Reasoning says whether the model writes reasoning items, so that
	// requests ask for their encrypted_content (when Store is false): nil
	// guesses from the model's name (o1, o3, o4, gpt-5 and codex models
	// reason; others refuse the include with "Encrypted content is not
	// supported with this model"). Set it for an Azure deployment whose
	// name does not say.
	Reasoning *bool
	// ReasoningEffort is sent as reasoning.effort ("minimal", "low",
	// "medium", "high"); empty sends none, the model's default.
	ReasoningEffort string
	// ReasoningSummary is sent as reasoning.summary ("auto", "concise",
	// "detailed"), asking for a readable summary of the reasoning, which
	// becomes llm.Response.Reasoning; empty sends none, and the reasoning
	// stays encrypted.
	ReasoningSummary string
}

// Model is a [llm.Model] and [llm.Streamer] over a Responses API endpoint
// (POST …/responses). It is safe for concurrent use.
type Model struct {
	opts     Options
	url      string
	header   http.Header
	client   *http.Client
	provider string
	// reasons says whether the model writes reasoning items (Reasons, or
	// Options.Reasoning).
	reasons bool
}

// New returns a Model for opts. It does no network I/O.
func New(opts Options) (*Model, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("responses: Options.Model is empty; name a model, e.g. gpt-5-mini")
	}
	m := &Model{opts: opts, provider: cmp.Or(opts.Provider, Provider)}
	m.url, m.header, m.client = wire.OpenAIEndpoint(opts.Config, "https://api.openai.com/v1", "/responses", opts.Organization, opts.Header)
	m.reasons = Reasons(opts.Model)
	if opts.Reasoning != nil {
		m.reasons = *opts.Reasoning
	}
	return m, nil
}

// Reasons reports whether a model, by its name, writes reasoning items:
// OpenAI's o-series, gpt-5 (but not gpt-5-chat) and codex models. A name
// with a vendor prefix ("openai/gpt-5") is read after the last slash.
func Reasons(model string) bool {
	name := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	switch {
	case strings.HasPrefix(name, "gpt-5-chat"):
		return false
	case strings.HasPrefix(name, "gpt-5"), strings.Contains(name, "codex"):
		return true
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Generate implements [llm.Model].
func (m *Model) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	body, err := m.encode(req, false)
	if err != nil {
		return llm.Response{}, err
	}
	var r response
	if err := wire.PostJSON(ctx, m.client, m.provider, m.url, m.header, body, &r, "the response"); err != nil {
		return llm.Response{}, err
	}
	return m.result(r)
}

// result turns a response object into an [llm.Response]: the output items
// in order, the usage, and the stop reason its status and items say.
func (m *Model) result(r response) (llm.Response, error) {
	if r.Status == "failed" || (r.Error != nil && r.Error.Message != "") {
		e := r.Error
		if e == nil {
			e = &apiError{}
		}
		return llm.Response{}, failure(m.provider, e)
	}
	out := llm.Response{Usage: r.Usage.usage()}
	var text, refusal, summary strings.Builder
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			out.Thinking = append(out.Thinking, thinking(it)...)
			for _, p := range it.summary() {
				if summary.Len() > 0 {
					summary.WriteString("\n\n")
				}
				summary.WriteString(p.Text)
			}
		case "message":
			var parts []part
			if len(it.Content) == 0 {
				continue
			}
			if err := json.Unmarshal(it.Content, &parts); err != nil {
				return llm.Response{}, wire.BadResponse(m.provider, errors.New("a message's content is not an array of parts"))
			}
			for _, p := range parts {
				switch p.Type {
				case "output_text":
					text.WriteString(p.Text)
				case "refusal":
					refusal.WriteString(p.Refusal)
				}
			}
		case "function_call":
			args := ""
			if it.Arguments != nil {
				args = *it.Arguments
			}
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: args})
		}
	}
	out.Text, out.Refusal, out.Reasoning = text.String(), refusal.String(), summary.String()
	out.StopReason = stopReason(r, out)
	return out, nil
}

// thinking turns a reasoning item into the blocks that record it: one per
// part of its summary (at least one), each with the item's ID, the first
// with its encrypted_content.
func thinking(it item) []llm.Thinking {
	parts := it.summary()
	out := make([]llm.Thinking, max(len(parts), 1))
	for i := range out {
		out[i] = llm.Thinking{Provider: Provider, ID: it.ID}
		if i < len(parts) {
			out[i].Text = parts[i].Text
		}
	}
	out[0].Signature = it.EncryptedContent
	return out
}

// stopReason maps a response's status to an [llm.StopReason]: an
// incomplete response stopped for its token cap or the content filter; a
// complete one ended, refused or asked for calls.
func stopReason(r response, out llm.Response) llm.StopReason {
	if r.Status == "incomplete" {
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		switch reason {
		case "max_output_tokens":
			return llm.StopMaxTokens
		case "content_filter":
			return llm.StopContentFilter
		case "":
			return "incomplete"
		}
		return llm.StopReason(reason)
	}
	switch {
	case out.Refusal != "":
		return llm.StopRefusal
	case len(out.ToolCalls) > 0:
		return llm.StopToolCalls
	}
	return llm.StopEnd
}
