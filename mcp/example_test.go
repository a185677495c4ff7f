package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/mcp"
	"github.com/byref/byref/runtime"
)

// An MCP server's tools become byref actions; here the server runs in
// process, over the SDK's in-memory transport.
func ExampleImport() {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{
		Name:        "get-forecast",
		Description: "The forecast for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ City string }
		json.Unmarshal(req.Params.Arguments, &in)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "sunny in " + in.City}}}, nil
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	session, err := mcp.Connect(ctx, ct)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	tools, err := mcp.Import(ctx, session, mcp.ImportOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rt, _ := runtime.New(runtime.Options{Actions: tools})
	state, _ := rt.NewState()
	res := state.Execute(ctx, runtime.Step{Calls: []runtime.ToolCall{
		{ID: "1", Name: "get_forecast", Arguments: `{"city":"Lyon","return":null}`},
	}})
	v := res.Responses[0].Variables[0]
	fmt.Println(tools.Names(), v.Name, v.Type, v.Preview)
	// Output: [get_forecast] forecast string sunny in Lyon
}
