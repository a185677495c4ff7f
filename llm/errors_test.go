package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
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

func TestClassifyWithoutExchange(t *testing.T) {
	ctx := context.Background()
	// Models not built by Open: the status is read from the client's message.
	err := classify(ctx, "openai", errors.New("API returned unexpected status code: 429: slow down"), nil)
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 429 || !errors.Is(err, ErrRateLimited) {
		t.Errorf("err = %v", err)
	}
	var syn *json.SyntaxError
	bad := json.Unmarshal([]byte("{"), &struct{}{})
	err = classify(ctx, "x", fmt.Errorf("parse response: %w", bad), nil)
	if !errors.Is(err, ErrBadResponse) || !errors.As(err, &syn) {
		t.Errorf("err = %v, want ErrBadResponse wrapping the syntax error", err)
	}
	other := errors.New("anthropic: failed to process messages")
	if err := classify(ctx, "x", other, nil); IsRetryable(err) || !errors.Is(err, other) {
		t.Errorf("err = %v", err)
	}
}

func TestClassifyCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := classify(ctx, "openai", errors.New("request cancelled"), &exchange{sent: true})
	if !errors.Is(err, context.Canceled) || IsRetryable(err) {
		t.Errorf("err = %v, want context.Canceled", err)
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
