package otel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"

	byrefotel "github.com/byref/byref/otel"
)

// A run traced into an in-memory exporter; a real program gives
// NewTracer the provider of its OTLP exporter.
func ExampleNewTracer() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	a, _ := agent.New(agent.Options{
		Model:  llm.NewScripted(llm.Response{Text: "Hi!", Usage: llm.Usage{InputTokens: 12, OutputTokens: 3}}),
		Tracer: byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp}),
	})
	a.Run(context.Background(), agent.RunOptions{Task: "say hi", ModelName: "openai:gpt-4o-mini", Name: "greeter"})

	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name)
	}
	// Output:
	// chat gpt-4o-mini
	// invoke_agent greeter
}
