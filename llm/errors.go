package llm

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Conditions a model call can fail with. Provider failures arrive as
// [*ProviderError] values that unwrap to one of the first five.
var (
	// ErrRateLimited means the provider refused the call for its rate or
	// quota (HTTP 429). It is retryable.
	ErrRateLimited = errors.New("llm: rate limited by the provider")
	// ErrProviderUnavailable means the provider failed or could not be
	// reached (HTTP 5xx, 529, 408, a network error). It is retryable.
	ErrProviderUnavailable = errors.New("llm: provider unavailable")
	// ErrBadResponse means the provider answered with a body that could not
	// be understood (malformed JSON, no choices, a broken stream).
	ErrBadResponse = errors.New("llm: malformed response from the provider")
	// ErrUnauthorized means the provider rejected the credentials (HTTP 401
	// or 403).
	ErrUnauthorized = errors.New("llm: the provider rejected the API key")
	// ErrRequestRejected means the provider refused the request itself (any
	// other HTTP 4xx: an unknown model, a context too long, a bad schema).
	ErrRequestRejected = errors.New("llm: the provider rejected the request")

	// ErrMissingKey means no API key was found for a provider; the error
	// names the environment variable to set.
	ErrMissingKey = errors.New("llm: missing API key")
	// ErrUnknownProvider means a model spec names no known provider.
	ErrUnknownProvider = errors.New("llm: unknown provider")
	// ErrScriptExhausted means a [Scripted] model was called more times than
	// it has responses.
	ErrScriptExhausted = errors.New("llm: scripted model has no more responses")
)

// ProviderError is a failed call to a model provider. It unwraps to both its
// Kind (one of the sentinel errors) and its cause, so errors.Is(err,
// ErrRateLimited) and errors.As(err, &jsonSyntaxErr) both work.
type ProviderError struct {
	// Provider names the provider ("openai", "anthropic", ...).
	Provider string
	// StatusCode is the HTTP status of the provider's answer, or 0 when
	// there was none (a network error) or it is unknown.
	StatusCode int
	// Retryable says whether the same request may succeed later.
	Retryable bool
	// RetryAfter is the delay the provider asked for (Retry-After), or 0.
	RetryAfter time.Duration
	// Kind is ErrRateLimited, ErrProviderUnavailable, ErrBadResponse,
	// ErrUnauthorized or ErrRequestRejected.
	Kind error
	// Err is the underlying error, as the client library reported it.
	Err error
}

// Error describes the failure and, where there is one, the fix.
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(e.Provider)
	b.WriteString(": ")
	kind := "call failed"
	if e.Kind != nil {
		kind = strings.TrimPrefix(e.Kind.Error(), "llm: ")
	}
	b.WriteString(kind)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	switch e.Kind {
	case ErrRateLimited:
		b.WriteString("; retry later (llm.WithRetry) or lower the request rate")
	case ErrUnauthorized:
		b.WriteString("; check the API key")
	case ErrProviderUnavailable:
		if errors.Is(e.Err, syscall.ECONNREFUSED) {
			b.WriteString("; nothing listens there: start the model's server, or point the provider at it (OLLAMA_HOST, VLLM_BASE_URL, or the provider's base URL variable)")
		}
	}
	return b.String()
}

// Unwrap returns the Kind and the cause.
func (e *ProviderError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// IsRetryable reports whether err is a [*ProviderError] marked Retryable.
func IsRetryable(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe) && pe.Retryable
}

// StatusError returns the [*ProviderError] for an HTTP answer with the given
// status (429 rate limited, 408 and 5xx unavailable, both retryable; 401 and
// 403 unauthorized; other 4xx rejected), for adapters, byref's and a user's
// own. retryAfter is the delay the provider asked for, or 0; err describes
// the answer (usually the provider's error message).
func StatusError(provider string, status int, retryAfter time.Duration, err error) *ProviderError {
	kind, retry := kindForStatus(status)
	return &ProviderError{Provider: provider, StatusCode: status, Retryable: retry, RetryAfter: retryAfter, Kind: kind, Err: err}
}

// kindForStatus maps an HTTP status to a sentinel and whether it is retryable.
func kindForStatus(status int) (error, bool) {
	switch {
	case status == 429:
		return ErrRateLimited, true
	case status == 408 || status >= 500:
		return ErrProviderUnavailable, true
	case status == 401 || status == 403:
		return ErrUnauthorized, false
	case status >= 400:
		return ErrRequestRejected, false
	}
	return ErrBadResponse, false
}
