package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestScriptedPlaysInOrder(t *testing.T) {
	s := NewScripted(CallTool("get_weather", `{"city":"Paris"}`), Text("Sunny."))
	ctx := context.Background()
	r1, err := s.Generate(ctx, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 || r1.ToolCalls[0].ID == "" || r1.StopReason != StopToolCalls {
		t.Errorf("first response = %+v, want one tool call with an ID", r1)
	}
	r2, err := s.Generate(ctx, Request{})
	if err != nil || r2.Text != "Sunny." {
		t.Fatalf("second response = %+v, %v", r2, err)
	}
	_, err = s.Generate(ctx, Request{})
	if !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("third call: err = %v, want ErrScriptExhausted", err)
	}
	if s.Calls() != 3 || s.Remaining() != 0 {
		t.Errorf("Calls = %d, Remaining = %d", s.Calls(), s.Remaining())
	}
}

func TestScriptedIDsAreUniqueAndScriptUntouched(t *testing.T) {
	script := CallTools(ToolCall{Name: "a", Arguments: `{}`}, ToolCall{Name: "b", Arguments: `{}`})
	s := NewScriptedFunc(func(Request) (Response, error) { return script, nil })
	seen := map[string]bool{}
	for range 3 {
		r, err := s.Generate(context.Background(), Request{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.ToolCalls {
			if seen[c.ID] {
				t.Errorf("ID %q repeated", c.ID)
			}
			seen[c.ID] = true
		}
	}
	if script.ToolCalls[0].ID != "" {
		t.Errorf("Generate wrote into the script: %+v", script.ToolCalls)
	}
}

func TestScriptedFuncSeesConversation(t *testing.T) {
	s := NewScriptedFunc(func(req Request) (Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == RoleTool {
			return Text("The tool said " + last.Text), nil
		}
		return CallTool("echo", `{}`), nil
	})
	ctx := context.Background()
	r, _ := s.Generate(ctx, Request{Messages: []Message{UserMessage("go")}})
	r2, err := s.Generate(ctx, Request{Messages: []Message{UserMessage("go"), r.Message(), ToolResultMessage(r.ToolCalls[0], "hi")}})
	if err != nil || r2.Text != "The tool said hi" {
		t.Fatalf("r2 = %+v, %v", r2, err)
	}
}

func TestScriptedConcurrent(t *testing.T) {
	const n = 200
	responses := make([]Response, n)
	for i := range responses {
		responses[i] = Text(fmt.Sprint(i))
	}
	s := NewScripted(responses...)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Generate(context.Background(), Request{})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got[r.Text] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(got) != n {
		t.Errorf("%d distinct responses, want %d: each call takes the next one", len(got), n)
	}
}

func TestScriptedStream(t *testing.T) {
	s := NewScripted(Response{Text: "one two three", ToolCalls: []ToolCall{{Name: "t", Arguments: `{}`}}})
	var text string
	var calls int
	resp, err := s.Stream(context.Background(), Request{}, func(c Chunk) error {
		text += c.Text
		if c.ToolCall != nil {
			calls++
		}
		return nil
	})
	if err != nil || text != "one two three" || calls != 1 || resp.Text != "one two three" {
		t.Fatalf("text %q, calls %d, resp %+v, err %v", text, calls, resp, err)
	}
}

func TestScriptedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewScripted(Text("x")).Generate(ctx, Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkScriptedGenerate(b *testing.B) {
	s := NewScriptedFunc(func(Request) (Response, error) { return CallTool("get_weather", `{"city":"Paris"}`), nil })
	req := Request{Messages: []Message{UserMessage("Weather?")}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScriptedGenerateText(b *testing.B) {
	s := NewScriptedFunc(func(Request) (Response, error) { return Text("done"), nil })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Generate(ctx, Request{}); err != nil {
			b.Fatal(err)
		}
	}
}
