package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/internal/toolschema"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// Tool is a tool the front end offers (RunAgentInput.tools): the run may
// call it, and the front end runs it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ContextItem is a piece of context the front end gives the agent
// (RunAgentInput.context).
type ContextItem struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// clientCallPrefix starts the message of the await of a call the front
// end runs; the call's arguments, references resolved, follow it as JSON.
const clientCallPrefix = "the client runs this call (an AG-UI front-end tool) and answers with its result; the arguments: "

// clientActions turns the front end's tools into actions of the run whose
// execution belongs to the front end: their arguments are validated
// against the tool's schema and may be references, as any action's; a
// call awaits input (the await's message says the client runs it, with
// the arguments resolved), and the input given (the front end's tool
// message) is the call's result.
func clientActions(tools []Tool) ([]*action.Action, error) {
	var out []*action.Action
	for _, t := range tools {
		a, err := toolschema.Client(t.Name, t.Description, t.Parameters, func(args []byte) string { return clientCallPrefix + string(args) })
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// clientCall returns the call an await leaves to the front end, with its
// arguments resolved, and whether it is one. The log says so, whatever
// tools the request that reads it sends.
func clientCall(a run.AwaitRequested) (run.ToolCall, bool) {
	args, ok := strings.CutPrefix(a.Message, clientCallPrefix)
	if a.Await != run.AwaitInput || a.Call == nil || !ok {
		return run.ToolCall{}, false
	}
	c := *a.Call
	c.Arguments = args
	return c, true
}

// contextText is the front end's context as a part of the task.
func contextText(items []ContextItem) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nContext from the user's application:")
	for _, c := range items {
		fmt.Fprintf(&b, "\n- %s: %s", c.Description, c.Value)
	}
	return b.String()
}

// answerTool answers, with the front end's tool message m, the call of an
// awaiting run of the thread that the front end runs, and returns the
// run's ID and the sequence number its stream goes on from.
func (s *Server) answerTool(ctx context.Context, agent, thread string, m Message) (run.ID, int64, int, error) {
	runs, _, err := s.srv.Store().List(ctx, run.Query{Session: run.SessionID(thread), Statuses: []run.Status{run.StatusAwaiting},
		Tags: map[string]string{server.TagAgent: agent}})
	if err != nil {
		s.log.Error("agui: listing a thread's runs", "thread", thread, "err", err)
		return "", 0, http.StatusInternalServerError, errors.New("reading the thread failed; the server's log has the details")
	}
	for _, sum := range runs {
		c, err := s.srv.Control(ctx, sum.ID)
		if err != nil || c == nil {
			continue
		}
		pending, ok := c.Pending()
		if !ok || pending.Await != run.AwaitInput || pending.Call == nil || pending.Call.ID != m.ToolCallID {
			continue
		}
		result, _ := json.Marshal(m.text())
		sent, _ := json.Marshal(m)
		if err := c.Resume(ctx, pending.ID, run.Answer{Input: result, Message: sent}); err != nil {
			return "", 0, http.StatusConflict, err
		}
		return sum.ID, sum.LastSeq + 1, 0, nil
	}
	return "", 0, http.StatusConflict, fmt.Errorf("no run of thread %s awaits the result of tool call %s (any more)", thread, m.ToolCallID)
}
