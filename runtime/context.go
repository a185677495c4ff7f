package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// request builds the model request of the next step: the fixed tools and
// system prompt, then the messages, each appended once and never
// rewritten, unless the request would pass the compaction threshold: then
// the run compacts once (window.go), and is append-only again after.
func (h *Handle) request(ctx context.Context, lim Limits) (llm.Request, error) {
	h.mu.Lock()
	h.fix()
	tokens := estimateRequest(h.ctx.tools, h.messages)
	// A compaction folds what follows the head (system prompt, session
	// history, task); when the tools and the head alone pass the
	// threshold, it could not bring the request under it, and is not
	// tried.
	compact := tokens > lim.CompactAt && len(h.messages) > h.head()+1 && estimateRequest(h.ctx.tools, h.messages[:h.head()]) < lim.CompactAt
	h.mu.Unlock()
	if compact {
		if err := h.compact(ctx, tokens, lim.CompactAt, lim.ModelSummary); err != nil {
			return llm.Request{}, err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fix()
	return llm.Request{Tools: h.ctx.tools, Messages: clipMessages(append([]llm.Message(nil), h.messages...), h.st.opts.MaxMessage), CacheKey: h.ctx.cacheKey}, nil
}

// fix builds what stays fixed between compactions, where it is not built
// yet: the tool list, the system prompt and the cache key; callers hold mu.
func (h *Handle) fix() {
	if h.ctx.tools == nil {
		h.ctx.tools = h.st.runTools(h.opts.ToolLimit, h.opts.Task, false, h.ctx.only)
	}
	if h.messages[0].Text == "" {
		h.messages[0] = llm.SystemMessage(h.st.systemPrompt(h.opts, h.ctx.starting))
	}
	if h.ctx.cacheKey == "" {
		h.ctx.cacheKey = cacheKeyOf(h.ctx.tools, h.messages[0].Text)
	}
}

// cacheKeyOf names the prompt cache of requests that begin with tools and
// the system prompt system: "byref-" and 16 hex digits of their SHA-256.
func cacheKeyOf(tools []llm.Tool, system string) string {
	d := sha256.New()
	for _, t := range tools {
		fmt.Fprintf(d, "%s\x00%s\x00%s\x00%t\x00", t.Name, t.Description, t.Parameters, t.Strict)
	}
	d.Write([]byte(system))
	return "byref-" + hex.EncodeToString(d.Sum(nil)[:8])
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

// sentSystem is the system prompt a run's log says its first model call
// was sent, or "" (the run has not called its model: the prompt is built
// from the starting variables as they are).
func sentSystem(events []run.Event) string {
	for _, e := range events {
		if u, ok := e.Data.(run.Usage); ok && u.System != "" {
			return u.System
		}
	}
	return ""
}

// sentUsage is the log's record of the model call just made: its usage,
// and on the run's first call the system prompt it was sent.
func (h *Handle) sentUsage(u llm.Usage) run.Usage {
	e := usageEvent(u)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.steps == 1 {
		e.System = h.messages[0].Text // what a restored run sends again
	}
	return e
}

// usageOf is usageEvent's inverse: a run's usage from its log's totals.
func usageOf(u run.Usage) llm.Usage {
	return llm.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
		CacheReadTokens: int(u.CacheReadTokens), CacheWriteTokens: int(u.CacheWriteTokens),
		ReasoningTokens: int(u.ReasoningTokens), Cost: u.Cost}
}

// compactedTools returns the tools the log's last compaction chose, or nil.
func compactedTools(events []run.Event) []string {
	for i := len(events) - 1; i >= 0; i-- {
		if c, ok := events[i].Data.(run.ContextCompacted); ok {
			return c.Tools
		}
	}
	return nil
}

// cost is what u cost at the price of the run's model, or 0.
func (h *Handle) cost(u llm.Usage) float64 {
	if h.rt == nil {
		return 0
	}
	p, ok := h.rt.opts.Prices[h.opts.ModelName]
	if !ok {
		return 0
	}
	return p.Cost(u)
}

// announceHostVariables returns the text of a follow-up message: text,
// then the variables the host defined since the model last heard of its
// variables (neither starting variables nor made by a step), with their
// types and previews, since nothing earlier in the context may be
// rewritten to name them; and their events for the log, which a restored
// run reads them back from. Callers hold h.mu.
func (h *Handle) announceHostVariables(text string) (string, []run.Payload) {
	starting := map[string]bool{}
	for _, n := range h.ctx.starting {
		starting[n] = true
	}
	st := h.st
	st.mu.Lock()
	defer st.mu.Unlock()
	var names []string
	for _, n := range st.vars.Names() {
		v, _ := st.vars.Head(n)
		if starting[n] || h.ctx.announced[n] || len(v.History) == 0 || v.History[0].By != "host" {
			continue
		}
		if h.ctx.announced == nil {
			h.ctx.announced = map[string]bool{}
		}
		h.ctx.announced[n] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n\nNew variables:")
	for _, n := range names {
		b.WriteString("\n- ")
		st.writeVariable(&b, n)
	}
	return b.String(), st.variableEvents(names, true)
}
