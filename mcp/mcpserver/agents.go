package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// An agent served as a tool runs a whole run per call. When the run
// awaits (an approval, a question, input, an authorization), the call
// answers with an input request (MCP's multi round-trip: an elicitation,
// which the SDK sends as a request during the call to clients of older
// protocol versions): the client asks its user, and calls again with the
// answer and the request state, which resumes the run where it waits. A
// declined or cancelled elicitation cancels the run.

// awaitInput is the ID of the input request of a run's await.
const awaitInput = "await"

// agentRun is a run of an agent tool: its handle, and the statuses it
// stops in (awaiting, or its end), as its status hook reports them.
type agentRun struct {
	h     *agent.Handle
	stops chan run.Status
}

// agentHandler serves an agent as a tool (see above).
func (s *Server) agentHandler(spec agent.Child) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var ar *agentRun
		if state := req.Params.RequestState; state != "" {
			s.mu.Lock()
			ar = s.awaiting[state]
			delete(s.awaiting, state)
			s.mu.Unlock()
			if ar == nil {
				return textError("the requestState names no run of " + spec.Name + " that awaits an answer: it was answered, or has ended; call the tool again without it"), nil
			}
			res, _ := req.Params.InputResponses[awaitInput].(*sdk.ElicitResult)
			pending, ok := ar.h.Pending()
			if !ok {
				return textError("the run of " + spec.Name + " no longer awaits an answer"), nil
			}
			answer, err := answerOf(pending, res)
			if err != nil {
				_ = ar.h.Cancel(context.WithoutCancel(ctx))
				return textError(err.Error()), nil
			}
			if err := ar.h.Resume(ctx, pending.ID, answer); err != nil {
				return textError(fmt.Sprintf("answering the run of %s: %v", spec.Name, err)), nil
			}
		} else {
			var in struct {
				Task string `json:"task"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Task) == "" {
				return textError(`the arguments must be {"task": "..."}: what the agent should do`), nil
			}
			ar = &agentRun{stops: make(chan run.Status, 64)}
			opts := spec.Run
			opts.Task = in.Task // interactive unless the template says not: it may ask
			if opts.Name == "" {
				opts.Name = spec.Name
			}
			hook := opts.OnStatus
			opts.OnStatus = func(sc run.StatusChanged) {
				if hook != nil {
					hook(sc)
				}
				if sc.To == run.StatusAwaiting || sc.To.Terminal() {
					select {
					case ar.stops <- sc.To:
					default:
					}
				}
			}
			h, err := spec.Agent.Start(ctx, opts)
			if err != nil {
				return textError(fmt.Sprintf("starting agent %s: %v", spec.Name, err)), nil
			}
			ar.h = h
		}
		select {
		case st := <-ar.stops:
			if st == run.StatusAwaiting {
				pending, ok := ar.h.Pending()
				if ok {
					var b [16]byte
					_, _ = rand.Read(b[:])
					state := hex.EncodeToString(b[:])
					s.mu.Lock()
					s.awaiting[state] = ar
					s.mu.Unlock()
					return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{awaitInput: elicitation(spec.Name, pending)}, RequestState: state}, nil
				}
			}
		case <-ctx.Done():
			// The client cancelled the call: the run is cancelled too.
			_ = ar.h.Cancel(context.WithoutCancel(ctx))
			return nil, ctx.Err()
		}
		o, err := ar.h.Wait(ctx)
		if err != nil {
			return nil, err
		}
		if o.Status != run.StatusCompleted || !o.OK() {
			return textError(fmt.Sprintf("agent %s %s: %s", spec.Name, o.Status, o.Reason)), nil
		}
		return result(agent.ToolResponse{Result: o.Result}), nil
	}
}

func textError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// elicitation is the input request of an await: a form whose one or two
// fields are the answer, or, for an authorization, the link to visit.
func elicitation(agentName string, a run.AwaitRequested) *sdk.ElicitParams {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	form := func(msg string, props map[string]any, required ...string) *sdk.ElicitParams {
		return &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": props, "required": required}}
	}
	switch a.Await {
	case run.AwaitApproval:
		msg := a.Message
		switch {
		case a.Call != nil:
			msg = fmt.Sprintf("Agent %s asks to call %s(%s).\n%sApprove?", agentName, a.Call.Name, a.Call.Arguments, a.Call.DescribeReferences())
		case a.Snippet != nil:
			msg = fmt.Sprintf("Agent %s asks to run this Go code:\n\n%s\n\nApprove?", agentName, strings.TrimSpace(a.Snippet.Code))
		case msg == "":
			msg = "Agent " + agentName + " asks for approval."
		}
		return form(msg, map[string]any{
			"decision": map[string]any{"type": "string", "enum": []string{"approve", "deny"}, "description": "approve or deny"},
			"reason":   str("why, when denied"),
		}, "decision")
	case run.AwaitAuthorization:
		return &sdk.ElicitParams{Mode: "url", Message: a.Message, URL: a.Link, ElicitationID: a.ID}
	case run.AwaitInput:
		return form(a.Message, map[string]any{"input": str("the input, as JSON")}, "input")
	}
	return form(a.Message, map[string]any{"answer": str("your answer")}, "answer")
}

// answerOf maps the client's answer onto the await's: accept with the
// form's fields; decline or cancel is an error (the run is cancelled).
func answerOf(a run.AwaitRequested, res *sdk.ElicitResult) (run.Answer, error) {
	if res == nil || res.Action != "accept" {
		action := "no answer"
		if res != nil {
			action = res.Action
		}
		return run.Answer{}, fmt.Errorf("the user gave %s to what the agent asked (%s), so its run was cancelled", action, a.Await)
	}
	field := func(name string) string {
		s, _ := res.Content[name].(string)
		return s
	}
	switch a.Await {
	case run.AwaitApproval:
		if strings.EqualFold(field("decision"), "approve") {
			return run.Answer{Decision: run.Approved}, nil
		}
		return run.Answer{Decision: run.Denied, Reason: field("reason")}, nil
	case run.AwaitAuthorization:
		return run.Answer{Decision: run.Approved}, nil
	case run.AwaitInput:
		in := field("input")
		if !json.Valid([]byte(in)) {
			b, _ := json.Marshal(in)
			in = string(b)
		}
		return run.Answer{Input: json.RawMessage(in)}, nil
	}
	text := field("answer")
	if text == "" {
		text = "(no answer)"
	}
	return run.Answer{Text: text}, nil
}
