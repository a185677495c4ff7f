// Package archtest holds the test that keeps byref's core light: the
// packages variable, action, schema and run must not depend on chromedp,
// yaegi, langchaingo, SQLite, OpenTelemetry, MCP or Temporal, and only
// package temporal builds the Temporal SDK, and neither the runtime nor
// the server builds the A2A SDK. It has no code of its own.
package archtest
