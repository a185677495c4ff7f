package runtime

import (
	"cmp"
	"strings"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// conversation is what a run's model is sent: the fold of the run's log.
// One method, apply, maps a logged event to its effect on the messages
// (the system prompt, the task and follow-ups with the host variables they
// announce, the model's answers and the calls they scheduled, tool and
// snippet results, refusals and invalid-result answers, compactions). A
// live run applies each event as its recorder appends it; Restore applies
// the same method to the events it reads, so a restored run sends what a
// live one would. Each event is applied once: the fold is never a re-read
// of the log. Nothing else writes the messages (internal/archtest checks):
// the one input that is not in the log yet, the system prompt of a run
// that has not called its model, is filled by system, and recorded with
// the first call (run.Usage.System).
type conversation struct {
	mu sync.Mutex
	// messages are the system prompt, the session's history, the task,
	// then what the log's events added.
	messages []llm.Message
	// head is how many messages a compaction keeps (the system prompt,
	// the session's history and the task); 0 until the task is applied.
	head int
	// large is the run's Limits.LargeResult: a result longer than it was
	// kept as a variable and is sent cut (sentTool).
	large int
	// open says the last message is the model's answer being folded:
	// its text and the calls it scheduled follow its usage in the log.
	open bool
	// scheduled are the calls of the model's latest answer, which name
	// the results that answer them.
	scheduled []ToolCall
	// snippets are the results of the latest step's snippets, sent as one
	// message after the step's tool results: the next event that adds a
	// message adds it first, and sent shows it.
	snippets []string
}

// newConversation is the conversation of a run that has logged nothing:
// an empty system prompt (system fills it, or the log's first model call
// records it) and the session's history; the task is the log's first
// user message.
func newConversation(history []llm.Message, large int) *conversation {
	return &conversation{messages: append([]llm.Message{llm.SystemMessage("")}, history...), large: large}
}

// fold applies events, in order.
func (c *conversation) fold(events []run.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range events {
		c.apply(e.Data)
	}
}

// apply applies one logged event to the messages; callers hold mu.
func (c *conversation) apply(p run.Payload) {
	switch p := p.(type) {
	case run.UserMessage: // the task, a follow-up with its announcements
		c.add(llm.UserMessage(cmp.Or(p.Sent, p.Text)))
		if c.head == 0 {
			c.head = len(c.messages)
		}
	case run.Usage: // a model call: its answer follows
		if p.System != "" {
			c.messages[0] = llm.SystemMessage(p.System)
		}
		c.add(llm.Message{Role: llm.RoleAssistant})
		c.open, c.scheduled = true, nil
	case run.AssistantMessage:
		m := c.answer()
		m.Text = p.Text
		m.Thinking = append(m.Thinking, p.Thinking...)
	case run.ToolCallScheduled:
		m := c.answer()
		m.ToolCalls = append(m.ToolCalls, p.Call)
		c.scheduled = append(c.scheduled, p.Call)
	case run.ToolCallCompleted:
		c.open = false
		c.messages = append(c.messages, llm.ToolResultMessage(llm.ToolCall{ID: p.CallID, Name: c.callName(p.CallID)}, sentTool(p, c.large)))
	case run.SnippetExecuted:
		c.snippets = append(c.snippets, sentSnippet(p, c.large))
	case run.Error: // told to the model: a refused step, an invalid result
		if p.Sent == "" {
			return
		}
		if len(p.Refused) == 0 {
			c.add(llm.UserMessage(p.Sent))
			return
		}
		c.open = false
		for _, id := range p.Refused {
			c.messages = append(c.messages, llm.ToolResultMessage(llm.ToolCall{ID: id, Name: c.callName(id)}, refusedContent(p.Sent)))
		}
	case run.ContextCompacted: // the summary replaces what follows the head
		c.messages = append(c.messages[:c.head:c.head], llm.UserMessage(p.Summary))
		c.open, c.snippets = false, nil
	}
}

// add appends m after the pending snippet results, if any; callers hold
// mu (through apply).
func (c *conversation) add(m llm.Message) {
	if len(c.snippets) > 0 {
		c.messages = append(c.messages, snippetResults(c.snippets))
		c.snippets = nil
	}
	c.messages = append(c.messages, m)
	c.open = false
}

// answer returns the model's answer being folded, opening one if the log
// has none open; callers hold mu (through apply).
func (c *conversation) answer() *llm.Message {
	if !c.open {
		c.add(llm.Message{Role: llm.RoleAssistant})
		c.open = true
	}
	return &c.messages[len(c.messages)-1]
}

// callName is the name of the call id among the latest answer's, or "".
func (c *conversation) callName(id string) string {
	for _, s := range c.scheduled {
		if s.ID == id {
			return s.Name
		}
	}
	return ""
}

// snippetResults is the message that gives the model a step's snippet
// results.
func snippetResults(parts []string) llm.Message {
	return llm.UserMessage("Results of your Go code:\n" + strings.Join(parts, "\n"))
}

// system returns the system prompt, filled with fill first if the log has
// none yet (a run before its first model call) and fill is not empty.
func (c *conversation) system(fill string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.messages[0].Text == "" {
		c.messages[0] = llm.SystemMessage(fill)
	}
	return c.messages[0].Text
}

// begun reports whether the task is in the conversation.
func (c *conversation) begun() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head > 0
}

// sent returns a copy of the messages as the next request sends them, and
// how many of them a compaction keeps.
func (c *conversation) sent() (msgs []llm.Message, head int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs = make([]llm.Message, len(c.messages), len(c.messages)+1)
	copy(msgs, c.messages)
	if len(c.snippets) > 0 {
		msgs = append(msgs, snippetResults(c.snippets))
	}
	return msgs, c.head
}
