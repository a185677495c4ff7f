package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/mcp/mcpserver"
)

// serverEnv makes the test binary an MCP server over stdio: TestMain runs
// the byref server instead of the tests when it is set to "byref".
const serverEnv = "BYREF_MCPSERVER_TEST_SERVER"

func TestMain(m *testing.M) {
	if scenario := os.Getenv(scenarioEnv); scenario != "" {
		// The conformance suite runs this binary as its client command,
		// with its test server's URL as the last argument.
		os.Exit(conformanceClient(scenario, os.Args[len(os.Args)-1]))
	}
	switch os.Getenv(serverEnv) {
	case "":
		os.Exit(m.Run())
	case "byref", "asking":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s, err := exportServer()
		if os.Getenv(serverEnv) == "asking" {
			s, err = mcpserver.New(mcpserver.Options{Agents: askingAgents()[:1]})
		}
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
