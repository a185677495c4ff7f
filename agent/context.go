package agent

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
// the run compacts once (window.go), and is append-only again after. used
// is what the model's summary of a compaction cost, if it wrote one.
func (c *conversation) request(ctx context.Context, lim Limits) (req llm.Request, used llm.Usage, err error) {
	tools, key := c.fix()
	msgs, head := c.sent()
	tokens := estimateRequest(tools, msgs)
	// A compaction folds what follows the head (system prompt, session
	// history, task); when the tools and the head alone pass the
	// threshold, it could not bring the request under it, and is not
	// tried.
	if tokens > lim.CompactAt && len(msgs) > head+1 && estimateRequest(tools, msgs[:head]) < lim.CompactAt {
		if used, err = c.compact(ctx, msgs, head, tokens, lim.CompactAt, lim.ModelSummary); err != nil {
			return llm.Request{}, used, err
		}
		tools, key = c.fix()
		msgs, _ = c.sent()
	}
	return llm.Request{Tools: tools, Messages: clipMessages(msgs, c.st.opts.MaxMessage), CacheKey: key}, used, nil
}

// fix builds what stays fixed between compactions, where it is not built
// yet: the tool list, the system prompt and the cache key; it returns the
// tools and the key.
func (c *conversation) fix() ([]llm.Tool, string) {
	c.mu.Lock()
	tools, only, starting := c.t.tools, c.t.only, c.t.starting
	c.mu.Unlock()
	if tools == nil {
		tools = c.st.runTools(c.opts.ToolLimit, c.opts.Task, false, only)
	}
	system := c.system("")
	if system == "" {
		system = c.system(c.st.systemPrompt(*c.opts, starting))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.tools == nil {
		c.t.tools = tools
	}
	if c.t.cacheKey == "" {
		c.t.cacheKey = cacheKeyOf(c.t.tools, system)
	}
	return c.t.tools, c.t.cacheKey
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

// usage is the log's record of the model call just made: its usage, and
// on the run's first call the system prompt it was sent (what a restored
// run sends again).
func (c *conversation) usage(u llm.Usage) run.Usage {
	e := usageEvent(u)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.calls == 0 {
		e.System = c.t.system("")
	}
	return e
}

// announce returns the text of a follow-up message: text,
// then the variables the host defined since the model last heard of its
// variables (neither starting variables nor made by a step), with their
// types and previews, since nothing earlier in the context may be
// rewritten to name them; and their events for the log, which a restored
// run reads them back from.
func (c *conversation) announce(text string) (string, []run.Payload) {
	c.mu.Lock()
	defer c.mu.Unlock()
	starting := map[string]bool{}
	for _, n := range c.t.starting {
		starting[n] = true
	}
	st := c.st
	st.mu.Lock()
	defer st.mu.Unlock()
	var names []string
	for _, n := range st.s.vars.Names() {
		v, _ := st.s.vars.Head(n)
		if starting[n] || c.t.announced[n] || len(v.History) == 0 || v.History[0].By != "host" {
			continue
		}
		if c.t.announced == nil {
			c.t.announced = map[string]bool{}
		}
		c.t.announced[n] = true
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
		st.s.writeVariable(&b, n)
	}
	return b.String(), st.s.variableEvents(names, true)
}
