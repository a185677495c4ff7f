package otel

import (
	"net/http"
	"strings"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HandlerOptions configures Handler. The zero value is valid.
type HandlerOptions struct {
	// TracerProvider makes the server spans. Nil means the global
	// provider.
	TracerProvider trace.TracerProvider
	// Propagator reads the trace context from request headers. Nil means
	// W3C Trace Context (traceparent, tracestate) and W3C Baggage.
	Propagator propagation.TextMapPropagator
}

// Handler wraps h so that each request runs under a server span that is a
// child of the trace context the request carries (a W3C traceparent
// header), or the root of a new trace when it carries none. Work h starts
// with the request's context — a byref run traced by a [Tracer] — joins
// that trace.
//
// The span is named "METHOD" plus the route when h is an *http.ServeMux
// that knows it, else "METHOD"; it records http.request.method, url.path
// and http.response.status_code, and an error status for 5xx responses.
func Handler(h http.Handler, opts HandlerOptions) http.Handler {
	tp := opts.TracerProvider
	if tp == nil {
		tp = otelapi.GetTracerProvider()
	}
	prop := opts.Propagator
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	tr := tp.Tracer(ScopeName)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		name := r.Method
		attrs := []attribute.KeyValue{
			attribute.String("http.request.method", r.Method),
			attribute.String("url.path", r.URL.Path),
		}
		if mux, ok := h.(*http.ServeMux); ok {
			if _, pattern := mux.Handler(r); pattern != "" && pattern != "/" {
				// A pattern may start with its method ("GET /runs/{id}").
				if _, route, ok := strings.Cut(pattern, " "); ok {
					pattern = route
				}
				name += " " + pattern
				attrs = append(attrs, attribute.String("http.route", pattern))
			}
		}
		ctx, span := tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
		}
	})
}

// statusWriter records the status code of a response. It passes Flush
// through (server-sent events need it) and unwraps for
// http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	w.wrote = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
