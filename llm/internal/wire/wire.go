// Package wire holds the HTTP plumbing byref's provider packages share:
// posting a JSON request, turning an HTTP failure into an [llm.ProviderError],
// and reading server-sent events.
package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/llm"
)

// maxErrorBody bounds how much of an error body is read into a message.
const maxErrorBody = 4 << 10

// Post sends body as JSON to url with the headers and returns the response
// of a 2xx answer. Any other outcome is an error: the context's own when it
// is done, a retryable [llm.ProviderError] for a network failure, and the
// error [llm.StatusError] builds for a non-2xx status, with the provider's
// error message.
func Post(ctx context.Context, client *http.Client, provider, url string, header http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: %s: %w", provider, err)
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("llm: %s: %w", provider, ctxErr)
		}
		return nil, &llm.ProviderError{Provider: provider, Retryable: true, Kind: llm.ErrProviderUnavailable, Err: err}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	wait := RetryAfter(resp.Header.Get("Retry-After"))
	if wait == 0 {
		wait = retryInfo(b)
	}
	return nil, llm.StatusError(provider, resp.StatusCode, wait, errors.New(errorMessage(b)))
}

// retryInfo reads the delay of a google.rpc.RetryInfo detail, which
// Google's APIs (Gemini's 429 RESOURCE_EXHAUSTED) send in the body rather
// than in a Retry-After header: {"error":{"details":[{"@type":
// "type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}}.
func retryInfo(b []byte) time.Duration {
	var body struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if !bytes.Contains(b, []byte("RetryInfo")) || json.Unmarshal(b, &body) != nil {
		return 0
	}
	for _, d := range body.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			if wait, err := time.ParseDuration(d.RetryDelay); err == nil && wait > 0 {
				return wait
			}
		}
	}
	return 0
}

// errorMessage finds the message of an error body: {"error":{"message"}}
// (OpenAI, Anthropic), {"message"} (Mistral), [{"error":{...}}] (Gemini),
// or the body itself.
func errorMessage(b []byte) string {
	var one struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var many []json.RawMessage
		if json.Unmarshal(b, &many) == nil && len(many) > 0 {
			b = many[0]
		}
	}
	if json.Unmarshal(b, &one) == nil {
		var inner apiError
		if json.Unmarshal(one.Error, &inner) == nil && inner.Message != "" {
			return inner.describe()
		}
		var s string
		if json.Unmarshal(one.Error, &s) == nil && s != "" {
			return s
		}
		if one.Message != "" {
			return one.Message
		}
	}
	if len(b) == 0 {
		return "no error message"
	}
	return string(b)
}

// apiError is the error object of an error body, with what OpenRouter and
// Azure OpenAI add to it: the upstream provider's own message, and the
// categories of a content filter that blocked the prompt.
type apiError struct {
	Message  string `json:"message"`
	Code     any    `json:"code"`
	Metadata *struct {
		ProviderName string `json:"provider_name"`
		Raw          any    `json:"raw"`
	} `json:"metadata"`
	InnerError *struct {
		ContentFilterResult map[string]struct {
			Filtered bool   `json:"filtered"`
			Severity string `json:"severity"`
		} `json:"content_filter_result"`
	} `json:"innererror"`
}

// describe returns the message, followed by the upstream provider's
// message (OpenRouter) or the content-filter categories that were
// filtered (Azure), so that the error says why.
func (e apiError) describe() string {
	msg := e.Message
	if m := e.Metadata; m != nil && m.Raw != nil {
		raw, ok := m.Raw.(string)
		if !ok {
			b, _ := json.Marshal(m.Raw)
			raw = string(b)
		}
		msg += " (" + strings.TrimSpace(m.ProviderName+": "+raw) + ")"
	}
	if e.Code == "content_filter" {
		var cats []string
		if e.InnerError != nil {
			for name, r := range e.InnerError.ContentFilterResult {
				if r.Filtered {
					cats = append(cats, strings.TrimSpace(name+" "+r.Severity))
				}
			}
		}
		sort.Strings(cats)
		msg = "content filter: " + msg
		if len(cats) > 0 {
			msg += " (filtered: " + strings.Join(cats, ", ") + ")"
		}
	}
	return msg
}

// RetryAfter reads a Retry-After header given in seconds or as a date.
func RetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// BadResponse is the error for a 2xx answer that could not be understood.
func BadResponse(provider string, err error) *llm.ProviderError {
	return &llm.ProviderError{Provider: provider, StatusCode: http.StatusOK, Kind: llm.ErrBadResponse, Err: err}
}

// ReadError is the error for a body that broke while it was read: the
// context's error when it is done, else a bad response.
func ReadError(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("llm: %s: %w", provider, ctxErr)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return BadResponse(provider, fmt.Errorf("the body ended early: %w", err))
	}
	return BadResponse(provider, err)
}

// StreamEnd is the error a stream's reading ended with, or nil: the
// callback's error (cbErr), wrapped to say it stopped the stream; a
// provider's error as it is; a broken read as [ReadError] classifies it;
// and, when the stream is not complete, a bad response that names the
// missing end ("message_stop"): the stream was cut off.
func StreamEnd(ctx context.Context, provider string, cbErr, err error, complete bool, missing string) error {
	switch {
	case cbErr != nil:
		return fmt.Errorf("llm: %s: stream stopped by its callback: %w", provider, cbErr)
	case err != nil:
		var pe *llm.ProviderError
		if errors.As(err, &pe) {
			return err
		}
		return ReadError(ctx, provider, err)
	case !complete:
		return BadResponse(provider, fmt.Errorf("the stream ended before %s; it was cut off", missing))
	}
	return nil
}

// Event is one server-sent event.
type Event struct {
	// Name is the event's "event:" field; empty when it has none.
	Name string
	// Data is its "data:" lines joined by newlines.
	Data []byte
}

// Events reads server-sent events from r and calls fn for each, until r
// ends or fn returns an error (io.EOF from fn stops without an error).
func Events(r io.Reader, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var ev Event
	var data bytes.Buffer
	hasData := false
	flush := func() error {
		if !hasData {
			ev = Event{}
			return nil
		}
		ev.Data = bytes.Clone(data.Bytes())
		err := fn(ev)
		ev, hasData = Event{}, false
		data.Reset()
		return err
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := flush(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment, e.g. a keep-alive
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// emptyParameters is the schema of a tool without parameters.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Parameters returns the JSON Schema a tool's parameters are sent as: an
// object without properties when it has none, and an error naming the
// tool when they are not JSON.
func Parameters(provider string, t llm.Tool) (json.RawMessage, error) {
	switch {
	case len(bytes.TrimSpace(t.Parameters)) == 0:
		return emptyParameters, nil
	case !json.Valid(t.Parameters):
		return nil, fmt.Errorf("llm: %s: tool %q: Parameters is not valid JSON; give a JSON Schema object", provider, t.Name)
	}
	return t.Parameters, nil
}

// OpenAIEndpoint returns the URL, headers and HTTP client of an API
// that authenticates as OpenAI's do: c.BaseURL (defaultBase when empty)
// without its trailing slash, followed by path; a copy of header with the
// API key as a bearer token and the OpenAI-Organization header, when they
// are set; c.HTTPClient, or a new client.
func OpenAIEndpoint(c llm.Config, defaultBase, path, organization string, header http.Header) (string, http.Header, *http.Client) {
	base := strings.TrimSuffix(c.BaseURL, "/")
	if base == "" {
		base = defaultBase
	}
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	if organization != "" {
		h.Set("OpenAI-Organization", organization)
	}
	client := c.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	return base + path, h, client
}

// PostJSON posts body, as Post does, and decodes the whole answer into v.
// what names the answer in the error of a body that is not its JSON ("the
// completion", "the message").
func PostJSON(ctx context.Context, client *http.Client, provider, url string, header http.Header, body []byte, v any, what string) error {
	resp, err := Post(ctx, client, provider, url, header, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return ReadError(ctx, provider, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return BadResponse(provider, fmt.Errorf("decode %s: %w", what, err))
	}
	return nil
}
