// Package llmtest is the conformance suite every [llm.Model] adapter runs:
// named cases over httptest servers (127.0.0.1 only) that speak a provider's
// wire format as its published API reference describes it, plus the
// variations recorded from real providers that the references leave out.
//
//	func TestConformance(t *testing.T) {
//		llmtest.Run(t, llmtest.OpenAI, func(t *testing.T, url string) llm.Model {
//			m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Config{APIKey: "k", BaseURL: url + "/v1"})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return m
//		})
//	}
//
// The cases cover text; one, parallel and streamed tool calls with arguments
// split across chunks; empty IDs; calls without "type"; content as an array
// of parts; refusals; each stop reason; usage; reasoning, thinking blocks and
// thought signatures, Responses reasoning items with their encrypted_content
// (and that they go back on the next turn, another provider's left out);
// structured output; malformed and
// truncated bodies and streams; HTTP errors, Retry-After, retries and
// cancellation; and that no sampling parameter the caller did not set is
// sent. [Cases] lists them by name for a [Flavor]. Each fixture's comment
// names the reference it follows. [Server] is the scripted server the cases
// use, for an adapter's own tests; it serves SSE, JSON and, for Bedrock,
// AWS event-stream bytes.
package llmtest
