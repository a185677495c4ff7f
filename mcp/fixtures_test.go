package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv makes the test binary an MCP server over stdio: TestMain runs
// the tool server instead of the tests when it is set to "tools".
const serverEnv = "BYREF_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "":
		os.Exit(m.Run())
	case "tools", "human":
		srv := toolServer()
		if os.Getenv(serverEnv) == "human" {
			srv = humanServer()
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := srv.Run(ctx, &sdk.StdioTransport{})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "unknown test server", os.Getenv(serverEnv))
		os.Exit(2)
	}
}

type addIn struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// toolServer is an MCP server written with the SDK alone, as a third party
// would: a typed tool with structured output, a tool with a hand-written
// schema and text output, a tool that fails, and tools whose schemas cannot
// be split into parameters.
func toolServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fixtures", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(ctx context.Context, req *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	s.AddTool(&sdk.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","description":"who to greet"},
			"style":{"$ref":"#/$defs/style"}},
			"required":["name"],
			"$defs":{"style":{"type":"string","enum":["plain","loud"]}}}`),
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Name, Style string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		text := "Hello, " + in.Name
		if in.Style == "loud" {
			text = "HELLO, " + in.Name + "!"
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the disk is full"}}}, nil
		})
	s.AddTool(&sdk.Tool{
		Name:        "user-lookup",
		Description: "Looks a user up.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"user-id":{"type":"integer"}},"required":["user-id"]}`),
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in map[string]int
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("user %d is Ada", in["user-id"])}}}, nil
	})
	return s
}
