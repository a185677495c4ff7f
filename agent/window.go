package agent

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// estimateTokens is a cheap estimate of a message's tokens: four characters
// a token, plus a few for the message's envelope.
func estimateTokens(m llm.Message) int {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n/4 + 4
}

// estimateRequest estimates the tokens of a request of tools and msgs.
func estimateRequest(tools []llm.Tool, msgs []llm.Message) int {
	n := 0
	for _, t := range tools {
		n += (len(t.Name) + len(t.Description) + len(t.Parameters)) / 4
	}
	for _, m := range msgs {
		n += estimateTokens(m)
	}
	return n
}

// compaction limits: a preview in the summary is one line of at most
// summaryPreview characters, and a call's arguments at most summaryArgs.
const (
	summaryPreview = 80
	summaryArgs    = 160
	summaryUser    = 600
)

// compact replaces every message after the task with a summary the
// runtime writes from the run's log, once the next request would pass
// threshold tokens: each earlier step's calls and snippets with the
// variables they made, by reference with a one-line preview. The values
// stay in the run's variables, so the model can still pass any of them by
// reference. The compaction is recorded (run.ContextCompacted) so that a
// restored run rebuilds the same conversation; relevance selection, if
// on, chooses the tools again. From here the context is append-only again.
func (c *conversation) compact(ctx context.Context, msgs []llm.Message, head, tokens, threshold int, byModel bool) (used llm.Usage, err error) {
	events, err := c.rec.store.Read(ctx, c.rec.id, 1, 0)
	if err != nil {
		return used, err
	}
	summary, step := summarize(events, threshold)
	var usage *run.Usage
	if byModel {
		if text, u, called := c.modelSummary(ctx, msgs, threshold); called {
			usage, used = &u, usageOf(u)
			if text != "" {
				summary += "\n\nYour own summary of those steps:\n" + text
			}
		}
	}
	var tools []string
	if c.opts.ToolLimit > 0 {
		for _, t := range c.st.runTools(c.opts.ToolLimit, c.opts.Task+" "+summary, true, nil) {
			tools = append(tools, t.Name)
		}
	}
	e := run.ContextCompacted{Step: step, Messages: len(msgs) - head, Tokens: tokens, Threshold: threshold, Summary: summary, Tools: tools, Usage: usage}
	return used, c.rec.append(ctx, e) // which the conversation applies
}

// summaryRequest is what the model is asked for a summary with.
const summaryRequest = "The conversation is about to be compacted to fit your context window: the messages after the task will be replaced by a list of the steps and the variables they made. In a few sentences, write what that list will not say: what you learned, what you decided and what is left to do. Answer with the summary only."

// modelSummary asks the model for a summary of the conversation, without
// tools; called is false when the call failed (the runtime's summary then
// stands alone, as it does when the model says nothing).
func (c *conversation) modelSummary(ctx context.Context, sent []llm.Message, threshold int) (text string, u run.Usage, called bool) {
	msgs := append(clipMessages(sent, c.st.opts.MaxMessage), llm.UserMessage(summaryRequest))
	resp, err := c.model.Generate(ctx, llm.Request{Messages: msgs})
	if err != nil {
		c.st.log().Warn("agent: the model's summary failed; the compaction keeps the runtime's", "run", string(c.rec.id), "err", err)
		return "", run.Usage{}, false
	}
	return clip(strings.TrimSpace(resp.Text), threshold), usageEvent(resp.Usage), true
}

// summarize writes the summary of a run's log that a compaction puts in
// place of the conversation, and returns it with the last step it covers.
// It is bounded by a quarter of threshold tokens: past that, the oldest
// steps are named by the variables they made only.
func summarize(events []run.Event, threshold int) (string, int) {
	lines, made, step := summaryLines(events)
	return summaryText(lines, made, step, threshold), step
}

// summaryLines are the lines of a compaction's summary, one per user
// message (after the task), tool call and snippet, with the references
// each line's step made (made) and the last step covered.
func summaryLines(events []run.Event) (lines []string, made [][]string, step int) {
	type call struct {
		name, args string
		step       int
	}
	calls := map[string]call{}
	users := 0
	add := func(line string, refs []string) {
		lines = append(lines, line)
		made = append(made, refs)
	}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.UserMessage:
			if users++; users > 1 {
				add("- the user: "+oneLine(p.Text, summaryUser), nil)
			}
		case run.ToolCallScheduled:
			step = max(step, p.Step)
			calls[p.Call.ID] = call{p.Call.Name, p.Call.Arguments, p.Step}
		case run.ToolCallCompleted:
			c := calls[p.CallID]
			add(summaryLine(fmt.Sprintf("- step %d: %s %s", c.step, c.name, oneLine(c.args, summaryArgs)),
				p.Success, p.Error, p.Stdout, p.Created, p.Modified))
		case run.SnippetExecuted:
			step = max(step, p.Step)
			add(summaryLine(fmt.Sprintf("- step %d: Go code %s", p.Step, oneLine(p.Snippet.Code, summaryArgs)),
				p.Success, p.Error, p.Stdout, p.Created, p.Modified))
		case run.AssistantMessage:
			step = max(step, p.Step)
		}
	}
	return lines, made, step
}

// summaryVars writes the variables a step made and changed to b, and
// summaryLine is a compaction summary's line for a call or a snippet that
// head begins: whether it failed, the variables it made or changed, what it
// printed; it returns the line and the variables it names.
func summaryLine(head string, success bool, errText, stdout string, created, modified []run.VariableInfo) (string, []string) {
	var b strings.Builder
	b.WriteString(head)
	if !success {
		b.WriteString(" failed: " + oneLine(errText, summaryPreview))
	}
	refs := summaryVars(&b, created, modified)
	if stdout != "" {
		b.WriteString("; printed: " + oneLine(stdout, summaryPreview))
	}
	return b.String(), refs
}

// returns their references.
func summaryVars(b *strings.Builder, created, modified []run.VariableInfo) []string {
	var refs []string
	for i, v := range append(created, modified...) {
		what := "made"
		if i >= len(created) {
			what = "changed"
		}
		fmt.Fprintf(b, "; %s %s (%s): %s", what, schema.Ref(v.Name), v.Type, oneLine(v.Preview, summaryPreview))
		refs = append(refs, schema.Ref(v.Name)+" ("+v.Type+")")
	}
	return refs
}

// summaryText joins a summary's lines under its intro, within a quarter of
// threshold tokens: past that, the oldest lines give way to the references
// they made.
func summaryText(lines []string, made [][]string, step, threshold int) string {
	intro := fmt.Sprintf("Steps 1 to %d were compacted to keep the conversation within the model's window. Their results are still in the variables below: pass any of them by reference, or read them in Go code.", step)
	limit := threshold // characters: a quarter of threshold tokens
	total := len(intro)
	for _, l := range lines {
		total += len(l) + 1
	}
	// Past the limit, the oldest lines give way to the names they made.
	cut := 0
	for cut < len(lines) && total > limit/2 {
		total -= len(lines[cut]) + 1
		cut++
	}
	var b strings.Builder
	b.WriteString(intro)
	if cut > 0 {
		var names []string
		for _, refs := range made[:cut] {
			names = append(names, refs...)
		}
		b.WriteString("\nEarlier steps made:")
		n := 0
		for _, name := range names {
			if b.Len() > limit/2 {
				fmt.Fprintf(&b, " and %d more", len(names)-n)
				break
			}
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" " + name)
			n++
		}
		b.WriteByte('.')
	}
	for _, l := range lines[cut:] {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return b.String()
}

// oneLine is s on one line, cut to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
