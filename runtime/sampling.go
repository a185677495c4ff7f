package runtime

import (
	"context"
	"sync"

	"github.com/byref/byref/llm"
)

// sampling totals what a call spent of its run's model on its own behalf
// (an MCP server's sampling requests, served with the run's model): the
// call's record in the log carries it (run.ToolCallCompleted.Usage), so
// the run's usage counts it without taking it for a step of the
// conversation. It is safe for concurrent use: a server may sample from
// several goroutines.
type sampling struct {
	mu sync.Mutex
	u  llm.Usage
}

func (s *sampling) add(u llm.Usage) {
	s.mu.Lock()
	s.u = s.u.Add(u)
	s.mu.Unlock()
}

func (s *sampling) total() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.u
}

// sampledModel is a run's model as one of its calls uses it: what each
// request spends is added to the call's sampling total. It streams when
// the run's model does.
type sampledModel struct {
	m     llm.Model
	spent *sampling
}

// Generate implements llm.Model.
func (s sampledModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := s.m.Generate(ctx, req)
	s.spent.add(resp.Usage)
	return resp, err
}

// Stream implements llm.Streamer, through llm.Stream, which generates
// when the run's model cannot stream.
func (s sampledModel) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	resp, err := llm.Stream(ctx, s.m, req, fn)
	s.spent.add(resp.Usage)
	return resp, err
}

// addSampled adds what the step's calls spent of the run's model to the
// run's usage, once their records are in the log.
func (h *Handle) addSampled(res StepResult) {
	for _, r := range res.Responses {
		if r.sampled != (llm.Usage{}) {
			h.mu.Lock()
			h.usage = h.usage.Add(r.sampled)
			h.mu.Unlock()
		}
	}
}
