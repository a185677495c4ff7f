package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/nodetest"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/mcp/mcpserver"
)

// The protocol's own conformance suite, run against byref's MCP server
// and client. It needs Node 22 (it uses fs.globSync), installed from npm.
const (
	conformanceSuite = "@modelcontextprotocol/conformance@0.1.16"
	conformanceNode  = "22.23.3"
	// baseline lists the scenarios expected to fail, each with its reason.
	baseline = "testdata/conformance-baseline.yml"
	// scenarioEnv is set by the suite when it runs a client command: the
	// test binary is then byref's MCP client (see TestMain).
	scenarioEnv = "MCP_CONFORMANCE_SCENARIO"
)

// conformanceActions are the byref actions the server scenarios call, by
// the names the suite gives them.
func conformanceActions() *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{Name: "test_simple_text", Description: "Returns a simple text.",
			Func: func() string { return "This is a simple text response for testing." }}),
		action.MustNew(action.Spec{Name: "test_error_handling", Description: "Always fails.",
			Func: func() (string, error) {
				return "", errors.New("This tool intentionally returns an error for testing")
			}}),
		action.MustNew(action.Spec{Name: "test_tool_with_progress", Description: "Reports progress three times.",
			Func: func(ctx context.Context) string {
				for _, p := range []string{"0/100", "50/100", "100/100"} {
					_ = action.Progress(ctx, p)
				}
				return "progress reported"
			}}),
	)
}

// runSuite runs the conformance command with args and fails the test on
// a scenario that fails and is not in the baseline, or one in the
// baseline that passes.
func runSuite(t *testing.T, args ...string) {
	t.Helper()
	node := nodetest.Node(t, conformanceNode)
	prefix := nodetest.Install(t, "byref-mcp-conformance-0.1.16", "@modelcontextprotocol/conformance", conformanceSuite)
	cli := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	abs, err := filepath.Abs(baseline)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{cli}, append(args, "--expected-failures", abs)...)...)
	cmd.Dir = t.TempDir() // results/ is written there
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s in %v:\n%s", strings.Join(args[:1], " "), time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("the MCP conformance suite failed (%v): a scenario failed that %s does not list, or one it lists passed", err, baseline)
	}
}

// TestMCPServerConformance runs the suite's server scenarios against
// mcpserver serving conformanceActions over streamable HTTP.
func TestMCPServerConformance(t *testing.T) {
	s, err := mcpserver.New(mcpserver.Options{Name: "byref-conformance", Actions: conformanceActions()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler(nil))
	defer ts.Close()
	runSuite(t, "server", "--url", ts.URL+"/mcp")
}

// TestMCPClientConformance runs the suite's client scenarios with this
// test binary as the client command: byref's MCP client (package mcp)
// driven by the scenario's name. Not run: elicitation-sep1034-client-
// defaults (in the baseline: outside a run nobody answers the question,
// and the scenario's server then waits a minute), and the auth/ scenarios
// (byref's client does no OAuth: a host gives the transport an
// authorized *http.Client).
func TestMCPClientConformance(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, scenario := range []string{"initialize", "tools_call", "sse-retry"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			runSuite(t, "client", "--command", self, "--scenario", scenario)
		})
	}
}

// conformanceClient is byref's MCP client in the scenario the suite names,
// against its test server at url; it returns the exit code.
func conformanceClient(scenario, url string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := mcp.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url})
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 1
	}
	defer session.Close()
	// The server's tools as byref actions, called as a model's calls are:
	// their arguments validated against the tools' schemas.
	set, err := mcp.Import(ctx, session, mcp.ImportOptions{})
	switch {
	case err != nil || scenario == "initialize":
	case scenario == "tools_call":
		err = callAction(ctx, set, "add_numbers", `{"a":5,"b":3,"return":null}`)
	default:
		// Every other scenario's server has tools without arguments
		// (sse-retry's test_reconnection): call them.
		for _, name := range set.Names() {
			if err = callAction(ctx, set, name, `{"return":null}`); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, scenario+":", err)
		return 1
	}
	return 0
}

// callAction calls the named action of set with args on a fresh runtime
// state.
func callAction(ctx context.Context, set *action.Set, name, args string) error {
	rt, err := agent.New(agent.Options{Actions: set, DisableSnippets: true})
	if err != nil {
		return err
	}
	st, err := rt.NewState()
	if err != nil {
		return err
	}
	step := st.Execute(ctx, agent.Step{Calls: []agent.ToolCall{{ID: "c1", Name: name, Arguments: args}}})
	if r := step.Responses[0]; !r.Success {
		return fmt.Errorf("%s: %s", name, r.Error)
	}
	return nil
}
