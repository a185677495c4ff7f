package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// serveFunc starts a flavor's server with replies and opens the adapter on
// it.
type serveFunc func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model)

// commonCases are the cases every flavor shares, given its server, a
// successful reply with the text "ok" (streamed when asked), an error body that carries the
// message "scripted failure" and the reply of a rate limit that asks for
// a 7-second wait in the flavor's own way.
func commonCases(serve serveFunc, ok func(stream bool) Reply, failure string, rateLimited Reply) []Case {
	var cases []Case
	for _, he := range httpErrorCases {
		cases = append(cases, Case{"http_error_" + he.name, func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Status: he.status, Body: failure})
			_, err := m.Generate(context.Background(), ask("Hi"))
			wantKind(t, err, he.kind, he.status, he.retryable)
			if !strings.Contains(err.Error(), "scripted failure") {
				t.Errorf("err = %v; want the provider's message in it", err)
			}
		}})
	}
	return append(cases,
		Case{"retries", func(t *testing.T, open Open) {
			s, m := serve(t, open, rateLimited, Reply{Status: 503, Body: failure}, ok(false))
			resp, err := llm.WithRetry(m, retry).Generate(context.Background(), ask("Hi"))
			if err != nil || resp.Text != "ok" || s.Requests() != 3 {
				t.Errorf("resp %+v, err %v after %d requests; want ok after 3", resp, err, s.Requests())
			}
		}},
		Case{"retry_after", func(t *testing.T, open Open) {
			_, m := serve(t, open, rateLimited)
			_, err := m.Generate(context.Background(), ask("Hi"))
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.RetryAfter.Seconds() != 7 || !pe.Retryable {
				t.Errorf("err = %v; want a retryable error with RetryAfter 7s", err)
			}
		}},
		Case{"concurrent_use", func(t *testing.T, open Open) {
			replies := make([]Reply, 16)
			for i := range replies {
				replies[i] = ok(false)
			}
			_, m := serve(t, open, replies...)
			concurrentUse(t, m, len(replies))
		}},
		Case{"canceled", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { _, err := m.Generate(ctx, ask("Hi")); errc <- err }()
			for s.Requests() == 0 {
				runtimeGosched()
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) || llm.IsRetryable(err) {
				t.Errorf("err = %v, want context.Canceled, not retryable", err)
			}
		}},
		Case{"stream_callback_error", func(t *testing.T, open Open) {
			_, m := serve(t, open, ok(true))
			stop := errors.New("enough")
			calls := 0
			_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { calls++; return stop })
			if !errors.Is(err, stop) || calls != 1 {
				t.Errorf("err = %v after %d callbacks; want the callback's error after 1", err, calls)
			}
		}},
	)
}
