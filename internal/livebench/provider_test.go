package livebench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// tokens is the answer's length in deltas, and tick the pause between
// them.
const (
	tokens = 2000
	tick   = time.Millisecond
)

// provider is an httptest server speaking OpenAI's chat completions: a
// streamed request gets one delta ("tok ") per tick; first receives the
// time each stream's first content delta was flushed.
type provider struct {
	srv   *httptest.Server
	first chan time.Time
}

func newProvider(tb testing.TB) *provider {
	p := &provider{first: make(chan time.Time, 1024)}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	tb.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream bool `json:"stream"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		text, _ := json.Marshal(strings.Repeat("tok ", tokens))
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":%d}}`, text, tokens)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	chunk := func(delta, finish string) {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, finish)
	}
	chunk(`{"role":"assistant","content":""}`, "null")
	f.Flush()
	t := time.NewTicker(tick)
	defer t.Stop()
	for i := range tokens {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		chunk(`{"content":"tok "}`, "null")
		if i == 0 {
			p.first <- time.Now()
		}
		f.Flush()
	}
	chunk(`{}`, `"stop"`)
	fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", tokens)
	f.Flush()
}
