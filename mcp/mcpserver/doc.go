// Package mcpserver serves byref actions and agents to Model Context
// Protocol clients, through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp, imported here as sdk). Its
// counterpart, package [github.com/byref/byref/mcp], imports MCP tools as
// actions without package agent.
//
// [New] serves byref actions and agents as MCP tools. An action's tool has
// the action's plain-mode input schema (raw values only; actions with a
// parameter that takes references only are left out); each call runs on a
// fresh runtime state, which validates and decodes the arguments as it
// does for a model. An agent (agent.Child) is a tool that takes a
// task and returns the result of a whole run. Serve one
// session over stdio with [Server.Run], or many over streamable HTTP with
// [Server.Handler]. The command "byref mcp" serves the CLI's agent.
//
// An action's progress (action.Progress) goes to the client as progress
// notifications when the call has a progress token, and a call the client
// cancels cancels the action's context. What an agent's run awaits (an
// approval, a question, input, an authorization's link) is asked of the
// client by elicitation, through MCP's multi round-trip (the SDK asks
// clients of older protocol versions during the call): the tool call
// answers with the question and a request state, the client calls again
// with the answer, and the run goes on where it waited. A declined or
// cancelled question cancels the run; a run whose client never answers
// waits until its AwaitTimeout. Resources and prompts are not served
// (add them to MCP()).
//
//	s, err := mcpserver.New(mcpserver.Options{Actions: actions})
//	…
//	err = s.Run(ctx, &sdk.StdioTransport{})
package mcpserver
