package mcp_test

//lint:file-ignore SA1019 sampling is deprecated by MCP 2026-07-28 (SEP-2577) but served for its deprecation window, off by default, as the host allows

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/mcptest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// humanServer is an MCP server whose tools need the client: one asks the
// user which color (form elicitation), one sends progress notifications,
// one asks the client's model (sampling); it has a text and a binary
// resource, a resource template and a prompt.
func humanServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "human", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "paint", Description: "Paints the wall in a color the user picks.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			// Multi round-trip (the SDK serves it to older clients by
			// asking them during the call).
			r, ok := req.Params.InputResponses["color"].(*sdk.ElicitResult)
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"color": &sdk.ElicitParams{Message: "Which color?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)}}}, nil
			}
			text := "not painted: " + r.Action
			if r.Action == "accept" {
				text = fmt.Sprintf("painted %v", r.Content["color"])
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "count", Description: "Counts to three, reporting progress.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "counted"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "muse", Description: "Asks the client's model.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			switch r := req.Params.InputResponses["haiku"].(type) {
			case *sdk.CreateMessageWithToolsResult:
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the model said: " + r.Content[0].(*sdk.TextContent).Text}}}, nil
			case nil:
				if len(req.Params.InputResponses) == 0 {
					return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"haiku": &sdk.CreateMessageParams{MaxTokens: 10,
						Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "a haiku"}}}}}}, nil
				}
			}
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no sampling"}}}, nil
		})
	s.AddResource(&sdk.Resource{Name: "notes", URI: "file:///notes.txt", MIMEType: "text/plain", Description: "The meeting notes."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "ship on friday"}}}, nil
		})
	s.AddResource(&sdk.Resource{Name: "logo", URI: "file:///logo.png", MIMEType: "image/png"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G'}}}}, nil
		})
	s.AddResourceTemplate(&sdk.ResourceTemplate{Name: "file", URITemplate: "file:///docs/{name}", Description: "A document by name."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# " + strings.TrimPrefix(req.Params.URI, "file:///docs/")}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "topic", Required: true}}},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Review " + req.Params.Arguments["topic"] + "."}}}}, nil
		})
	return s
}

// connectHuman connects to humanServer over the SDK's in-memory transport
// ("memory"), the stdio of the test binary ("stdio", with the zero
// options: mcp.Connect) or streamable HTTP ("http").
func connectHuman(t *testing.T, transport string, opts mcp.ConnectOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := humanServer()
	var ct sdk.Transport
	switch transport {
	case "memory":
		st, c := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	case "stdio":
		return mcptest.Stdio(t, serverEnv, "human")
	case "http":
		hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
		t.Cleanup(hs.Close)
		ct = &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client(), MaxRetries: -1}
	}
	cs, err := mcp.ConnectWith(ctx, ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestElicitationBecomesAnAwait: the server's question during a call is
// the run's await for input; the answer goes back and the call goes on.
// Progress notifications are the call's progress in the log.
func TestElicitationBecomesAnAwait(t *testing.T) {
	for _, transport := range []string{"memory", "stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cs := connectHuman(t, transport, mcp.ConnectOptions{})
			set, err := mcp.Import(context.Background(), cs, mcp.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			model := llm.NewScripted(
				llm.CallTool("count", `{"return":null}`),
				llm.CallTool("paint", `{"return":null}`),
				llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:paint_result>>"}`),
			)
			store := run.NewMemoryStore()
			rt, err := agent.New(agent.Options{Model: model, Actions: set, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			h, err := rt.Start(ctx, agent.RunOptions{Task: "count, then paint the wall"})
			if err != nil {
				t.Fatal(err)
			}
			var await run.AwaitRequested
			for e, err := range store.Events(ctx, h.ID(), 1) {
				if err != nil {
					t.Fatal(err)
				}
				if a, ok := e.Payload.(run.AwaitRequested); ok {
					await = a
					break
				}
			}
			if await.Await != run.AwaitInput || !strings.Contains(await.Message, "Which color?") || !strings.Contains(await.Message, `"color"`) {
				t.Fatalf("await %+v", await)
			}
			for range 100 {
				if _, ok := h.Pending(); ok {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if err := h.Resume(ctx, "", run.Answer{Input: json.RawMessage(`{"color":"blue"}`)}); err != nil {
				t.Fatal(err)
			}
			out, err := h.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != run.StatusCompleted || !strings.Contains(string(out.Result), "painted blue") {
				t.Fatalf("outcome %+v %s", out, out.Result)
			}
			// Notifications are handled apart from results: the last may
			// be recorded just after the call's result.
			var progress []string
			for len(progress) < 3 {
				progress = progress[:0]
				events, _ := store.Read(ctx, h.ID(), 1, 0)
				for _, e := range events {
					if p, ok := e.Payload.(run.Progress); ok {
						progress = append(progress, p.Message)
					}
				}
				time.Sleep(time.Millisecond)
			}
			if strings.Join(progress, "|") != "1/3 step 1|2/3 step 2|3/3 step 3" {
				t.Fatalf("progress %q", progress)
			}
		})
	}
}

// TestSamplingIsOffByDefault: without ConnectOptions.Sampling the
// server's sampling request is refused; with mcp.Sample(model) the model
// answers it.
func TestSampling(t *testing.T) {
	ctx := context.Background()
	call := func(cs *sdk.ClientSession) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "muse", Arguments: map[string]any{}})
		if err != nil {
			return err.Error()
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	if got := call(connectHuman(t, "memory", mcp.ConnectOptions{})); strings.Contains(got, "the model said") {
		t.Fatalf("sampling served by default: %s", got)
	}
	model := llm.NewScripted(llm.Text("old pond, a frog"))
	if got := call(connectHuman(t, "memory", mcp.ConnectOptions{Sampling: mcp.Sample(model)})); got != "the model said: old pond, a frog" {
		t.Fatalf("sampling: %s", got)
	}
}

// TestSamplingWithTheRunModel: with SampleWithRunModel, a sampling request
// made during a run's tool call is served by that run's model, and what
// it spent counts in the run's usage (the outcome's and the log's) without
// being a step of the run's conversation.
func TestSamplingWithTheRunModel(t *testing.T) {
	ctx := context.Background()
	cs := connectHuman(t, "memory", mcp.ConnectOptions{SampleWithRunModel: true})
	set, err := mcp.Import(ctx, cs, mcp.ImportOptions{Filter: func(tool *sdk.Tool) bool { return tool.Name == "muse" }})
	if err != nil {
		t.Fatal(err)
	}
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Text == "a haiku": // the server's sampling request
			r := llm.Text("autumn moon")
			r.Usage = llm.Usage{InputTokens: 1000, OutputTokens: 70, CacheReadTokens: 600}
			return r, nil
		case last.Role == llm.RoleTool:
			r := llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:muse_result>>"}`)
			r.Usage = llm.Usage{InputTokens: 20, OutputTokens: 2}
			return r, nil
		}
		r := llm.CallTool("muse", `{"return":null}`)
		r.Usage = llm.Usage{InputTokens: 10, OutputTokens: 1}
		return r, nil
	})
	rt, err := agent.New(agent.Options{Model: model, Actions: set})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.Run(ctx, agent.RunOptions{Task: "muse"})
	if err != nil || string(out.Result) != `"the model said: autumn moon"` {
		t.Fatalf("result %s, %v", out.Result, err)
	}
	want := llm.Usage{InputTokens: 1030, OutputTokens: 73, CacheReadTokens: 600}
	if out.Usage != want {
		t.Errorf("outcome's usage %+v; want the run's two model calls and the sampling request: %+v", out.Usage, want)
	}
	events, err := rt.Store().Read(ctx, out.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	snap := run.Fold(events)
	if u := snap.Usage; u.InputTokens != 1030 || u.OutputTokens != 73 || u.CacheReadTokens != 600 {
		t.Errorf("the log's usage %+v; want %+v", u, want)
	}
	modelCalls := 0
	for _, e := range events {
		if _, ok := e.Payload.(run.Usage); ok {
			modelCalls++
		}
	}
	if modelCalls != 2 {
		t.Errorf("%d model calls in the log; want 2 (sampling is the call's, not a step)", modelCalls)
	}
	// Outside a run's call, there is no run's model to serve it.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "muse", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatalf("sampling outside a run was served: %+v", res.Content[0])
	}
}

// TestResourcesAreVariables: resources are variables of their contents
// (text and binary, with the MIME type), templates are actions that read
// one, and prompts give their text.
func TestResourcesAreVariables(t *testing.T) {
	ctx := context.Background()
	cs := connectHuman(t, "memory", mcp.ConnectOptions{})
	vars, err := mcp.Resources(ctx, cs, mcp.ResourceOptions{Prefix: "doc_"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]variable.Spec{}
	for _, v := range vars {
		byName[v.Name] = v
	}
	notes, logo := byName["doc_notes"].Value.(mcp.Resource), byName["doc_logo"].Value.(mcp.Resource)
	if notes.Text != "ship on friday" || notes.MIMEType != "text/plain" || byName["doc_notes"].Description != "The meeting notes." {
		t.Fatalf("notes %+v", byName["doc_notes"])
	}
	if string(logo.Blob) != "\x89PNG" || logo.MIMEType != "image/png" || !strings.HasPrefix(logo.Preview(100), "image/png, 4 bytes") {
		t.Fatalf("logo %+v %q", logo, logo.Preview(100))
	}
	// Usable by reference: an action taking a Resource gets the variable.
	size := action.MustNew(action.Spec{Name: "size", Description: "The size of a resource.", Func: func(r mcp.Resource) int { return len(r.Bytes()) }, Params: []action.Param{{Name: "r", Whole: true}}})
	templates, err := mcp.Templates(ctx, cs, mcp.ImportOptions{})
	if err != nil || len(templates) != 1 {
		t.Fatalf("templates %v %v", templates, err)
	}
	model := llm.NewScripted(
		llm.CallTool("size", `{"r":"<<var:doc_logo>>","return":null}`),
		llm.CallTool("file", `{"name":"plan b.md","return":null}`),
		llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:file_result>>"}`),
	)
	rt, err := agent.New(agent.Options{Model: model, Actions: action.MustSet(append(templates, size)...)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.Run(ctx, agent.RunOptions{Task: "size the logo, read plan b", Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	var file mcp.Resource
	if err := json.Unmarshal(out.Result, &file); err != nil || file.Text != "# plan%20b.md" || file.MIMEType != "text/markdown" {
		t.Fatalf("result %s: %v", out.Result, err)
	}
	text, err := mcp.Prompt(ctx, cs, "review", map[string]string{"topic": "the plan"})
	if err != nil || text != "Review the plan." {
		t.Fatalf("prompt %q %v", text, err)
	}
}

// TestCancelReleasesAParkedCall: cancelling a run whose MCP call is
// parked on its server's question answers the question "cancel" at once
// (not after ElicitTimeout, which the logger would tell), ending the
// server's request and the call's goroutine.
func TestCancelReleasesAParkedCall(t *testing.T) {
	answered := make(chan string, 1)
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "ask", Description: "Asks the user a question.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r, ok := req.Params.InputResponses["q"].(*sdk.ElicitResult)
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"q": &sdk.ElicitParams{Message: "Go on?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)}}}, nil
			}
			answered <- r.Action
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: r.Action}}}, nil
		})
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var logs strings.Builder
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(b)
	}), nil))
	cs, err := mcp.ConnectWith(ctx, ct, mcp.ConnectOptions{ElicitTimeout: time.Minute, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	set, err := mcp.Import(ctx, cs, mcp.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model := llm.NewScripted(llm.CallTool("ask", `{"return":null}`))
	rt, err := agent.New(agent.Options{Model: model, Actions: set, Store: run.NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := h.Pending(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-answered; got != "cancel" {
		t.Fatalf("the server's question was answered %q, want cancel", got)
	}
	logMu.Lock()
	if logs.Len() > 0 {
		t.Errorf("the question was answered by the timeout, not the cancel: %s", logs.String())
	}
	logMu.Unlock()
	if out, err := h.Wait(ctx); err != nil || out.Status != run.StatusCanceled {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	// The call's goroutine and the question's handler end.
	for {
		var stacks bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
		s := stacks.String()
		if !strings.Contains(s, "mcp.(*session).callTool") && !strings.Contains(s, "mcp.(*session).elicit") {
			break
		}
		time.Sleep(time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
