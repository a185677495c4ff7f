package otel_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"

	byrefotel "github.com/byref/byref/otel"
)

// newProvider returns a provider that records ended spans in memory.
func newProvider(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// tree draws the spans as "name<parent name" lines in start order.
func tree(spans tracetest.SpanStubs) []string {
	byID := map[trace.SpanID]string{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s.Name
	}
	sorted := slices.Clone(spans)
	slices.SortStableFunc(sorted, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	var out []string
	for _, s := range sorted {
		parent := "-"
		if s.Parent.IsValid() {
			parent = byID[s.Parent.SpanID()]
			if parent == "" {
				parent = "remote"
			}
		}
		out = append(out, s.Name+"<"+parent)
	}
	return out
}

func attrs(s tracetest.SpanStub) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func find(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span %q in %v", name, tree(spans))
	return tracetest.SpanStub{}
}

// weather is an action that records the span it runs under.
func weather(seen *trace.SpanContext) *action.Action {
	return action.MustNew(action.Spec{
		Name: "get_weather", Description: "The weather in a city.",
		Params: []action.Param{{Name: "city"}},
		Func: func(ctx context.Context, city string) (string, error) {
			*seen = trace.SpanFromContext(ctx).SpanContext()
			if city == "Atlantis" {
				return "", errors.New("no such city")
			}
			return "sunny in " + city, nil
		},
	})
}

func TestSpanTreeOfARun(t *testing.T) {
	tp, exp := newProvider(t)
	var seen trace.SpanContext
	model := llm.NewScripted(
		llm.Response{
			Text:      "Checking.\n```go\nn := 1\n```",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris","return":null}`}},
			Usage:     llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 60, CacheWriteTokens: 30, ReasoningTokens: 12, Cost: 0.0021},
		},
		llm.Response{
			ToolCalls: []llm.ToolCall{{ID: "c2", Name: "get_weather", Arguments: `{"city":"Atlantis","return":null}`}},
			Usage:     llm.Usage{InputTokens: 150, OutputTokens: 10},
		},
		llm.Response{
			ToolCalls: []llm.ToolCall{{ID: "c3", Name: action.TerminateName, Arguments: `{"success":true,"result":"done"}`}},
			Usage:     llm.Usage{InputTokens: 200, OutputTokens: 5},
		},
	)
	rt, err := agent.New(agent.Options{
		Model:   model,
		Actions: action.MustSet(weather(&seen)),
		Tracer:  byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp}),
	})
	if err != nil {
		t.Fatal(err)
	}
	o, err := rt.Run(context.Background(), agent.RunOptions{
		Task: "weather?", ModelName: "openai:gpt-4o-mini",
		Name: "forecaster",
		Tags: map[string]string{"tenant": "acme"},
	})
	if err != nil || !o.OK() {
		t.Fatalf("run: %+v, %v", o, err)
	}
	spans := exp.GetSpans()
	want := []string{
		"invoke_agent forecaster<-",
		"chat gpt-4o-mini<invoke_agent forecaster",
		"step 1<invoke_agent forecaster",
		"snippet<step 1",
		"execute_tool get_weather<step 1",
		"chat gpt-4o-mini<invoke_agent forecaster",
		"step 2<invoke_agent forecaster",
		"execute_tool get_weather<step 2",
		"chat gpt-4o-mini<invoke_agent forecaster",
		"step 3<invoke_agent forecaster",
		"execute_tool terminate<step 3",
	}
	if got := tree(spans); !slices.Equal(got, want) {
		t.Fatalf("span tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	traceID := spans[0].SpanContext.TraceID()
	for _, s := range spans {
		a := attrs(s)
		if s.SpanContext.TraceID() != traceID {
			t.Errorf("%s is in another trace", s.Name)
		}
		if a["byref.run.id"].AsString() != string(o.RunID) || a["byref.tag.tenant"].AsString() != "acme" {
			t.Errorf("%s: run id %q, tag %q", s.Name, a["byref.run.id"].AsString(), a["byref.tag.tenant"].AsString())
		}
	}

	run := attrs(find(t, spans, "invoke_agent forecaster"))
	if run["gen_ai.operation.name"].AsString() != "invoke_agent" || run["byref.run.status"].AsString() != "completed" {
		t.Errorf("run span attributes: %v", run)
	}
	var chats []tracetest.SpanStub
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "chat ") {
			chats = append(chats, s)
		}
	}
	first := attrs(chats[0])
	for k, want := range map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.system": "openai",
		"gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.usage.cache_read.input_tokens": int64(60), "gen_ai.usage.cache_creation.input_tokens": int64(30),
		"gen_ai.usage.reasoning.output_tokens": int64(12), "byref.usage.cost": 0.0021,
	} {
		if got := first[k].AsInterface(); got != want {
			t.Errorf("chat span %s = %v, want %v", k, got, want)
		}
	}
	// A call whose provider counted no reasoning nor cost has neither.
	for _, k := range []string{"gen_ai.usage.reasoning.output_tokens", "byref.usage.cost", "gen_ai.usage.cache_read.input_tokens"} {
		if v, ok := attrs(chats[1])[k]; ok {
			t.Errorf("second chat span %s = %v; its usage has none", k, v.AsInterface())
		}
	}
	if chats[0].SpanKind != trace.SpanKindClient {
		t.Errorf("chat span kind %v, want client", chats[0].SpanKind)
	}

	var tools []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "execute_tool get_weather" {
			tools = append(tools, s)
		}
	}
	ok, failed := tools[0], tools[1]
	if a := attrs(ok); a["gen_ai.tool.name"].AsString() != "get_weather" || a["gen_ai.tool.call.id"].AsString() != "c1" || ok.Status.Code == codes.Error {
		t.Errorf("tool span c1: %v, status %v", a, ok.Status)
	}
	if failed.Status.Code != codes.Error || !strings.Contains(failed.Status.Description, "no such city") || len(failed.Events) == 0 || failed.Events[0].Name != "exception" {
		t.Errorf("failed tool span: status %+v, events %+v", failed.Status, failed.Events)
	}
	// The action saw its own tool span (the last call of get_weather).
	if !seen.Equal(failed.SpanContext) {
		t.Errorf("the action saw span %v; its tool span is %v", seen.SpanID(), failed.SpanContext.SpanID())
	}
}

func TestFailedRunAndModelErrors(t *testing.T) {
	tp, exp := newProvider(t)
	rt, err := agent.New(agent.Options{
		Model:  llm.NewScripted(), // exhausted at once: the model call fails, and so the run
		Tracer: byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp, System: "scripted"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "t", ModelName: "script-1"})
	if err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	chat := find(t, spans, "chat script-1")
	if chat.Status.Code != codes.Error || attrs(chat)["gen_ai.system"].AsString() != "scripted" {
		t.Errorf("chat span: %+v %v", chat.Status, attrs(chat))
	}
	runSpan := find(t, spans, "invoke_agent")
	if runSpan.Status.Code != codes.Error || attrs(runSpan)["byref.run.status"].AsString() != string(o.Status) || attrs(runSpan)["error.type"].AsString() != string(o.Status) {
		t.Errorf("run span: %+v %v (outcome %s)", runSpan.Status, attrs(runSpan), o.Status)
	}
}

func TestRunIsAChildOfTheCallersSpan(t *testing.T) {
	tp, exp := newProvider(t)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	rt, _ := agent.New(agent.Options{
		Model:  llm.NewScripted(llm.Text("hi")),
		Tracer: byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp}),
	})
	if _, err := rt.Run(ctx, agent.RunOptions{Task: "t", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	if got := tree(exp.GetSpans()); !slices.Contains(got, "invoke_agent n<request") {
		t.Fatalf("spans: %v", got)
	}
}

func BenchmarkTracerStart(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	tr := byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp})
	s := agent.Span{Kind: agent.SpanTool, Name: "get_weather", RunID: "r1", Tags: map[string]string{"a": "b"}, Step: 3, CallID: "c1"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, end := tr.Start(ctx, s)
		end(agent.SpanEnd{})
	}
}

// TestSpansHoldNoSecret: a run whose actions and snippets fail with a
// secret, or text derived from it, in their errors records spans whose
// attributes, statuses and events hold neither.
func TestSpansHoldNoSecret(t *testing.T) {
	const secret = "otel-s3cret-Tr0ub4dor"
	tp, exp := newProvider(t)
	fail := action.MustNew(action.Spec{Name: "check", Description: "Fails quoting its input.",
		Func: func(s string) error { return errors.New("rejected " + strings.ToUpper(s)) }, Params: []action.Param{{Name: "text"}}})
	model := llm.NewScripted(
		llm.CallTool("check", `{"text":"<<var:pw>>"}`),
		llm.CallTool("run_go", `{"code":"panic(strings.ToLower(pw) + \" reversed\")"}`),
		llm.CallTool("terminate", `{"success":false,"result":"<<var:pw>>"}`),
	)
	rt, err := agent.New(agent.Options{Model: model, Actions: action.MustSet(fail),
		Variables: []variable.Spec{{Name: "pw", Value: secret, Secret: true}},
		Tracer:    byrefotel.NewTracer(byrefotel.Options{TracerProvider: tp})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Run(context.Background(), agent.RunOptions{Task: "go"}); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) < 4 {
		t.Fatalf("%d spans", len(spans))
	}
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, a := range s.Attributes {
			texts = append(texts, a.Value.String())
		}
		for _, e := range s.Events {
			for _, a := range e.Attributes {
				texts = append(texts, a.Value.String())
			}
		}
		for _, text := range texts {
			if strings.Contains(strings.ToLower(text), "s3cret") {
				t.Errorf("span %s holds the secret: %q", s.Name, text)
			}
		}
	}
}
