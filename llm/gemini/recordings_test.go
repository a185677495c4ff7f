package gemini_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/gemini"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
)

// wants holds, for every recording in shared/recordings/gemini, what its
// response means, read from the recorded body by hand.
var wants = map[string]recorded.ByHand{
	"cached-content-explicit": {Text: "Paris.", Usage: llm.Usage{InputTokens: 3520, OutputTokens: 2 + 42, CacheReadTokens: 3512, ReasoningTokens: 42}, Stop: llm.StopEnd},
	"error-404-model":         {Err: llm.ErrRequestRejected, Status: 404},
	"error-429-quota-handwritten": {Err: llm.ErrRateLimited, Status: 429, Retryable: true,
		RetryAfter: 34400 * time.Millisecond},
	"finish-max-tokens-no-parts": {Usage: llm.Usage{InputTokens: 15, OutputTokens: 2, ReasoningTokens: 2}, Stop: llm.StopMaxTokens},
	"finish-safety":              {Usage: llm.Usage{InputTokens: 14}, Stop: llm.StopContentFilter},
	"function-call-thought-signature": {Calls: []llm.ToolCall{{Name: "get_capital", Arguments: `{"country":"France"}`, Signature: "CpYEAXLI2nxHJhy3F4oMijlAus2CPUEnTw16KkDpmU77MgVhg6piCF3GycCmKbjhGXQ8mBK5lSpsqwI7DapurrH+NcQiuUJYF1CpS438/kC6pw0JsXszEoBQyJN7zTXqfLgiNOzO5sBwQU1fc5cBUiMzzAxHOyltJwZcYOqFXMPQ0c2AaNvHO4nOOFwRrJuwGVfpfP1BnpuiDUz5c5roIwkC8sykcxva7lOniPdd5Soy0juNxCK4BAXTq/TgHPxB6yEUBGaAYaR9JId6EaWV1/gDa+eSpvLI8P4TQiFWa4UUK/89/TmMEQlRsmbGHcuxU+6GGLI0szs5h2dq8yM8Dy5R/DyB9xXPwUl4c9A+m64LEk6aludQE2X/LKb7y1pfL2f6wjH89DY4F4Y0934R21eYeb9MZMuB+IYaEYIvk7Fhdx5VolnNYPoqoLpCxwHVucmEBruS9m7Li6VO7zZdDVgikbWKxZyixLIfy4LKthacCJERSAJl4aAAllotfzZopY+dUkujmlny/UyPotpJXH+3K6L2Ge3uFOmNShPNN3oSMBf2K3DBit6OE5FA4JMyi7PnzlhiSmPLVOFZEWvINXbHim4Bh7QpIyGnIiT5n/8lSIrcNbf/vD/ZqDqivM/gjyS/ayZqW7tzNW5J1xDkiJpEUK1aokoG+GeaKXZ+AsR6xPXj6hYqpYRhtCsY49KhVme/JJp6XMrN"}},
		Usage: llm.Usage{InputTokens: 57, OutputTokens: 15 + 124, ReasoningTokens: 124}, Stop: llm.StopToolCalls},
	"function-response-followup": {Calls: []llm.ToolCall{{Name: "get_capital", Arguments: `{"country":"La France"}`, Signature: "Ct8GAXLI2nz7mNfYmvoMGtxbp6sB05S83E1PgFbBidrtXSNPmssR19LsxIgLyCeT2CLOe1EiWP9Vw6M4hVSB8yaWgKruIK7GBaUt44ElKq+1tPlYToIrEmM+Y+YATGnWU9BeX8+RTpPzE2j0dEkAxfe+15IrZxBj7RTydL6FL3wpRgeMn3urrBXIDY/JfXlRakk8UKMhrwh4hC6jDEaeRGQUrrXChZ0yqj2MH3uEKsVBTiQi1HIs082MMRPSWE7RWoHCY7zWe3xrGRkiOyIZ/irYsMlMjLyUkqPrmQITg02oRWDsvE1E0Hf3saKxV/KKFjYExsaZpvms8z2Zqmy/vYsSU50PRPjJADOcbooiuUNFNAzf+yGgO2cRyZbZRORzf/nOAGlUJKBfCEnqkwprLr/VfNyBK5VmlPjj8+oPcVH7rCkbH5jLG0PrjB9jpiyYzr7YHUjWYHxLBAlCXMEt/iBc6lMviMJ9GckFGzIOPCzi/PVF/l7kcubCV01mfskGbJAy1UQ2khZW+uCeIc1eWr7+0sC7+mdnfHqpSCZJCom0KQiE/CHKSbn6ROS5dCYHwSYjmxyR1ja4LxssSDKafJUHjE1GlnlQy03bb/QoI+MDCIdRS+y0FwXt2TPgo8nuqIlhzx1NaDtA8431G9UPxCgs6fkRf1/QBo6TvI9VMT/mYhMb0+91ZwEIyA1YlKYErO2MSZwlbgZtMyWYGpLJ9NOBh6+6Ww9oYtNinL9gEhcDXJStJWSiJXGOWUEc6nUG7n8waM1Iqgg/pBx3VxDqrN5Wcnyu0uamQEo63xUeB/YAmOAuuhuPBhcfW3/oqTUaApDtCFMsCoJE3tf//RhW3J1b0IWOvN9/kgsKDpMX+GK5F5+b0JSsz2kdUo9u7he14C8fyLDx1fswFzIwpSmNdqs23RZUfqB9yajh83wWK7UdPxOcX+Mq7TlocixYZf8B4hARE1ORwkmzvL1XUtCLHJWN4KvrkahYS2+El3po/K/+dnmFyYDnusyjpsLnkV7uPBvqBlkP0cg0TT6afeuPffxBM68yI4k+iCFVLxwQCYG68BCRT96rBDyCt4rpECd1PUYFmQWhGbdS4norEcXbwcBNj79LbXak4KI9vbxR0wzgsuShBc78V51cMQU720slB+U="}},
		Usage: llm.Usage{InputTokens: 109, OutputTokens: 16 + 199, ReasoningTokens: 199}, Stop: llm.StopToolCalls},
	"stream-parallel-calls-with-ids": {Calls: []llm.ToolCall{
		{ID: "3ae8iwca", Name: "sum", Arguments: `{"a":2,"b":3}`, Signature: "EukBCuYBAb4+9vt/vxxSqnu1O2VmsspptIIuZ5UI1XKt5qIGVw+l6Wp8gHTOskqE5v3VzNm9TnfsQQoZiWn9SnbjHsEB8zT4ABquQukeRIimRFRDehFQR0+Q8d1Ycq/8nu9h9pPtATCiVhb7L705JKNsMPhSk/k8i3XDw/jhFa11w9YWuCP2/nsul7SZP1/AfDJRroE/3/J5U8vUXnBFgmh9ZOAqEpTQvro03WSEEXy7XL5E5lMuPBEu/9CcH+N1OX32GeV0JQgZFA1vnh6DYJRwmWAbqEYqBZj8ruO7cY6FRIKagh+o7gVb+dk="},
		{ID: "up3kf30e", Name: "sum", Arguments: `{"a":4,"b":5}`},
		{ID: "ycroch25", Name: "sum", Arguments: `{"a":6,"b":7}`}},
		Usage: llm.Usage{InputTokens: 161, OutputTokens: 48 + 45, ReasoningTokens: 45}, Stop: llm.StopToolCalls},
	"stream-text": {Text: "Paris", Usage: llm.Usage{InputTokens: 11, OutputTokens: 1 + 33, ReasoningTokens: 33}, Stop: llm.StopEnd},
	"text":        {Text: "Paris", Usage: llm.Usage{InputTokens: 11, OutputTokens: 1 + 34, ReasoningTokens: 34}, Stop: llm.StopEnd},
	"thinking-thought-parts": {Text: "Crossing the street safely is a fundamental skill", Reasoning: "**A Safe Street-Crossing Guide: My Thought Process**",
		Thinking: 2, Usage: llm.Usage{InputTokens: 29, OutputTokens: 736 + 1001, ReasoningTokens: 1001}, Stop: llm.StopEnd},
}

// opaque are the request keys whose values are free-form (schemas, a
// call's arguments, a function's response): their insides are not part of
// the API's shape.
var opaque = map[string]bool{"parametersJsonSchema": true, "parameters_json_schema": true, "responseJsonSchema": true, "args": true, "response": true}

// required are the fields the API reference requires where their parent
// is present.
var required = []string{
	"contents", "contents[].parts", "contents[].role",
	"contents[].parts[].functionCall.name", "contents[].parts[].functionResponse.name", "contents[].parts[].functionResponse.response",
	"systemInstruction.parts", "tools[].functionDeclarations", "tools[].functionDeclarations[].name",
}

// TestRecordings plays every recorded Gemini exchange to the client: its
// result is what the recording says (text, calls with their signatures,
// usage with cached and thought tokens, finish reason, error kind), and its
// request goes to the recorded path with no field that no recorded request
// has, the required ones present, and the same contents as the recorded
// one.
func TestRecordings(t *testing.T) {
	recs := recorded.Load(t, "gemini")
	shape := recorded.NewShape(t, recs, opaque, camel, required...)
	for _, rec := range recs {
		t.Run(rec.Name, func(t *testing.T) {
			w, ok := wants[rec.Name]
			if !ok {
				t.Fatalf("no expectation for recording %s; add one to wants", rec.Name)
			}
			req, opts, streamed := fromRecording(t, rec)
			s := llmtest.NewServer(t, "", rec.Reply(t))
			opts.APIKey, opts.BaseURL = "test-key", s.URL()
			m, err := gemini.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			var resp llm.Response
			var chunks []llm.Chunk
			if streamed {
				resp, err = m.Stream(context.Background(), req, func(c llm.Chunk) error { chunks = append(chunks, c); return nil })
			} else {
				resp, err = m.Generate(context.Background(), req)
			}
			recorded.CheckByHand(t, w, resp, err)
			if streamed && err == nil {
				var text strings.Builder
				for _, c := range chunks {
					text.WriteString(c.Text)
				}
				if text.String() != resp.Text {
					t.Errorf("streamed text %q, final %q", text.String(), resp.Text)
				}
			}
			if s.Header(0).Get("x-goog-api-key") != "test-key" {
				t.Errorf("no x-goog-api-key header: %v", s.Header(0))
			}
			if len(rec.Request.Body) == 0 || string(rec.Request.Body) == "null" {
				return // the request was not recorded
			}
			if got := s.Path(0); got != rec.Request.Path {
				t.Errorf("path %s, recorded %s", got, rec.Request.Path)
			}
			sent := s.Body(0)
			shape.Check(t, sent)
			if got, rec := contents(t, sent["contents"]), contents(t, decode(t, rec.Request.Body).(map[string]any)["contents"]); !reflect.DeepEqual(got, rec) {
				t.Errorf("contents:\n got %v\nrecorded %v", got, rec)
			}
		})
	}
}

// TestRecordedSignatureRoundTrip plays the recorded function call, then
// sends its result back as a run does: the functionCall part of the next
// request carries the thought signature the first response gave, as the
// recorded follow-up does (which re-encoded it in base64url: the same
// bytes).
func TestRecordedSignatureRoundTrip(t *testing.T) {
	recs := map[string]*recorded.Recording{}
	for _, r := range recorded.Load(t, "gemini") {
		recs[r.Name] = r
	}
	first, next := recs["function-call-thought-signature"], recs["function-response-followup"]
	s := llmtest.NewServer(t, "", first.Reply(t), next.Reply(t))
	req, opts, _ := fromRecording(t, first)
	opts.APIKey, opts.BaseURL = "k", s.URL()
	m, _ := gemini.New(opts)
	resp, err := m.Generate(context.Background(), req)
	if err != nil || len(resp.ToolCalls) != 1 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], `The country is not supported. Use "La France" instead.`))
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := llmtest.Path(t, s.Body(1), "contents", 1, "parts", 0, "thoughtSignature").(string)
	recorded := llmtest.Path(t, decode(t, next.Request.Body), "contents", 1, "parts", 0, "thoughtSignature").(string)
	a, errA := base64.StdEncoding.DecodeString(got)
	b, errB := base64.URLEncoding.DecodeString(recorded)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("signature sent back %q; the recorded follow-up sent %q (errors %v, %v)", got, recorded, errA, errB)
	}
	if llmtest.Path(t, s.Body(1), "contents", 2, "parts", 0, "functionResponse", "name") != "get_capital" {
		t.Errorf("function response = %v", llmtest.Path(t, s.Body(1), "contents", 2))
	}
}

// fromRecording rebuilds the llm.Request (and options) a byref caller
// would make for the recorded request: its system instruction, its
// contents, its tools and its generation settings.
func fromRecording(t *testing.T, rec *recorded.Recording) (llm.Request, gemini.Options, bool) {
	t.Helper()
	path := rec.Request.Path
	if path == "" {
		path = "/v1beta/models/gemini-2.5-flash:generateContent"
	}
	model := strings.TrimPrefix(path, "/v1beta/models/")
	model, method, _ := strings.Cut(model, ":")
	opts := gemini.Options{Config: llm.Config{Model: model}}
	req := llm.Request{}
	if len(rec.Request.Body) == 0 || string(rec.Request.Body) == "null" {
		req.Messages = []llm.Message{llm.UserMessage("Hi")}
		return req, opts, false
	}
	var body struct {
		CachedContent     string `json:"cachedContent"`
		SystemInstruction *struct {
			Parts []struct{ Text string } `json:"parts"`
		} `json:"systemInstruction"`
		GenerationConfig struct {
			MaxOutputTokens int      `json:"maxOutputTokens"`
			Temperature     *float64 `json:"temperature"`
			TopP            *float64 `json:"topP"`
			ThinkingConfig  *struct {
				IncludeThoughts bool `json:"include_thoughts"`
			} `json:"thinkingConfig"`
		} `json:"generationConfig"`
		Tools []struct {
			FunctionDeclarations []map[string]json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             *string `json:"text"`
				Thought          bool    `json:"thought"`
				ThoughtSignature string  `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(rec.Request.Body, &body); err != nil {
		t.Fatal(err)
	}
	opts.CachedContent = body.CachedContent
	gc := body.GenerationConfig
	req.MaxTokens, req.Temperature, req.TopP = gc.MaxOutputTokens, gc.Temperature, gc.TopP
	opts.IncludeThoughts = gc.ThinkingConfig != nil && gc.ThinkingConfig.IncludeThoughts
	if body.SystemInstruction != nil {
		for _, p := range body.SystemInstruction.Parts {
			req.Messages = append(req.Messages, llm.SystemMessage(p.Text))
		}
	}
	for _, ts := range body.Tools {
		for _, d := range ts.FunctionDeclarations {
			var name, desc string
			_ = json.Unmarshal(d["name"], &name)
			_ = json.Unmarshal(d["description"], &desc)
			params := d["parametersJsonSchema"]
			if params == nil {
				params = d["parameters_json_schema"]
			}
			req.Tools = append(req.Tools, llm.Tool{Name: name, Description: desc, Parameters: params})
		}
	}
	for _, c := range body.Contents {
		var turn llm.Message
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: p.FunctionResponse.ID, ToolName: p.FunctionResponse.Name, Text: string(p.FunctionResponse.Response)})
			case p.FunctionCall != nil:
				turn.ToolCalls = append(turn.ToolCalls, llm.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: string(p.FunctionCall.Args), Signature: p.ThoughtSignature})
			case p.Thought:
				turn.Thinking = append(turn.Thinking, llm.Thinking{Text: *p.Text, Signature: p.ThoughtSignature})
			case p.Text != nil && c.Role == "user":
				req.Messages = append(req.Messages, llm.UserMessage(*p.Text))
			case p.Text != nil:
				turn.Text += *p.Text
				if p.ThoughtSignature != "" {
					turn.Thinking = append(turn.Thinking, llm.Thinking{Signature: p.ThoughtSignature})
				}
			}
		}
		if c.Role == "model" {
			turn.Role = llm.RoleAssistant
			req.Messages = append(req.Messages, turn)
		}
	}
	return req, opts, method == "streamGenerateContent?alt=sse"
}

// contents reduces a request's contents to what both sides must agree on:
// roles, and per part its kind, text, call name, arguments, ID and
// signature, and the function response's name and ID.
func contents(t *testing.T, v any) []string {
	t.Helper()
	var out []string
	for _, c := range v.([]any) {
		c := c.(map[string]any)
		out = append(out, "role="+c["role"].(string))
		for _, p := range c["parts"].([]any) {
			p := p.(map[string]any)
			var b strings.Builder
			if s, ok := p["thoughtSignature"].(string); ok {
				b.WriteString("sig=" + s + " ")
			}
			if p["thought"] == true {
				b.WriteString("thought ")
			}
			if s, ok := p["text"].(string); ok {
				b.WriteString("text=" + s)
			}
			if fc, ok := p["functionCall"].(map[string]any); ok {
				a, _ := json.Marshal(fc["args"])
				b.WriteString("call " + fc["name"].(string) + " " + string(a))
				if id, ok := fc["id"].(string); ok {
					b.WriteString(" id=" + id)
				}
			}
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				b.WriteString("response " + fr["name"].(string))
				if id, ok := fr["id"].(string); ok {
					b.WriteString(" id=" + id)
				}
			}
			out = append(out, b.String())
		}
	}
	return out
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// camel writes a recorded key path in the camelCase the API documents; it
// accepts snake_case too, which some recorded clients sent.
func camel(p string) string {
	var b strings.Builder
	up := false
	for _, r := range p {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
