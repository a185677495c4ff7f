package run

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Tool describes a function the model may call: an action, as the model is
// offered it. Package schema builds it (schema.Tool) and package llm sends
// it (llm.Tool): Tool and [ToolCall] are declared here, in the package the
// others may all import (it needs only the standard library), so that the
// schemas, the model interface, the runtime and the log share one type
// each and never copy one into another.
type Tool struct {
	// Name is the tool's name, unique in a request. Providers accept
	// [a-zA-Z0-9_-] and at most 64 characters.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters is a JSON Schema object describing the arguments. Empty means
	// a tool without parameters ({"type":"object","properties":{}}).
	Parameters json.RawMessage
	// Strict asks providers that support it (OpenAI) to guarantee that the
	// arguments validate against Parameters; others ignore it.
	Strict bool
}

// ToolCall is the model's request to call a tool, from the provider's
// answer to the run's log: a model returns it (llm.Response.ToolCalls), a
// step executes it, and [ToolCallScheduled] records it.
type ToolCall struct {
	// ID identifies the call within the conversation (and the run); the
	// tool result names it in llm.Message.ToolCallID.
	ID string `json:"id"`
	// Name is the tool's name: the action called. The log records it as
	// "action".
	Name string `json:"action"`
	// Arguments is the JSON object of arguments, as text, as the model sent
	// it: it may be invalid JSON (callers validate it), and references are
	// still in their <<var:name>> form.
	Arguments string `json:"arguments,omitempty"`
	// References maps each parameter given a reference to the variable it
	// resolved to. The runtime sets it where a person sees the call (an
	// await); a model neither sends nor reads it.
	References map[string]VariableRef `json:"references,omitempty"`
	// Signature is the provider's thought signature for the call (Gemini 3
	// through its OpenAI-compatible endpoint, extra_content.google.
	// thought_signature), sent back with the call on the next turn as
	// Google's documentation requires; empty for other providers.
	Signature string `json:"signature,omitempty"`
}

// DescribeReferences writes what the call's references resolved to, one
// line per parameter in name order, as a person approving it reads them:
// `  to = <<var:top>> (shop.Customer): Customer{Email: "ann@example.com"}`.
// It is "" for a call without references.
func (c ToolCall) DescribeReferences() string {
	params := make([]string, 0, len(c.References))
	for p := range c.References {
		params = append(params, p)
	}
	sort.Strings(params)
	var b strings.Builder
	for _, p := range params {
		r := c.References[p]
		fmt.Fprintf(&b, "  %s = <<var:%s>> (%s)", p, r.Variable, r.Type)
		if r.Preview != "" {
			fmt.Fprintf(&b, ": %s", r.Preview)
		}
		b.WriteString("\n")
	}
	return b.String()
}
