// Package mcp turns the tools, resources and prompts of Model Context
// Protocol servers into byref actions and variables, through the official
// Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp, imported here as sdk).
//
// # Tools in
//
// [Import] (or [Tools]) turns the tools of an MCP server into byref actions.
// Connect to the server with [Connect] over any SDK transport — a command
// over stdio (sdk.CommandTransport) or streamable HTTP
// (sdk.StreamableClientTransport) — and give the session to Import:
//
//	session, err := mcp.Connect(ctx, &sdk.CommandTransport{Command: exec.Command("my-mcp-server")})
//	…
//	defer session.Close()
//	tools, err := mcp.Import(ctx, session, mcp.ImportOptions{Prefix: "gh_", NeedsApproval: mcp.UnlessReadOnly})
//
// Each top-level property of a tool's input schema becomes a parameter of
// type json.RawMessage whose schema is the property's own, so the model sees
// the tool's arguments as the server describes them (and can pass a
// json.RawMessage variable by reference). A tool with an output schema
// returns its structured content as json.RawMessage; other tools return
// their text as a string. Results are stored as variables like any action's;
// a result with isError set is a *ToolError the model sees as the call's
// error. Imported actions are ordinary actions: approvals
// (ImportOptions.NeedsApproval, the run's approval strategy), relevance
// selection (RunOptions.ToolLimit) and tracing apply to them.
//
// # What the server asks of the client
//
// A session made by [Connect] or [ConnectWith] lets its server take part in
// the runs that call its tools:
//
//   - Elicitation: a question the server asks during a tool call (form
//     mode, by multi round-trip or as a request during the call) becomes
//     the run's await for input (action.InputRequired), whose message has
//     the question and the requested schema. The human answers through
//     ACP, A2A, the inspector or Go like any await; the answer (a JSON
//     object, or the JSON string "decline" or "cancel") goes back to the
//     server and the call goes on where it was. A URL the server asks the
//     user to visit (URL mode) becomes an await for an authorization with
//     that link. The call's request stays open meanwhile, at most
//     ConnectOptions.ElicitTimeout; when the run is cancelled or fails
//     first (action.RunDone), the question is answered "cancel" at once.
//     A question asked outside a run is declined. Questions are matched
//     to the call they belong to; with several calls in flight on one
//     session, a question asked outside the multi round-trip flow is
//     refused.
//   - Progress: the server's progress notifications about a call are
//     recorded as the call's progress (action.Progress, agent.Progress):
//     the inspector and the protocols' streams show them; the model does
//     not.
//   - Sampling is off by default. ConnectOptions.SampleWithRunModel
//     serves a request made during a tool call with the model of the run
//     that made the call; ConnectOptions.Sampling serves them with a
//     handler of the host's, such as [Sample] with a model of its choice.
//     Text messages only. With SampleWithRunModel, the tokens count in
//     the run's usage (the call's run.ToolCallCompleted.Usage); a host's
//     own Sampling handler spends on a model the run does not know of.
//     (MCP 2026-07-28 deprecates sampling; the SDK serves it through its
//     deprecation window.)
//
// # Resources and prompts
//
// [Resources] reads a server's resources into variables, each a [Resource]
// (text or bytes, with its MIME type) the model passes by reference to
// actions that take one; its preview says the type and size, never the
// whole contents. [Templates] turns resource templates into actions whose
// parameters are the template's variables and whose result is the
// Resource read. A prompt is a template a person picks, not something the
// model calls: [Prompt] returns its text for a run's Task or
// Instructions. Subscriptions to resource changes and roots are not used.
//
// # Tools out
//
// Serving byref actions and agents to MCP clients is package
// [github.com/byref/byref/mcp/mcpserver], which builds on package agent.
// This package does not import the runtime: a program that only imports
// MCP tools as actions links the action package and the SDK, not the agent
// loop, the interpreter or the store (internal/archtest checks it).
//
// Only mcp/mcpserver and the byref command import this package or the SDK.
package mcp
