// Package mcp turns the tools of Model Context Protocol servers into byref
// actions, through the official Go SDK
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
// # Tools out
//
// Serving byref actions and agents to MCP clients is package
// [github.com/byref/byref/mcp/mcpserver], which builds on the runtime.
// This package does not import the runtime: a program that only imports
// MCP tools as actions links the action package and the SDK, not the agent
// loop, the interpreter or the store (internal/archtest checks it).
//
// Only mcp/mcpserver and the byref command import this package or the SDK.
package mcp
