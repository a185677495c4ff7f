package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/byref/byref/run"
)

// RetryPolicy bounds the retries of [WithRetry]. The zero value means 3
// attempts, a first delay of 500ms doubling up to 30s. It is
// [run.RetryPolicy], the type a run's limits (run.Limits.Retry) hold.
type RetryPolicy = run.RetryPolicy

// retryDefaults returns p with its zero fields set to their defaults.
func retryDefaults(p RetryPolicy) RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 3
	}
	if p.Backoff <= 0 {
		p.Backoff = 500 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 30 * time.Second
	}
	return p
}

// retryDelay returns p's wait before retry number n (1 for the first
// retry).
func retryDelay(p RetryPolicy, n int, err error) time.Duration {
	d := p.Backoff
	for i := 1; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d += time.Duration(rand.Int64N(int64(d)/5 + 1))
	var pe *ProviderError
	if errors.As(err, &pe) && pe.RetryAfter > d {
		d = pe.RetryAfter
	}
	return min(d, p.MaxBackoff)
}

// WithRetry returns a Model that calls m again when a call fails with a
// retryable error ([IsRetryable]: rate limits, 5xx, network failures), up to
// p.Attempts calls in all, waiting with exponential backoff between them and
// honouring a provider's Retry-After. It stops at once when ctx is done and
// returns the last error. The result implements [Streamer] when m does; a
// stream is retried only if it failed before any chunk reached the callback,
// so the callback never sees a piece twice. The result is safe for concurrent
// use when m is.
func WithRetry(m Model, p RetryPolicy) Model {
	r := &retrying{m: m, p: retryDefaults(p)}
	if s, ok := m.(Streamer); ok {
		return &retryingStreamer{retrying: r, s: s}
	}
	return r
}

type retrying struct {
	m Model
	p RetryPolicy
}

// Generate implements [Model].
func (r *retrying) Generate(ctx context.Context, req Request) (Response, error) {
	return r.do(ctx, func() (Response, error) { return r.m.Generate(ctx, req) }, nil)
}

func (r *retrying) do(ctx context.Context, call func() (Response, error), started func() bool) (Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := call()
		if err == nil || attempt >= r.p.Attempts || !IsRetryable(err) || (started != nil && started()) {
			return resp, err
		}
		t := time.NewTimer(retryDelay(r.p, attempt, err))
		select {
		case <-ctx.Done():
			t.Stop()
			return Response{}, err
		case <-t.C:
		}
	}
}

type retryingStreamer struct {
	*retrying
	s Streamer
}

// Stream implements [Streamer].
func (r *retryingStreamer) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	delivered := false
	wrapped := func(c Chunk) error {
		delivered = true
		return fn(c)
	}
	return r.do(ctx, func() (Response, error) { return r.s.Stream(ctx, req, wrapped) }, func() bool { return delivered })
}
