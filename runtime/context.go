package runtime

import (
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// runContext is what a run keeps fixed from one request to the next, so
// that every request begins with the previous one byte for byte (tools,
// system prompt, then messages) and a provider's prompt cache serves it.
// Only a compaction changes it.
type runContext struct {
	// starting names the run's starting variables, which the system
	// prompt lists; later variables are announced where they are made.
	starting []string
	// tools is the run's tool list, built at its first request and again
	// only after a compaction; nil until then.
	tools []llm.Tool
	// only names the tools the last compaction chose (nil: choose from
	// the task), so that a restored run offers the same ones.
	only []string
}

// request builds the model request of the next step: the fixed tools and
// system prompt, then the messages, each appended once and never rewritten.
func (h *Handle) request(lim Limits) llm.Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.tools == nil {
		h.ctx.tools = h.st.runTools(h.opts.ToolLimit, h.opts.Task, false, h.ctx.only)
	}
	if h.messages[0].Text == "" {
		h.messages[0] = llm.SystemMessage(h.st.systemPrompt(h.opts, h.ctx.starting))
	}
	toolTokens := 0
	for _, t := range h.ctx.tools {
		toolTokens += (len(t.Description) + len(t.Parameters)) / 4
	}
	budget := int(float64(lim.ContextWindow)*lim.ContextShare) - toolTokens
	h.messages, h.pinned = fitWindow(h.messages, budget, h.pinned)
	return llm.Request{Tools: h.ctx.tools, Messages: clipMessages(append([]llm.Message(nil), h.messages...), h.st.opts.MaxMessage)}
}

// startingNames returns the starting variables a run's log records: those
// created at step 0, before the model's first answer.
func startingNames(events []run.Event) []string {
	var names []string
	for _, e := range events {
		switch p := e.Data.(type) {
		case run.Usage:
			return names
		case run.VariableCreated:
			if p.Step == 0 {
				names = append(names, p.Variable.Name)
			}
		}
	}
	return names
}
