package azure_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/recorded"
)

// TestRecorded plays every recorded Azure OpenAI exchange (chat on the
// deployment endpoints and the v1 endpoint, the Responses API on the v1
// endpoint) to the provider that speaks it, opened by name as a user
// would, against a server at the recorded path: its result is what the
// recording says, its request has the recorded shape and path (with the
// api-version), and it sends the api-key header.
func TestRecorded(t *testing.T) {
	for _, r := range recorded.Load(t, "azure-openai") {
		t.Run(r.Name, func(t *testing.T) {
			srv := recorded.Serve(t, r)
			u, err := url.Parse(r.Request.Path)
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"AZURE_OPENAI_API_VERSION": u.Query().Get("api-version")}
			model := r.RequestBody(t)["model"].(string)
			api := "azure"
			if strings.HasSuffix(u.Path, "/responses") {
				api = "azure-responses"
			}
			m, err := llm.OpenWith(api+":"+model, llm.Config{APIKey: "azure-key", BaseURL: srv.URL, Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			var exp recorded.Expected
			var check func(got, want map[string]any) []string
			var resp llm.Response
			var chunks []llm.Chunk
			if api == "azure" {
				req, stream := recorded.ChatRequest(t, r)
				resp, chunks, err = recorded.Call(m, req, stream)
				exp, check = recorded.ChatExpected(t, r), recorded.CheckChatRequest
			} else {
				req, setup := recorded.ResponsesRequest(t, r)
				resp, chunks, err = recorded.Call(m, req, setup.Stream)
				exp, check = recorded.ResponsesExpected(t, r), recorded.CheckResponsesRequest
				if len(resp.Thinking) != exp.Thinking || exp.Encrypted > 0 && resp.Thinking[0].Signature == "" {
					t.Errorf("reasoning kept as %+v; recorded %d items, %d encrypted", resp.Thinking, exp.Thinking, exp.Encrypted)
				}
			}
			recorded.CheckResult(t, resp, chunks, err, exp)
			r.CheckFeatures(t, resp.Usage)
			if r.Response.Status == 400 && !strings.Contains(err.Error(), "content filter") || errors.Is(err, llm.ErrBadResponse) {
				t.Errorf("the error does not say the content filter refused the prompt: %v", err)
			}
			recorded.CheckSent(t, srv, r, check, "api-key", "azure-key")
			if _, _, hdr := srv.Sent(t); hdr.Get("Authorization") != "" {
				t.Errorf("Authorization %q sent with the api-key", hdr.Get("Authorization"))
			}
		})
	}
}
