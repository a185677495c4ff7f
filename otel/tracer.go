package otel

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	otelapi "go.opentelemetry.io/otel"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// ScopeName is the instrumentation scope of byref's spans.
const ScopeName = "github.com/byref/byref"

// Attribute keys set on spans. The gen_ai.* keys follow the OpenTelemetry
// semantic conventions for generative AI; the byref.* keys are byref's own.
const (
	AttrOperation    = "gen_ai.operation.name"
	AttrSystem       = "gen_ai.system"
	AttrProvider     = "gen_ai.provider.name"
	AttrRequestModel = "gen_ai.request.model"
	AttrInputTokens  = "gen_ai.usage.input_tokens"
	AttrOutputTokens = "gen_ai.usage.output_tokens"
	// AttrCacheReadTokens and AttrCacheWriteTokens are the parts of the
	// input tokens read from and written to the provider's prompt cache.
	AttrCacheReadTokens  = "gen_ai.usage.cache_read.input_tokens"
	AttrCacheWriteTokens = "gen_ai.usage.cache_creation.input_tokens"
	// AttrReasoningTokens is the part of the output tokens the model spent
	// reasoning.
	AttrReasoningTokens = "gen_ai.usage.reasoning.output_tokens"
	// AttrCost is what the provider said the call cost, in dollars
	// (OpenRouter's usage.cost); the conventions name no cost attribute.
	AttrCost       = "byref.usage.cost"
	AttrAgentName  = "gen_ai.agent.name"
	AttrToolName   = "gen_ai.tool.name"
	AttrToolCallID = "gen_ai.tool.call.id"
	AttrErrorType  = "error.type"
	AttrRunID      = "byref.run.id"
	AttrRunStatus  = "byref.run.status"
	AttrStep       = "byref.step"
	AttrSpanKind   = "byref.span.kind"
	// AttrTagPrefix is followed by a tag's key: byref.tag.<key>.
	AttrTagPrefix = "byref.tag."
)

// The gen_ai.operation.name values byref uses.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// Options configures a Tracer. The zero value is valid: it traces to the
// global TracerProvider (go.opentelemetry.io/otel.GetTracerProvider) and
// logs nothing.
type Options struct {
	// TracerProvider makes the tracer. Nil means the global provider,
	// looked up when NewTracer is called.
	TracerProvider trace.TracerProvider
	// System is the value of gen_ai.system (and gen_ai.provider.name) on
	// model spans when the model's name does not say it. Model names of
	// the form "provider:model" (byref's convention, e.g.
	// "openai:gpt-4o-mini") give the provider and the model; other names
	// are the model alone.
	System string
	// Logger receives a Debug record for every span that ends with an
	// error. Nil means no logs.
	Logger *slog.Logger
}

// Tracer is an agent.Tracer over OpenTelemetry: set it as
// agent.Options.Tracer. It is safe for concurrent use.
type Tracer struct {
	tr     trace.Tracer
	system string
	log    *slog.Logger
}

var _ agent.Tracer = (*Tracer)(nil)

// NewTracer returns a Tracer writing spans through opts.TracerProvider.
func NewTracer(opts Options) *Tracer {
	tp := opts.TracerProvider
	if tp == nil {
		tp = otelapi.GetTracerProvider()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Tracer{tr: tp.Tracer(ScopeName), system: opts.System, log: log}
}

// Start implements agent.Tracer: it starts a span, a child of the span in
// ctx, and returns a context holding it, so the actions and snippets that
// run under that context see it through trace.SpanFromContext.
//
// Span names follow the GenAI conventions: "invoke_agent NAME" for a run,
// "chat MODEL" for a model call, "execute_tool ACTION" for a tool call, and
// "step N" and "snippet" for byref's own spans.
func (t *Tracer) Start(ctx context.Context, s agent.Span) (context.Context, func(agent.SpanEnd)) {
	attrs := make([]attribute.KeyValue, 0, 8+len(s.Tags))
	attrs = append(attrs, attribute.String(AttrSpanKind, string(s.Kind)))
	if s.RunID != "" {
		attrs = append(attrs, attribute.String(AttrRunID, string(s.RunID)))
	}
	for k, v := range s.Tags {
		attrs = append(attrs, attribute.String(AttrTagPrefix+k, v))
	}
	if s.Kind != agent.SpanRun {
		attrs = append(attrs, attribute.Int(AttrStep, s.Step))
	}
	kind := trace.SpanKindInternal
	var name string
	switch s.Kind {
	case agent.SpanRun:
		name = OpInvokeAgent
		attrs = append(attrs, attribute.String(AttrOperation, OpInvokeAgent))
		if s.Name != "" {
			name += " " + s.Name
			attrs = append(attrs, attribute.String(AttrAgentName, s.Name))
		}
	case agent.SpanModel:
		kind = trace.SpanKindClient
		name = OpChat
		attrs = append(attrs, attribute.String(AttrOperation, OpChat))
		system, model := t.splitModel(s.Name)
		if system != "" {
			attrs = append(attrs, attribute.String(AttrSystem, system), attribute.String(AttrProvider, system))
		}
		if model != "" {
			name += " " + model
			attrs = append(attrs, attribute.String(AttrRequestModel, model))
		}
	case agent.SpanStep:
		name = "step " + strconv.Itoa(s.Step)
	case agent.SpanTool:
		name = OpExecuteTool + " " + s.Name
		attrs = append(attrs,
			attribute.String(AttrOperation, OpExecuteTool),
			attribute.String(AttrToolName, s.Name))
		if s.CallID != "" {
			attrs = append(attrs, attribute.String(AttrToolCallID, s.CallID))
		}
	case agent.SpanSnippet:
		name = "snippet"
	default:
		name = string(s.Kind)
		if s.Name != "" {
			name += " " + s.Name
		}
	}
	ctx, span := t.tr.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, func(e agent.SpanEnd) {
		if s.Kind == agent.SpanModel {
			setUsage(span, e.Usage)
		}
		if e.Status != "" {
			span.SetAttributes(attribute.String(AttrRunStatus, string(e.Status)))
		}
		if e.Err != nil {
			span.RecordError(e.Err)
			span.SetStatus(codes.Error, e.Err.Error())
			span.SetAttributes(attribute.String(AttrErrorType, errorType(s.Kind, e.Status)))
			t.log.Debug("span ended with an error", "span", name, "run", string(s.RunID), "err", e.Err)
		}
		span.End()
	}
}

// splitModel splits byref's "provider:model" model names.
func (t *Tracer) splitModel(name string) (system, model string) {
	if p, m, ok := strings.Cut(name, ":"); ok && p != "" && m != "" {
		return p, m
	}
	return t.system, name
}

// errorType is the low-cardinality error.type of a failed span.
// setUsage sets a model call's usage on its span, when the provider
// reported one: the input and output tokens, and the cache's reads and
// writes, the reasoning tokens and the provider's cost when it counted them.
func setUsage(span trace.Span, u llm.Usage) {
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return
	}
	span.SetAttributes(attribute.Int(AttrInputTokens, u.InputTokens), attribute.Int(AttrOutputTokens, u.OutputTokens))
	if u.CacheReadTokens != 0 || u.CacheWriteTokens != 0 {
		span.SetAttributes(attribute.Int(AttrCacheReadTokens, u.CacheReadTokens), attribute.Int(AttrCacheWriteTokens, u.CacheWriteTokens))
	}
	if u.ReasoningTokens != 0 {
		span.SetAttributes(attribute.Int(AttrReasoningTokens, u.ReasoningTokens))
	}
	if u.Cost != 0 {
		span.SetAttributes(attribute.Float64(AttrCost, u.Cost))
	}
}

func errorType(kind agent.SpanKind, status run.Status) string {
	if kind == agent.SpanRun && status != "" {
		return string(status) // failed, canceled
	}
	return string(kind) + "_error"
}
