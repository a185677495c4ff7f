// Package mcpserver serves byref actions and agents to Model Context
// Protocol clients, through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp, imported here as sdk). Its
// counterpart, package [github.com/byref/byref/mcp], imports MCP tools as
// actions without the runtime.
//
// [New] serves byref actions and agents as MCP tools. An action's tool has
// the action's plain-mode input schema (raw values only; actions with a
// parameter that takes references only are left out); each call runs on a
// fresh runtime state, which validates and decodes the arguments as it
// does for a model. An agent (runtime.AgentSpec) is a tool that takes a
// task and returns the result of a whole, non-interactive run. Serve one
// session over stdio with [Server.Run], or many over streamable HTTP with
// [Server.Handler]. The command "byref mcp" serves the CLI's agent.
//
//	s, err := mcpserver.New(mcpserver.Options{Actions: actions})
//	…
//	err = s.Run(ctx, &sdk.StdioTransport{})
package mcpserver
