package llm

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status    int
		kind      error
		retryable bool
	}{
		{429, ErrRateLimited, true},
		{500, ErrProviderUnavailable, true},
		{502, ErrProviderUnavailable, true},
		{529, ErrProviderUnavailable, true},
		{408, ErrProviderUnavailable, true},
		{401, ErrUnauthorized, false},
		{403, ErrUnauthorized, false},
		{400, ErrRequestRejected, false},
		{404, ErrRequestRejected, false},
		{422, ErrRequestRejected, false},
	}
	for _, tt := range tests {
		kind, retry := kindForStatus(tt.status)
		if kind != tt.kind || retry != tt.retryable {
			t.Errorf("kindForStatus(%d) = %v, %v; want %v, %v", tt.status, kind, retry, tt.kind, tt.retryable)
		}
	}
}

func TestStatusError(t *testing.T) {
	err := StatusError("openai", 429, 7*time.Second, errors.New("slow down"))
	if !errors.Is(err, ErrRateLimited) || !IsRetryable(err) || err.RetryAfter != 7*time.Second || err.StatusCode != 429 {
		t.Errorf("err = %+v", err)
	}
	if err := StatusError("anthropic", 400, 0, errors.New("bad")); errors.Is(err, ErrRateLimited) || !errors.Is(err, ErrRequestRejected) || IsRetryable(err) {
		t.Errorf("err = %+v", err)
	}
}

func TestProviderErrorMessage(t *testing.T) {
	err := &ProviderError{Provider: "openai", StatusCode: 429, Retryable: true, Kind: ErrRateLimited, Err: errors.New("slow down")}
	msg := err.Error()
	for _, want := range []string{"openai", "429", "slow down", "retry"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
