package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// Options configures New. Actions or Agents must offer at least one tool.
type Options struct {
	// Name is the server's name in the MCP handshake. Empty means "byref".
	Name string
	// Instructions are sent to clients in the handshake. Optional.
	Instructions string
	// Actions are served as tools, each with its plain-mode schema (the
	// schema a model sees with agent.Options.HideFromAI): raw JSON values
	// only. Actions with a parameter that takes references only cannot be
	// called without variables, so they are left out (Skipped lists them).
	Actions *action.Set
	// Agent configures the agent the server's tools run on (one, shared);
	// each call executes on a fresh agent.State of it, so calls are
	// independent and may run concurrently. Its Variables, CallTimeout,
	// MaxOutput, Logger and Tracer apply; the server sets Actions and
	// HideFromAI.
	Agent agent.Options
	// Agents are served as tools that take a task and return the result of
	// a whole run (the schema of agent.AsAction). Each call runs a
	// run on Child.Agent (it may ask its user questions unless
	// Child.Run.NonInteractive). What the run awaits (an
	// approval, a question, input, an authorization) is asked of the
	// client by elicitation, and its answer resumes the run (see
	// agents.go); a run whose client never answers waits until its
	// RunOptions.AwaitTimeout, so set one.
	Agents []agent.Child
	// Logger receives the server's logs: tool calls at Debug and failed
	// calls at Info. Nil means no logs.
	Logger *slog.Logger
}

// Server serves byref actions and agents over MCP. It is safe for
// concurrent use; one Server can serve any number of sessions, over stdio
// (Run) and streamable HTTP (Handler).
type Server struct {
	srv     *sdk.Server
	tools   []string
	skipped []agent.Unavailable
	log     *slog.Logger

	mu       sync.Mutex
	awaiting map[string]*agentRun // runs of agent tools awaiting an answer, by request state
}

// New returns a Server offering opts.Actions and opts.Agents as tools, or
// an error when there are none, a name is taken twice, or an agent is
// incomplete.
func New(opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := opts.Name
	if name == "" {
		name = "byref"
	}
	s := &Server{log: log, awaiting: map[string]*agentRun{}, srv: sdk.NewServer(&sdk.Implementation{Name: name, Version: mcp.Version}, &sdk.ServerOptions{Instructions: opts.Instructions, Logger: opts.Logger})}
	var acts []*action.Action
	if opts.Actions != nil {
		acts = opts.Actions.All()
	}
	agents := map[string]agent.Child{}
	for _, spec := range opts.Agents {
		agents[spec.Name] = spec
		spec.Run.NonInteractive = true
		a, err := agent.AsAction(spec)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: agent %q: %w", spec.Name, err)
		}
		acts = append(acts, a)
	}
	set, err := action.NewSet(acts...)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	rtOpts := opts.Agent
	rtOpts.Actions, rtOpts.HideFromAI = set, true
	rt, err := agent.New(rtOpts)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: building the runtime: %w", err)
	}
	for _, a := range set.All() {
		tool, why := plainTool(a)
		if why != "" {
			s.skipped = append(s.skipped, agent.Unavailable{Action: a.Name(), Reason: why})
			continue
		}
		h := s.handler(a.Name(), rt)
		if spec, ok := agents[a.Name()]; ok {
			h = s.agentHandler(spec)
		}
		s.srv.AddTool(&sdk.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.Parameters}, h)
		s.tools = append(s.tools, a.Name())
	}
	if len(s.tools) == 0 {
		return nil, errors.New("mcpserver: no tools to serve; set Options.Actions (with actions that take raw values) or Options.Agents")
	}
	return s, nil
}

// Tools returns the names of the tools served, in order.
func (s *Server) Tools() []string { return append([]string(nil), s.tools...) }

// Skipped lists the actions left out and why.
func (s *Server) Skipped() []agent.Unavailable {
	return append([]agent.Unavailable(nil), s.skipped...)
}

// MCP returns the underlying server of the MCP Go SDK, to add prompts or
// resources, or to serve it over another transport.
func (s *Server) MCP() *sdk.Server { return s.srv }

// Run serves one session over t until the client ends it or ctx is done;
// &sdk.StdioTransport{} serves the process's standard input and output.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// Handler returns an http.Handler serving MCP's streamable HTTP transport,
// one session per client. opts may be nil; set opts.Logger to log the
// transport.
func (s *Server) Handler(opts *sdk.StreamableHTTPOptions) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, opts)
}

// plainTool is an action's plain-mode schema, or why it has none.
func plainTool(a *action.Action) (schema.Tool, string) {
	spec := schema.ToolSpec{Name: a.Name(), Description: a.Description()}
	if a.NeedsApproval() {
		return schema.Tool{}, fmt.Sprintf("%s: every call needs a person's approval, and an MCP call has nobody to approve it", a.Name())
	}
	if t := a.Result(); t != nil {
		if err := schema.Representable(t); err != nil {
			// A live result (a *browser.Browser) would be lost with the
			// call's runtime, and its resources with it.
			return schema.Tool{}, fmt.Sprintf("%s: its result (%s) cannot be sent as JSON, and would be lost with the call", a.Name(), variable.TypeName(t))
		}
	}
	for _, p := range a.Params() {
		if p.Raw == nil {
			return schema.Tool{}, fmt.Sprintf("%s: parameter %s (%s) can only be passed by reference, and an MCP client has no variables", a.Name(), p.Name, variable.TypeName(p.Type))
		}
		spec.Params = append(spec.Params, schema.Param{
			Name: p.Name, Description: p.Description, TypeName: variable.TypeName(p.Type),
			Raw: p.Raw, Optional: p.Optional, Default: p.DefaultJSON,
		})
	}
	if d := a.ResultDescription(); d != "" && a.Result() != nil {
		spec.Description += " Returns: " + d
	}
	return schema.BuildPlainTool(spec), ""
}

var callSeq atomic.Uint64

// handler calls the action on a fresh State of rt, so that the runtime
// does what it does for a model's call: validation against the schema,
// decoding, defaults, timeouts, captured output, recovered panics, tracing.
func (s *Server) handler(name string, rt *agent.Agent) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := string(req.Params.Arguments)
		if args == "" || args == "null" {
			args = "{}"
		}
		st, err := rt.NewState()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: starting the call of %s: %w", name, err)
		}
		id := "mcp_" + strconv.FormatUint(callSeq.Add(1), 10)
		ctx = action.WithCall(ctx, &progressCall{req: req, id: id})
		step := st.Execute(ctx, agent.Step{Calls: []agent.ToolCall{{ID: id, Name: name, Arguments: args}}})
		resp := step.Responses[0]
		if !resp.Success {
			s.log.Info("mcp tool call failed", "tool", name, "err", resp.Error)
			return errorResult(resp), nil
		}
		s.log.Debug("mcp tool called", "tool", name, "duration", resp.Duration)
		return result(resp), nil
	}
}

// result turns a successful call into an MCP result: the result's JSON as
// text (a JSON string as its own text), and as structured content when it
// is an object. What the action wrote to stdout follows as more text.
func result(resp agent.ToolResponse) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: []sdk.Content{}}
	if len(resp.Result) > 0 && string(resp.Result) != "null" {
		text := string(resp.Result)
		var str string
		if json.Unmarshal(resp.Result, &str) == nil {
			text = str
		}
		out.Content = append(out.Content, &sdk.TextContent{Text: text})
		if resp.Result[0] == '{' {
			out.StructuredContent = resp.Result
		}
	}
	if resp.Stdout != "" {
		out.Content = append(out.Content, &sdk.TextContent{Text: resp.Stdout})
	}
	if len(out.Content) == 0 {
		out.Content = append(out.Content, &sdk.TextContent{Text: "ok"})
	}
	return out
}

func errorResult(resp agent.ToolResponse) *sdk.CallToolResult {
	text := resp.Error
	if resp.Stderr != "" {
		text += "\n" + resp.Stderr
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// progressCall sends the progress an action reports (action.Progress) to
// the client as progress notifications, when the call asked for them (it
// has a progress token).
type progressCall struct {
	req *sdk.CallToolRequest
	id  string
	n   atomic.Int64
}

// IDs implements action.Call: no run, and the call's ID.
func (p *progressCall) IDs() (string, string) { return "", p.id }

// Progress implements action.Call.
func (p *progressCall) Progress(ctx context.Context, message string) error {
	token := p.req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return p.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(p.n.Add(1)), Message: message})
}
