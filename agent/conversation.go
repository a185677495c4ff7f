package agent

import (
	"cmp"
	"strings"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// conversation is what a run's model is sent: the fold of the run's log.
// One method, its transcript's apply, maps a logged event to its effect on
// the messages (the system prompt, the task and follow-ups with the host
// variables they announce, the model's answers and the calls they
// scheduled, tool and snippet results, refusals and invalid-result
// answers, compactions). A
// live run applies each event as its recorder appends it; Restore applies
// the same method to the events it reads, so a restored run sends what a
// live one would. Each event is applied once: the fold is never a re-read
// of the log. Nothing else writes the messages (internal/archtest checks):
// the one input that is not in the log yet, the system prompt of a run
// that has not called its model, is filled by system, and recorded with
// the first call (run.Usage.System).
type conversation struct {
	mu sync.Mutex
	t  transcript // guarded by mu

	// What the conversation is built with: the run's executor (its
	// variables and tools), options, model (for a compaction's summary)
	// and recorder (where its compactions are recorded). Fixed once the
	// run is made.
	st    *State
	opts  *RunOptions
	model llm.Model
	rec   *recorder
}

// transcript is what a conversation folds and keeps, which its lock
// guards: the messages, what the next event applies to, and what the
// run's requests keep fixed between compactions.
type transcript struct {
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
	// calls counts the model calls the log records.
	calls int
	// starting names the run's starting variables (created at step 0,
	// before the first model call), which the system prompt lists; later
	// variables are announced where they are made.
	starting []string
	// only names the tools the last compaction chose (nil: choose from
	// the task), so that a restored run offers the same ones.
	only []string

	// What the run's requests keep fixed between compactions, so that each
	// begins with the previous one byte for byte (tools, system prompt,
	// then messages) and a provider's prompt cache serves it (context.go).
	//
	// tools is the run's tool list, built at its first request and again
	// only after a compaction; nil until then.
	tools []llm.Tool
	// cacheKey is the request's llm.Request.CacheKey: derived from what
	// the run's requests begin with (the tools and the system prompt), so
	// that the runs of one agent, which begin alike, share it.
	cacheKey string
	// announced names the variables the host defined between turns that
	// a follow-up message announced already.
	announced map[string]bool
}

// newConversation is the conversation of a run that has logged nothing:
// an empty system prompt (system fills it, or the log's first model call
// records it) and the session's history; the task is the log's first
// user message.
func newConversation(history []llm.Message, large int) *conversation {
	return &conversation{t: transcript{messages: append([]llm.Message{llm.SystemMessage("")}, history...), large: large}}
}

// fold applies events, in order.
func (c *conversation) fold(events []run.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range events {
		c.t.apply(e.Payload)
	}
}

// apply applies one logged event to the transcript.
func (t *transcript) apply(p run.Payload) {
	switch p := p.(type) {
	case run.UserMessage: // the task, a follow-up with its announcements
		t.add(llm.UserMessage(cmp.Or(p.Sent, p.Text)))
		if t.head == 0 {
			t.head = len(t.messages)
		}
	case run.VariableCreated:
		if p.Step == 0 && t.calls == 0 {
			t.starting = append(t.starting, p.Variable.Name)
		}
	case run.Usage: // a model call: its answer follows
		if p.System != "" {
			t.messages[0] = llm.SystemMessage(p.System)
		}
		t.calls++
		t.add(llm.Message{Role: llm.RoleAssistant})
		t.open, t.scheduled = true, nil
	case run.AssistantMessage:
		m := t.answer()
		m.Text = p.Text
		m.Thinking = append(m.Thinking, p.Thinking...)
	case run.ToolCallScheduled:
		m := t.answer()
		m.ToolCalls = append(m.ToolCalls, p.Call)
		t.scheduled = append(t.scheduled, p.Call)
	case run.ToolCallCompleted:
		t.open = false
		t.messages = append(t.messages, llm.ToolResultMessage(llm.ToolCall{ID: p.CallID, Name: t.callName(p.CallID)}, sentTool(p, t.large)))
	case run.SnippetExecuted:
		t.snippets = append(t.snippets, sentSnippet(p, t.large))
	case run.Error: // told to the model: a refused step, an invalid result
		if p.Sent == "" {
			return
		}
		if len(p.Refused) == 0 {
			t.add(llm.UserMessage(p.Sent))
			return
		}
		t.open = false
		for _, id := range p.Refused {
			t.messages = append(t.messages, llm.ToolResultMessage(llm.ToolCall{ID: id, Name: t.callName(id)}, refusedContent(p.Sent)))
		}
	case run.ContextCompacted: // the summary replaces what follows the head
		t.messages = append(t.messages[:t.head:t.head], llm.UserMessage(p.Summary))
		t.open, t.snippets = false, nil
		t.tools, t.only = nil, p.Tools // chosen again
	}
}

// add appends m after the pending snippet results, if any.
func (t *transcript) add(m llm.Message) {
	if len(t.snippets) > 0 {
		t.messages = append(t.messages, snippetResults(t.snippets))
		t.snippets = nil
	}
	t.messages = append(t.messages, m)
	t.open = false
}

// answer returns the model's answer being folded, opening one if the log
// has none open.
func (t *transcript) answer() *llm.Message {
	if !t.open {
		t.add(llm.Message{Role: llm.RoleAssistant})
		t.open = true
	}
	return &t.messages[len(t.messages)-1]
}

// callName is the name of the call id among the latest answer's, or "".
func (t *transcript) callName(id string) string {
	for _, s := range t.scheduled {
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
	return c.t.system(fill)
}

// system is conversation.system, on the transcript.
func (t *transcript) system(fill string) string {
	if t.messages[0].Text == "" {
		t.messages[0] = llm.SystemMessage(fill)
	}
	return t.messages[0].Text
}

// begun reports whether the task is in the conversation.
func (c *conversation) begun() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.head > 0
}

// sent returns a copy of the messages as the next request sends them, and
// how many of them a compaction keeps.
func (c *conversation) sent() (msgs []llm.Message, head int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.sent(), c.t.head
}

// sent is conversation.sent, on the transcript: its messages then the
// pending snippet results.
func (t *transcript) sent() []llm.Message {
	msgs := make([]llm.Message, len(t.messages), len(t.messages)+1)
	copy(msgs, t.messages)
	if len(t.snippets) > 0 {
		msgs = append(msgs, snippetResults(t.snippets))
	}
	return msgs
}

// refusedContent is the tool message that answers a call that was not run.
func refusedContent(why string) string {
	b, _ := marshal(toolContent{Success: false, Error: why})
	return string(b)
}
