package wire

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	if got := RetryAfter("7"); got != 7*time.Second {
		t.Errorf("RetryAfter(7) = %v", got)
	}
	for _, v := range []string{"", "0", "-3", "soon", "Mon, 01 Jan 2001 00:00:00 GMT"} {
		if got := RetryAfter(v); got != 0 {
			t.Errorf("RetryAfter(%q) = %v, want 0", v, got)
		}
	}
}

func TestRetryInfo(t *testing.T) {
	body := `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}}`
	if got := retryInfo([]byte(body)); got != 34400*time.Millisecond {
		t.Errorf("retryInfo = %v, want 34.4s", got)
	}
	for _, b := range []string{``, `{"error":{"message":"x"}}`, `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"soon"}]}}`} {
		if got := retryInfo([]byte(b)); got != 0 {
			t.Errorf("retryInfo(%s) = %v, want 0", b, got)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	tests := map[string]string{
		`{"error":{"message":"bad key","type":"x"}}`:                                  "bad key",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"object":"error","message":"Unauthorized"}`:                                 "Unauthorized",
		`[{"error":{"code":400,"message":"Invalid JSON payload"}}]`:                   "Invalid JSON payload",
		`{"error":"model not found"}`:                                                 "model not found",
		`{"error":{"code":429,"message":"Provider returned error","metadata":{"provider_name":"Google","raw":"rate-limited upstream"}}}`:                                                                 "Provider returned error (Google: rate-limited upstream)",
		`{"error":{"message":"The response was filtered","code":"content_filter","innererror":{"content_filter_result":{"hate":{"filtered":false},"self_harm":{"filtered":true,"severity":"medium"}}}}}`: "content filter: The response was filtered (filtered: self_harm medium)",
		`bad gateway`: "bad gateway",
		``:            "no error message",
	}
	for body, want := range tests {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestEvents(t *testing.T) {
	in := ": keep-alive\n\nevent: a\ndata: {\"x\":1}\n\ndata: line1\ndata: line2\n\ndata: [DONE]"
	var got []Event
	err := Events(strings.NewReader(in), func(e Event) error {
		got = append(got, e)
		return nil
	})
	want := []Event{{Name: "a", Data: []byte(`{"x":1}`)}, {Data: []byte("line1\nline2")}, {Data: []byte("[DONE]")}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("events = %q, err %v", got, err)
	}
	stop := errors.New("stop")
	if err := Events(strings.NewReader("data: 1\n\ndata: 2\n\n"), func(Event) error { return stop }); err != stop {
		t.Errorf("err = %v, want the callback's", err)
	}
	if err := Events(strings.NewReader("data: 1\n\ndata: 2\n\n"), func(Event) error { return io.EOF }); err != nil {
		t.Errorf("io.EOF from the callback: err = %v, want nil", err)
	}
}

func BenchmarkEvents(b *testing.B) {
	var sb strings.Builder
	for range 200 {
		sb.WriteString(`data: {"id":"c","choices":[{"index":0,"delta":{"content":"word "}}]}` + "\n\n")
	}
	in := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		_ = Events(strings.NewReader(in), func(Event) error { return nil })
	}
}
