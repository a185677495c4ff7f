package agent_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
)

type spanKey struct{}

// recordingTracer records spans with their parent, found through the
// context as a real tracer would.
type recordingTracer struct {
	mu    sync.Mutex
	spans []string // "kind:name<parent"
}

func (r *recordingTracer) Start(ctx context.Context, s agent.Span) (context.Context, func(agent.SpanEnd)) {
	parent, _ := ctx.Value(spanKey{}).(string)
	me := string(s.Kind) + ":" + s.Name
	r.mu.Lock()
	r.spans = append(r.spans, me+"<"+parent)
	r.mu.Unlock()
	if s.Kind != agent.SpanRun && s.RunID == "" {
		panic("span without run ID: " + me)
	}
	return context.WithValue(ctx, spanKey{}, me), func(agent.SpanEnd) {}
}

func TestTracerSeesTheSpanTree(t *testing.T) {
	tr := &recordingTracer{}
	model := llm.NewScripted(
		llm.Response{Text: "```go\nx := 1\n```", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}}},
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{Tracer: tr})
	if _, err := rt.Run(context.Background(), agent.RunOptions{Task: "t", ModelName: "scripted", Name: "weather"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(tr.spans, " ")
	want := "run:weather< model:scripted<run:weather step:step<run:weather snippet:snippet<step:step tool:get_weather<step:step model:scripted<run:weather step:step<run:weather tool:terminate<step:step"
	if got != want {
		t.Fatalf("spans:\n%s\nwant:\n%s", got, want)
	}
}

func TestLoggerIsTheHosts(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	model := llm.NewScripted(llm.CallTool("get_weather", `{"location":5}`), llm.CallTool("terminate", `{"success":true,"result":null}`))
	rt := newAgent(t, model, agent.Options{Logger: log})
	rt.Run(context.Background(), agent.RunOptions{Task: "t"})
	for _, want := range []string{"run started", "call failed", "action=get_weather", "run ended", "status=completed"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
}
