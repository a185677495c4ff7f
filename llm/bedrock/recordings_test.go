package bedrock_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
)

// wants holds, for every recording in shared/recordings/bedrock, what its
// response means, read from the recorded body (or its decoded events) by
// hand.
var wants = map[string]recorded.ByHand{
	"converse-cache-read":  {Text: "21", Usage: llm.Usage{InputTokens: 2 + 1322, OutputTokens: 5, CacheReadTokens: 1322}, Stop: llm.StopEnd},
	"converse-cache-write": {Text: "21", Usage: llm.Usage{InputTokens: 2 + 1322, OutputTokens: 5, CacheWriteTokens: 1322}, Stop: llm.StopEnd},
	"converse-error-400":   {Err: llm.ErrRequestRejected, Status: 400, ErrText: "The provided model identifier is invalid."},
	"converse-max-tokens":  {Text: "The capital of France is", Usage: llm.Usage{InputTokens: 13, OutputTokens: 5}, Stop: llm.StopMaxTokens},
	"converse-stream-reasoning": {Text: "Hello! It's nice to meet you. How can I help you today?", Reasoning: "The user has greeted me with a simple \"Hello\".",
		Thinking: 1, Usage: llm.Usage{InputTokens: 36, OutputTokens: 73}, Stop: llm.StopEnd},
	"converse-stream-text": {Text: "The capital of France is Paris. Paris is not only the capital city", Usage: llm.Usage{InputTokens: 13, OutputTokens: 82}, Stop: llm.StopEnd},
	"converse-stream-tool-use": {Text: "<thinking> To find the temperature of the capital of France,",
		Calls: []llm.ToolCall{{ID: "tooluse_lAG_zP8QRHmSYOwZzzaCqA", Name: "get_temperature", Arguments: `{"city":"Paris"}`}},
		Usage: llm.Usage{InputTokens: 471, OutputTokens: 91}, Stop: llm.StopToolCalls},
	"converse-text": {Text: "Hello! How can I assist you today?", Usage: llm.Usage{InputTokens: 7, OutputTokens: 30}, Stop: llm.StopEnd},
	"converse-tool-result-followup": {Text: "<thinking> The `secret_retrieval_tool` has returned the secrets",
		Usage: llm.Usage{InputTokens: 591, OutputTokens: 123}, Stop: llm.StopEnd},
	"converse-tool-use": {Text: "<thinking> I need to retrieve secrets",
		Calls: []llm.ToolCall{
			{ID: "tooluse_nz0CoSg6TyuVDvWTCaatSw", Name: "secret_retrieval_tool", Arguments: `{"password":"mellon"}`},
			{ID: "tooluse_KBNwKhm1RwK4iTLuHbyOtg", Name: "secret_retrieval_tool", Arguments: `{"password":"radiance"}`}},
		Usage: llm.Usage{InputTokens: 440, OutputTokens: 93}, Stop: llm.StopToolCalls},
}

// opaque are the request keys whose values are free-form: a tool's JSON
// Schema, a call's input.
var opaque = map[string]bool{"json": true, "input": true}

// required are the fields the Converse API reference requires where their
// parent is present.
var required = []string{
	"messages", "messages[].role", "messages[].content",
	"messages[].content[].toolUse.toolUseId", "messages[].content[].toolUse.name", "messages[].content[].toolUse.input",
	"messages[].content[].toolResult.toolUseId", "messages[].content[].toolResult.content",
	"toolConfig.tools", "toolConfig.tools[].toolSpec.name", "toolConfig.tools[].toolSpec.inputSchema",
	"messages[].content[].cachePoint.type", "system[].cachePoint.type", "toolConfig.tools[].cachePoint.type",
}

// TestRecordings plays every recorded Bedrock exchange (Converse JSON and
// ConverseStream event-stream bytes) to the client, signed with fake static
// credentials: its result is what the recording says (text, reasoning,
// calls, usage with cache reads and writes, stop reason, error kind), and
// its request goes to the recorded path, signed, with no field that no
// recorded request has, the required ones present, and the recorded
// messages (documents aside, which byref does not send).
func TestRecordings(t *testing.T) {
	recs := recorded.Load(t, "bedrock")
	shape := recorded.NewShape(t, recs, opaque, nil, required...)
	for _, rec := range recs {
		t.Run(rec.Name, func(t *testing.T) {
			w, ok := wants[rec.Name]
			if !ok {
				t.Fatalf("no expectation for recording %s; add one to wants", rec.Name)
			}
			req, model, streamed := fromRecording(t, rec)
			s := llmtest.NewServer(t, "", rec.Reply(t))
			m := newModel(t, model, s.URL())
			var resp llm.Response
			var err error
			var chunks strings.Builder
			if streamed {
				resp, err = m.Stream(context.Background(), req, func(c llm.Chunk) error { chunks.WriteString(c.Text); return nil })
			} else {
				resp, err = m.Generate(context.Background(), req)
			}
			checkResult(t, w, resp, err)
			if streamed && chunks.String() != resp.Text {
				t.Errorf("streamed text %q, final %q", chunks.String(), resp.Text)
			}
			if got := s.Path(0); got != rec.Request.Path {
				t.Errorf("path %s, recorded %s", got, rec.Request.Path)
			}
			if auth := s.Header(0).Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") {
				t.Errorf("Authorization = %q; want a SigV4 signature for bedrock in us-east-1", auth)
			}
			sent := s.Body(0)
			shape.Check(t, sent)
			want := rec.RequestBody(t)
			if got, rec := messages(sent["messages"]), messages(want["messages"]); !reflect.DeepEqual(got, rec) {
				t.Errorf("messages:\n got %v\nrecorded %v", got, rec)
			}
			if strings.HasPrefix(rec.Name, "converse-cache-") {
				// Claude takes cache points: after the system prompt, the
				// tools and the last message, where the recording has them.
				for _, path := range [][]any{{"system", -1}, {"toolConfig", "tools", -1}, {"messages", -1, "content", -1}} {
					if !isCachePoint(sent, path) || !isCachePoint(want, path) {
						t.Errorf("no cachePoint at %v: sent %v", path, sent)
					}
				}
			}
		})
	}
}

// The recorded streams, played many times over, each reach messageStop:
// the connection is not closed under a stream (see wholeBody), which it
// was for one stream in ten before.
func TestRecordedStreamsRepeatedly(t *testing.T) {
	for _, rec := range recorded.Load(t, "bedrock") {
		req, model, streamed := fromRecording(t, rec)
		if !streamed {
			continue
		}
		replies := make([]llmtest.Reply, 40)
		for i := range replies {
			replies[i] = rec.Reply(t)
		}
		m := newModel(t, model, llmtest.NewServer(t, "", replies...).URL())
		for i := range replies {
			if _, err := m.Stream(context.Background(), req, func(llm.Chunk) error { return nil }); err != nil {
				t.Fatalf("%s, play %d: %v", rec.Name, i, err)
			}
		}
	}
}

func newModel(t *testing.T, model, url string) *bedrock.Model {
	t.Helper()
	m, err := bedrock.New(bedrock.Options{Config: llm.Config{Model: model, BaseURL: url}, Region: "us-east-1", Credentials: fakeCredentials})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkResult is llmtest.CheckResult, and each reasoning block is the
// response's reasoning with the signature Claude gave it.
func checkResult(t *testing.T, w recorded.ByHand, resp llm.Response, err error) {
	t.Helper()
	recorded.CheckByHand(t, w, resp, err)
	for _, th := range resp.Thinking {
		if th.Text != resp.Reasoning || th.Signature == "" {
			t.Errorf("thinking %+v; want the reasoning with its signature", th)
		}
	}
}

// fromRecording rebuilds the llm.Request a byref caller would make for the
// recorded request, and the model ID and whether it streams, from the path.
func fromRecording(t *testing.T, rec *recorded.Recording) (llm.Request, string, bool) {
	t.Helper()
	rest, ok := strings.CutPrefix(rec.Request.Path, "/model/")
	if !ok {
		t.Fatalf("path %s", rec.Request.Path)
	}
	escaped, op, _ := strings.Cut(rest, "/")
	model, err := url.PathUnescape(escaped)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		System []struct {
			Text *string `json:"text"`
		} `json:"system"`
		InferenceConfig struct {
			MaxTokens   int      `json:"maxTokens"`
			Temperature *float64 `json:"temperature"`
			TopP        *float64 `json:"topP"`
		} `json:"inferenceConfig"`
		ToolConfig struct {
			Tools []struct {
				ToolSpec *struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					InputSchema struct {
						JSON json.RawMessage `json:"json"`
					} `json:"inputSchema"`
				} `json:"toolSpec"`
			} `json:"tools"`
		} `json:"toolConfig"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text    *string `json:"text"`
				ToolUse *struct {
					ToolUseID string          `json:"toolUseId"`
					Name      string          `json:"name"`
					Input     json.RawMessage `json:"input"`
				} `json:"toolUse"`
				ToolResult *struct {
					ToolUseID string `json:"toolUseId"`
					Content   []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"toolResult"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(rec.Request.Body, &body); err != nil {
		t.Fatal(err)
	}
	var req llm.Request
	ic := body.InferenceConfig
	req.MaxTokens, req.Temperature, req.TopP = ic.MaxTokens, ic.Temperature, ic.TopP
	for _, s := range body.System {
		if s.Text != nil {
			req.Messages = append(req.Messages, llm.SystemMessage(*s.Text))
		}
	}
	for _, tool := range body.ToolConfig.Tools {
		if ts := tool.ToolSpec; ts != nil {
			req.Tools = append(req.Tools, llm.Tool{Name: ts.Name, Description: ts.Description, Parameters: ts.InputSchema.JSON})
		}
	}
	for _, msg := range body.Messages {
		turn := llm.Message{Role: llm.RoleAssistant}
		for _, c := range msg.Content {
			switch {
			case c.ToolResult != nil:
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ToolResult.ToolUseID, Text: c.ToolResult.Content[0].Text})
			case c.ToolUse != nil:
				turn.ToolCalls = append(turn.ToolCalls, llm.ToolCall{ID: c.ToolUse.ToolUseID, Name: c.ToolUse.Name, Arguments: string(c.ToolUse.Input)})
			case c.Text != nil && msg.Role == "user":
				req.Messages = append(req.Messages, llm.UserMessage(*c.Text))
			case c.Text != nil:
				turn.Text += *c.Text
			}
		}
		if msg.Role == "assistant" {
			req.Messages = append(req.Messages, turn)
		}
	}
	return req, model, op == "converse-stream"
}

// messages reduces Converse messages to what both sides must agree on:
// roles, and per block its kind and content. Documents (which byref does
// not send) and cache points (checked apart) are left out.
func messages(v any) []string {
	var out []string
	for _, m := range v.([]any) {
		m := m.(map[string]any)
		out = append(out, "role="+m["role"].(string))
		for _, b := range m["content"].([]any) {
			b := b.(map[string]any)
			switch {
			case b["text"] != nil:
				out = append(out, "text="+b["text"].(string))
			case b["toolUse"] != nil:
				tu := b["toolUse"].(map[string]any)
				in, _ := json.Marshal(tu["input"])
				out = append(out, "toolUse "+tu["toolUseId"].(string)+" "+tu["name"].(string)+" "+string(in))
			case b["toolResult"] != nil:
				tr, _ := json.Marshal(b["toolResult"])
				out = append(out, "toolResult "+string(tr))
			}
		}
	}
	return out
}

// isCachePoint reports whether the value at path (a -1 index is the last
// element) is a cachePoint block.
func isCachePoint(v any, path []any) bool {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || len(a) == 0 {
				return false
			}
			v = a[len(a)-1]
		}
	}
	m, ok := v.(map[string]any)
	return ok && m["cachePoint"] != nil
}
