package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/mcp"
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
	a, _ := agent.New(agent.Options{Actions: tools})
	state, _ := a.NewState()
	res := state.Execute(ctx, agent.Step{Calls: []agent.ToolCall{
		{ID: "1", Name: "get_forecast", Arguments: `{"city":"Lyon","return":null}`},
	}})
	v := res.Responses[0].Variables[0]
	fmt.Println(tools.Names(), v.Name, v.Type, v.Preview)
	// Output: [get_forecast] forecast string sunny in Lyon
}

// An MCP server's resources become variables the model passes by
// reference: a Resource holds the contents and their MIME type, and the
// model sees a preview.
func ExampleResources() {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "files", Version: "1"}, nil)
	server.AddResource(&sdk.Resource{Name: "orders", URI: "file:///orders.csv", MIMEType: "text/csv", Description: "Today's orders."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/csv", Text: "id,total\n1,9.50\n"}}}, nil
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

	vars, err := mcp.Resources(ctx, session, mcp.ResourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	orders := vars[0].Value.(mcp.Resource)
	fmt.Println(vars[0].Name, orders.MIMEType, len(orders.Bytes()))
	fmt.Println(orders.Preview(40))
	// Output:
	// orders text/csv 16
	// text/csv, 16 bytes, file:///orders.csv: …
}
