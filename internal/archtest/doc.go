// Package archtest holds the tests that keep byref's builds light: the
// packages variable, action, schema and run must not depend on chromedp,
// yaegi, langchaingo, SQLite, OpenTelemetry, MCP or Temporal; only package
// temporal builds the Temporal SDK; neither the runtime nor the server
// builds the A2A SDK; package llm imports only the standard library and
// package run, and
// the runtime, otel, codegen, the server and eval link no provider client;
// package mcp (MCP tools as actions) links no runtime; codegen does not
// import the runtime (replay code comes from a run's log). It also keeps
// the shape of the runtime and codegen: no function over 100 lines (but a
// shrinking list), and a ceiling on the uses between agent's files that
// run against the layering (go test ./internal/archtest -run
// TestRuntimeLayering -v prints them), one way of recording a step
// (through the State's stepLog, whether or not the State has a run), and
// one type for each thing that
// crosses packages (TestOneOfEachType: a tool, a tool call, a thinking
// block, a run's options, a provider's configuration). It has no code of
// its own.
package archtest
