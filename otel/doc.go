// Package otel traces byref runs with OpenTelemetry.
//
// A [Tracer] implements agent.Tracer: set it as agent.Options.Tracer and
// every run gets a span tree
//
//	invoke_agent NAME            a run's turn (gen_ai.operation.name=invoke_agent)
//	├── chat MODEL               each model call (gen_ai.request.model, gen_ai.system,
//	│                            gen_ai.usage.input_tokens / output_tokens,
//	│                            gen_ai.usage.cache_read.input_tokens /
//	│                            cache_creation.input_tokens when the cache was used,
//	│                            gen_ai.usage.reasoning.output_tokens and
//	│                            byref.usage.cost when the provider reported them)
//	└── step N                   each step
//	    ├── snippet              each Go snippet
//	    └── execute_tool ACTION  each tool call (gen_ai.tool.name, gen_ai.tool.call.id)
//
// with the run's ID (byref.run.id) and tags (byref.tag.KEY) on every span,
// and failures recorded as span errors with an error status. A run's span is
// a child of the span in the context the run was started with.
//
// Actions run under their tool call's context, so an action that calls
// trace.SpanFromContext(ctx) gets the execute_tool span, and an instrumented
// HTTP or database client it calls continues the trace.
//
// [Handler] wraps an http.Handler (the ACP server of package server, an MCP
// handler) so that requests carrying a W3C traceparent header are served
// under a child span of the caller's trace.
//
// # Naming
//
// The package is named otel, like go.opentelemetry.io/otel. A file that
// needs both imports one of them under another name:
//
//	import (
//		"go.opentelemetry.io/otel"
//		byrefotel "github.com/byref/byref/otel"
//	)
//
// # Logs
//
// byref logs through log/slog with a *slog.Logger the host supplies
// (agent.Options.Logger, server.Options.Logger, Options.Logger here); no
// package keeps a logger of its own.
package otel
