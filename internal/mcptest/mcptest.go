// Package mcptest holds what the tests of mcp and mcp/mcpserver share:
// connecting a client to an MCP server in memory or over the stdio of the
// test binary itself, and importing a session's tools.
package mcptest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/mcp"
)

// InMemory connects a client to srv over the SDK's in-memory transport;
// both ends close when the test ends.
func InMemory(t *testing.T, srv *sdk.Server) *sdk.ClientSession {
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

// Stdio starts the test binary itself with env=value and no tests to run
// (its TestMain serves MCP over stdio when env is set) and connects a
// client to it; the session closes when the test ends.
func Stdio(t *testing.T, env, value string) *sdk.ClientSession {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+value)
	cs, err := mcp.Connect(ctx, &sdk.CommandTransport{Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Import imports the session's tools as actions.
func Import(t *testing.T, cs *sdk.ClientSession, opts mcp.ImportOptions) *action.Set {
	t.Helper()
	set, err := mcp.Import(context.Background(), cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}
