package mcpserver_test

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/mcp/mcpserver"
)

// Byref actions served to an MCP client.
func ExampleNew() {
	ctx := context.Background()
	upper := action.MustNew(action.Spec{
		Name: "upper", Description: "Upper-cases text.",
		Params: []action.Param{{Name: "text"}},
		Func:   strings.ToUpper,
	})
	s, err := mcpserver.New(mcpserver.Options{Actions: action.MustSet(upper)})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, _ := s.MCP().Connect(ctx, st, nil)
	defer ss.Close()
	client, _ := mcp.Connect(ctx, ct)
	defer client.Close()

	res, err := client.CallTool(ctx, &sdk.CallToolParams{Name: "upper", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output: HELLO
}
