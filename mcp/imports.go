package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"log/slog"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/internal/toolschema"
)

// Version is the version byref announces as an MCP client and server.
const Version = "0.1.0"

// ErrToolFailed is what a *ToolError wraps: the MCP server ran the tool and
// it reported an error (a result with isError set).
var ErrToolFailed = errors.New("mcp: the tool reported an error")

// ToolError is a tool call whose result had isError set. The model sees
// its message like any failed action's.
type ToolError struct {
	// Tool is the MCP tool's name.
	Tool string
	// Message is the text content of the result.
	Message string
}

// Error names the tool and what it reported.
func (e *ToolError) Error() string {
	if e.Message == "" {
		return "the MCP tool " + e.Tool + " failed without saying why"
	}
	return e.Message
}

// Unwrap returns ErrToolFailed.
func (e *ToolError) Unwrap() error { return ErrToolFailed }

// ImportOptions configures Import and Tools. The zero value imports every
// tool under its own name (made a Go identifier), with no approvals.
type ImportOptions struct {
	// Prefix is put in front of every action's name, e.g. "github_", to
	// keep the tools of several servers apart.
	Prefix string
	// Filter keeps the tools it returns true for. Nil keeps all.
	Filter func(*sdk.Tool) bool
	// NeedsApproval reports whether every call of the tool waits for a
	// human's approval (action.Spec.NeedsApproval). Nil means none does;
	// UnlessReadOnly asks for every tool not annotated read-only.
	NeedsApproval func(*sdk.Tool) bool
	// Logger receives a Debug record for every call and its outcome. Nil
	// means no logs.
	Logger *slog.Logger
}

// UnlessReadOnly is an ImportOptions.NeedsApproval that asks for approval
// of every tool whose annotations do not say it is read-only.
func UnlessReadOnly(t *sdk.Tool) bool {
	return t.Annotations == nil || !t.Annotations.ReadOnlyHint
}

// Import returns the tools of the session's server as a set of actions; see
// Tools.
func Import(ctx context.Context, session *sdk.ClientSession, opts ImportOptions) (*action.Set, error) {
	acts, err := Tools(ctx, session, opts)
	if err != nil {
		return nil, err
	}
	return action.NewSet(acts...)
}

// Tools lists the tools of the session's server and returns one action per
// tool, in the server's order. Each call of an action is a tools/call
// request on the session, under the call's context; the session must stay
// open while the actions are used.
//
// Parameters: when the tool's input schema is an object whose property
// names are all Go identifiers (and none is "return"), each property
// becomes a parameter of type any whose schema is the property's own
// (local $refs inlined), optional when the property is not required, so
// the model sees the tool's arguments object as the server wrote it; it
// takes a raw value or a reference to any variable, whose value is sent as
// JSON. Otherwise the action takes one parameter, "arguments", holding
// the whole object under the tool's input schema.
//
// Results: a tool with an output schema returns its structured content as
// json.RawMessage; any other tool returns its text content as a string
// (non-text content is described in brackets). Either is stored as a
// variable like any action's result. A result with isError set is returned
// as a *ToolError, which the model sees as the call's error.
func Tools(ctx context.Context, session *sdk.ClientSession, opts ImportOptions) ([]*action.Action, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var out []*action.Action
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: listing tools: %w", err)
		}
		if opts.Filter != nil && !opts.Filter(tool) {
			continue
		}
		a, err := toolAction(session, tool, opts, log)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %q: %w", tool.Name, err)
		}
		out = append(out, a)
	}
	return out, nil
}

func toolAction(session *sdk.ClientSession, tool *sdk.Tool, opts ImportOptions, log *slog.Logger) (*action.Action, error) {
	name, err := actionName(opts.Prefix + tool.Name)
	if err != nil {
		return nil, err
	}
	input, err := toolschema.Object(tool.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	structured := tool.OutputSchema != nil
	mcpName := tool.Name
	fn, params := toolschema.Func(input, structured, func(ctx context.Context, args any) ([]byte, error) {
		result, err := call(ctx, session, mcpName, args, structured)
		log.Debug("mcp tool called", "tool", mcpName, "err", err)
		return result, err
	})
	desc := tool.Description
	if desc == "" {
		desc = tool.Title
	}
	result := "the tool's text output"
	if structured {
		result = "the tool's structured output, as JSON"
	}
	return action.New(action.Spec{
		Name:          name,
		Description:   desc,
		Func:          fn,
		Params:        params,
		Result:        result,
		NeedsApproval: opts.NeedsApproval != nil && opts.NeedsApproval(tool),
	})
}

// call calls the tool and returns its structured content (as JSON) or its
// text.
func call(ctx context.Context, session *sdk.ClientSession, name string, args any, structured bool) ([]byte, error) {
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	var res *sdk.CallToolResult
	var err error
	if st := stateOf(session); st != nil {
		res, err = st.callTool(ctx, session, params)
	} else {
		res, err = session.CallTool(ctx, params)
	}
	if errors.Is(err, action.ErrNeedsHuman) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: calling %s: %w", name, err)
	}
	text := contentText(res.Content)
	if res.IsError {
		return nil, &ToolError{Tool: name, Message: text}
	}
	if structured {
		if res.StructuredContent == nil {
			return nil, fmt.Errorf("mcp: %s declares an output schema but returned no structured content (text: %q)", name, text)
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: structured content: %w", name, err)
		}
		return b, nil
	}
	if text == "" && res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	return []byte(text), nil
}

// contentText joins the text of a result's content, describing what is not
// text.
func contentText(content []sdk.Content) string {
	var parts []string
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", c.URI))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	return strings.Join(parts, "\n")
}

var (
	ctxType    = reflect.TypeFor[context.Context]()
	stringType = reflect.TypeFor[string]()
	errType    = reflect.TypeFor[error]()
)

// actionName turns an MCP tool name into an action name: a Go identifier
// of at most 64 characters, neither a keyword nor predeclared.
func actionName(s string) (string, error) {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	n := b.String()
	if n == "" {
		return "", errors.New("the tool has no name")
	}
	if token.IsKeyword(n) || types.Universe.Lookup(n) != nil {
		n += "_"
	}
	if len(n) > 64 {
		return "", fmt.Errorf("the name %q is longer than 64 characters once a Go identifier; set ImportOptions.Filter to leave it out", n)
	}
	return n, nil
}
