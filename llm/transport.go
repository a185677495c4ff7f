package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// exchange records what happened on the wire during one model call, so that
// errors can be classified by HTTP status instead of by message text.
type exchange struct {
	mu         sync.Mutex
	sent       bool
	status     int
	retryAfter time.Duration
}

type exchangeKey struct{}

// withExchange returns a context that carries a fresh exchange recorder.
func withExchange(ctx context.Context) (context.Context, *exchange) {
	ex := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, ex), ex
}

// snapshot returns a copy of the recorded exchange, safe to read.
func (ex *exchange) snapshot() *exchange {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return &exchange{sent: ex.sent, status: ex.status, retryAfter: ex.retryAfter}
}

// recordingDoer is the HTTP client handed to langchaingo clients built by
// Open. It records each exchange in the recorder carried by the request's
// context, and can drop JSON fields a provider refuses from request bodies.
type recordingDoer struct {
	client *http.Client
	// drop lists top-level request fields to remove (Mistral rejects
	// stream_options, which langchaingo's OpenAI client always sends when
	// streaming).
	drop []string
}

// Do sends req and records its status.
func (d *recordingDoer) Do(req *http.Request) (*http.Response, error) {
	if len(d.drop) > 0 && req.Body != nil {
		if err := dropFields(req, d.drop); err != nil {
			return nil, err
		}
	}
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil {
		ex.mu.Lock()
		ex.sent = true
		ex.mu.Unlock()
	}
	resp, err := d.client.Do(req)
	if err != nil || ex == nil {
		return resp, err
	}
	ex.mu.Lock()
	ex.status = resp.StatusCode
	ex.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	ex.mu.Unlock()
	return resp, nil
}

// dropFields removes top-level fields from a JSON request body.
func dropFields(req *http.Request, fields []string) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		removed := false
		for _, f := range fields {
			if _, ok := obj[f]; ok {
				delete(obj, f)
				removed = true
			}
		}
		if removed {
			if b, err := json.Marshal(obj); err == nil {
				body = b
			}
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// parseRetryAfter reads a Retry-After header given in seconds or as a date.
func parseRetryAfter(v string) time.Duration {
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
