package agent

import (
	"context"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// usageEvent is the log's record of a model call's usage.
func usageEvent(u llm.Usage) run.Usage {
	return run.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
		CacheReadTokens: int64(u.CacheReadTokens), CacheWriteTokens: int64(u.CacheWriteTokens),
		ReasoningTokens: int64(u.ReasoningTokens), Cost: u.Cost}
}

// usageOf is usageEvent's inverse: a run's usage from its log's totals.
func usageOf(u run.Usage) llm.Usage {
	return llm.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
		CacheReadTokens: int(u.CacheReadTokens), CacheWriteTokens: int(u.CacheWriteTokens),
		ReasoningTokens: int(u.ReasoningTokens), Cost: u.Cost}
}

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
