package otel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"

	byrefotel "github.com/byref/byref/otel"
)

const (
	traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + traceID + "-" + parentSpan + "-01"
)

func TestHandlerContinuesTheCallersTrace(t *testing.T) {
	tp, exp := newProvider(t)
	var seen trace.SpanContext
	h := byrefotel.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusTeapot)
	}), byrefotel.HandlerOptions{TracerProvider: tp})
	req := httptest.NewRequest("GET", "/ping", nil)
	req.Header.Set("traceparent", traceparent)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("spans: %v", tree(spans))
	}
	s := spans[0]
	if s.SpanContext.TraceID().String() != traceID || s.Parent.SpanID().String() != parentSpan || !s.Parent.IsRemote() {
		t.Errorf("server span %s in trace %s, parent %s", s.Name, s.SpanContext.TraceID(), s.Parent.SpanID())
	}
	if !seen.Equal(s.SpanContext) {
		t.Errorf("the handler saw span %s, want %s", seen.SpanID(), s.SpanContext.SpanID())
	}
	if s.SpanKind != trace.SpanKindServer || attrs(s)["http.response.status_code"].AsInt64() != http.StatusTeapot {
		t.Errorf("kind %v, attributes %v", s.SpanKind, attrs(s))
	}
}

func TestHandlerServerErrorStatus(t *testing.T) {
	tp, exp := newProvider(t)
	h := byrefotel.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}), byrefotel.HandlerOptions{TracerProvider: tp})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/x", nil))
	s := exp.GetSpans()[0]
	if s.Status.Code != codes.Error || s.Parent.IsValid() {
		t.Errorf("status %+v, parent %v", s.Status, s.Parent)
	}
}

// TestACPRunJoinsTheRequestsTrace starts a run through the ACP server with a
// traceparent header and checks that the run's spans are in the caller's
// trace, under the request's server span.
func TestACPRunJoinsTheRequestsTrace(t *testing.T) {
	tp, exp := newProvider(t)
	tracer := byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp})
	rt, err := agent.New(agent.Options{Tracer: tracer, Model: llm.NewScripted(llm.Text("hello"))})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Agents: []server.Agent{{Name: "echo", Agent: rt}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(byrefotel.Handler(s, byrefotel.HandlerOptions{TracerProvider: tp}))
	defer srv.Close()

	body := `{"agent_name":"echo","mode":"sync","input":[{"role":"user","parts":[{"content_type":"text/plain","content":"hi"}]}]}`
	req, _ := http.NewRequestWithContext(context.Background(), "POST", srv.URL+"/runs", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", traceparent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /runs: %d %s", resp.StatusCode, b)
	}

	// A sync response comes once the store has the run completed, which
	// can be just before its turn (and its span) ends; Close waits for it.
	s.Close()
	spans := exp.GetSpans()
	post := find(t, spans, "POST")
	if post.SpanContext.TraceID().String() != traceID || post.Parent.SpanID().String() != parentSpan {
		t.Fatalf("the request's span is not a child of the traceparent: %v", tree(spans))
	}
	runSpan := find(t, spans, "invoke_agent echo")
	if runSpan.SpanContext.TraceID().String() != traceID {
		t.Fatalf("the run's span is the root of trace %s instead of a child of the request's span %s: the server must start runs "+
			"with a context that carries the request's values", runSpan.SpanContext.TraceID(), post.SpanContext.SpanID())
	}
	if !runSpan.Parent.Equal(post.SpanContext) {
		t.Errorf("the run's span has parent %s, want the request's span %s", runSpan.Parent.SpanID(), post.SpanContext.SpanID())
	}
}
