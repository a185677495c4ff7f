package llm

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestDropFields(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(`{"model":"m","stream_options":{"include_usage":true}}`))
	if err := dropFields(req, []string{"stream_options"}); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(req.Body)
	if string(b) != `{"model":"m"}` || req.ContentLength != int64(len(b)) {
		t.Errorf("body = %s (length %d)", b, req.ContentLength)
	}
}

func TestParseRetryAfter(t *testing.T) {
	if d := parseRetryAfter("12"); d != 12*time.Second {
		t.Errorf("12 -> %v", d)
	}
	for _, v := range []string{"", "soon", "-3"} {
		if d := parseRetryAfter(v); d != 0 {
			t.Errorf("%q -> %v, want 0", v, d)
		}
	}
}
