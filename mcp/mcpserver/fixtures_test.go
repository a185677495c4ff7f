package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/mcp"
)

// serverEnv makes the test binary an MCP server over stdio: TestMain runs
// the byref server instead of the tests when it is set to "byref".
const serverEnv = "BYREF_MCPSERVER_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "":
		os.Exit(m.Run())
	case "byref":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s, err := exportServer()
		if err == nil {
			err = s.Run(ctx, &sdk.StdioTransport{})
		}
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "unknown test server", os.Getenv(serverEnv))
		os.Exit(2)
	}
}

// inMemory connects a client to srv over the SDK's in-memory transport.
func inMemory(t *testing.T, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func importTools(t *testing.T, cs *sdk.ClientSession, opts mcp.ImportOptions) *action.Set {
	t.Helper()
	set, err := mcp.Import(context.Background(), cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}
