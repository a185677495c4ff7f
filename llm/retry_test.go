package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// flaky fails with err for its first n calls, then answers.
type flaky struct {
	n     int
	err   error
	calls int
}

func (f *flaky) Generate(context.Context, Request) (Response, error) {
	f.calls++
	if f.calls <= f.n {
		return Response{}, f.err
	}
	return Text("ok"), nil
}

var errRate = &ProviderError{Provider: "p", StatusCode: 429, Retryable: true, Kind: ErrRateLimited}

func TestWithRetry(t *testing.T) {
	fast := RetryPolicy{Attempts: 3, Backoff: time.Microsecond}
	tests := []struct {
		name      string
		f         *flaky
		wantErr   error
		wantCalls int
	}{
		{"succeeds after retries", &flaky{n: 2, err: errRate}, nil, 3},
		{"gives up after attempts", &flaky{n: 5, err: errRate}, ErrRateLimited, 3},
		{"does not retry a rejected request", &flaky{n: 5, err: &ProviderError{StatusCode: 400, Kind: ErrRequestRejected}}, ErrRequestRejected, 1},
		{"does not retry other errors", &flaky{n: 5, err: errors.New("boom")}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := WithRetry(tt.f, fast).Generate(context.Background(), Request{})
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && tt.f.n < tt.wantCalls && err != nil {
				t.Errorf("err = %v", err)
			}
			if tt.f.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", tt.f.calls, tt.wantCalls)
			}
		})
	}
}

func TestWithRetryStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &flaky{n: 5, err: errRate}
	m := WithRetry(f, RetryPolicy{Attempts: 5, Backoff: time.Hour})
	go cancel()
	_, err := m.Generate(ctx, Request{})
	if !errors.Is(err, ErrRateLimited) || f.calls != 1 {
		t.Fatalf("err = %v after %d calls, want the last error after 1 call", err, f.calls)
	}
}

func TestRetryDelay(t *testing.T) {
	p := retryDefaults(RetryPolicy{Backoff: time.Second, MaxBackoff: 5 * time.Second})
	if d := retryDelay(p, 1, errors.New("x")); d < time.Second || d > 1200*time.Millisecond {
		t.Errorf("first delay = %v, want 1s plus at most 20%%", d)
	}
	if d := retryDelay(p, 10, errors.New("x")); d != 5*time.Second {
		t.Errorf("capped delay = %v, want 5s", d)
	}
	withAfter := &ProviderError{Retryable: true, RetryAfter: 3 * time.Second}
	if d := retryDelay(p, 1, withAfter); d != 3*time.Second {
		t.Errorf("delay with Retry-After 3s = %v", d)
	}
}

// streamFlaky fails its first stream after delivering a chunk.
type streamFlaky struct {
	flaky
	chunkFirst bool
}

func (s *streamFlaky) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	if s.chunkFirst && s.calls == 0 {
		_ = fn(Chunk{Text: "partial"})
	}
	return Stream(ctx, &s.flaky, req, fn)
}

func TestWithRetryStream(t *testing.T) {
	fast := RetryPolicy{Attempts: 3, Backoff: time.Microsecond}
	s := &streamFlaky{flaky: flaky{n: 1, err: errRate}}
	if _, err := Stream(context.Background(), WithRetry(s, fast), Request{}, func(Chunk) error { return nil }); err != nil || s.calls != 2 {
		t.Errorf("a stream that failed before any chunk: err %v after %d calls, want success after 2", err, s.calls)
	}
	s = &streamFlaky{flaky: flaky{n: 1, err: errRate}, chunkFirst: true}
	if _, err := Stream(context.Background(), WithRetry(s, fast), Request{}, func(Chunk) error { return nil }); !errors.Is(err, ErrRateLimited) || s.calls != 1 {
		t.Errorf("a stream that failed after a chunk: err %v after %d calls, want no retry", err, s.calls)
	}
}
