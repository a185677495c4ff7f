// Package openaitest is an httptest server that speaks OpenAI's chat
// completions wire format (POST /v1/chat/completions), for tests that drive a
// real OpenAI client (byref's, through llm.OpenWith) without a network.
//
// A [Handler] answers each request: it gets the request decoded into typed
// structs ([Request], [Message], [Tool], [ToolCall]) and returns a typed
// [Response] (text, tool calls, usage), or an error; an [*HTTPError] becomes
// that HTTP status with OpenAI's error body, so tests can play rate limits,
// server errors and malformed bodies. A request with "stream": true is
// answered with server-sent events the way OpenAI streams: a role delta, text
// deltas, tool-call deltas (the first with the call's index, ID and name, the
// rest with pieces of its arguments), a finish reason, a usage chunk when
// stream_options.include_usage is set, and data: [DONE].
//
// The server records every request it receives ([Server.Requests]), with its
// raw body and headers, so tests can assert on what the client sent.
//
//	srv := openaitest.New(t, openaitest.Script(
//		openaitest.Call("get_weather", `{"city":"Paris"}`),
//		openaitest.Text("Sunny."),
//	))
//	m, _ := llm.OpenWith("openai:gpt-4o-mini", llm.Config{
//		BaseURL: srv.BaseURL(), APIKey: "test-key", HTTPClient: srv.Client(),
//	})
//
// The server listens on 127.0.0.1 only.
package openaitest
