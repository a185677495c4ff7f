package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavy are module path prefixes the core must not pull into a user's build.
var heavy = []string{
	"github.com/chromedp/",
	"github.com/traefik/yaegi",
	"github.com/byref/byref/internal/yaegi",
	"github.com/tmc/langchaingo",
	"modernc.org/",
	"go.opentelemetry.io/",
	"github.com/modelcontextprotocol/",
	"go.temporal.io/",
	"github.com/jackc/",
}

// TestCoreStaysLight lists every dependency of the core packages with go
// list and fails on any of the heavy ones, naming the chain to cut.
func TestCoreStaysLight(t *testing.T) {
	for _, pkg := range []string{"variable", "action", "schema", "run"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, h := range heavy {
				if strings.HasPrefix(dep, h) {
					t.Errorf("%s depends on %s; the core may import only the standard library and the JSON Schema libraries", pkg, dep)
				}
			}
			if strings.HasPrefix(dep, "github.com/byref/byref/") && !strings.HasPrefix(dep, "github.com/byref/byref/schema") &&
				!strings.HasPrefix(dep, "github.com/byref/byref/"+pkg) && dep != "github.com/byref/byref/run" {
				t.Errorf("%s depends on %s; core packages depend only on schema and run", pkg, dep)
			}
		}
	}
}

// TestTemporalIsOptIn: the Temporal SDK is built only by programs that
// import package temporal; the runtime, the server and the CLI do not pull
// it in.
func TestTemporalIsOptIn(t *testing.T) {
	for _, pkg := range []string{"agent", "server", "cmd/byref"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "go.temporal.io/") || dep == "github.com/byref/byref/temporal" {
				t.Errorf("%s depends on %s; only package temporal may", pkg, dep)
			}
		}
	}
}

// TestA2AIsOptIn: the A2A SDK (and the gRPC its v0.3 layer brings) is
// built only by programs that import package a2a; the runtime and the
// server do not pull it in.
func TestA2AIsOptIn(t *testing.T) {
	for _, pkg := range []string{"agent", "server"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/a2aproject/") || strings.HasPrefix(dep, "google.golang.org/grpc") || dep == "github.com/byref/byref/a2a" {
				t.Errorf("%s depends on %s; only package a2a may", pkg, dep)
			}
		}
	}
}

// TestBrowserDoesNotLinkTheInterpreter: package browser offers its
// symbols to snippets in interp.Exports' form without importing interp, so
// a program that drives Chromium without snippets does not build yaegi.
func TestBrowserDoesNotLinkTheInterpreter(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/browser").CombinedOutput()
	if err != nil {
		t.Fatalf("go list browser: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/traefik/yaegi") || dep == "github.com/byref/byref/interp" {
			t.Errorf("browser depends on %s; spell interp.Exports out as a map instead of importing interp", dep)
		}
	}
}

// TestProvidersAreOptIn: package llm imports only the standard library and
// package run (which declares the tool, tool call and thinking types a
// model's answer shares with the run's log, and itself imports only the
// standard library), and
// the runtime, otel, codegen, the server and eval link no provider client
// (byref's own or langchaingo): a program that brings its own llm.Model pays
// for none. Programs that open models by name import llm/providers.
func TestProvidersAreOptIn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/byref/byref/llm").CombinedOutput()
	if err != nil {
		t.Fatalf("go list llm: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/byref/byref/llm" && dep != "github.com/byref/byref/run" {
			t.Errorf("llm depends on %s; it may import only the standard library and package run", dep)
		}
	}
	providers := []string{
		"github.com/tmc/langchaingo", "github.com/pkoukk/tiktoken-go", "github.com/dlclark/regexp2",
		"github.com/byref/byref/llm/openai", "github.com/byref/byref/llm/anthropic", "github.com/byref/byref/llm/providers",
		"github.com/byref/byref/llm/azure", // llm/openai covers llm/openai/responses
		"github.com/byref/byref/llm/gemini", "github.com/byref/byref/llm/bedrock", "github.com/aws/",
	}
	for _, pkg := range []string{"agent", "otel", "codegen", "server", "eval"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, p := range providers {
				if strings.HasPrefix(dep, p) {
					t.Errorf("%s depends on %s; provider clients are linked only by programs that import them", pkg, dep)
				}
			}
		}
	}
}

// TestAWSSDKIsOptIn: the AWS SDK for Go is imported by package llm/bedrock
// alone (its tests included), and built only by programs that import it:
// llm/providers leaves Bedrock out, so the runtime, the server and a
// program that opens the other providers by name do not build the SDK.
// The CLI imports llm/bedrock, so that bedrock: specs work there.
func TestAWSSDKIsOptIn(t *testing.T) {
	out, err := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/byref/byref/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		// A test variant is listed as "p [p.test]"; p.test is the test main.
		if name, _, _ := strings.Cut(pkg, " "); name == "github.com/byref/byref/llm/bedrock" || name == "github.com/byref/byref/llm/bedrock_test" {
			continue
		}
		if strings.HasSuffix(pkg, ".test") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/aws/") {
				t.Errorf("%s imports %s; only llm/bedrock may import the AWS SDK", pkg, imp)
			}
		}
	}
	for _, pkg := range []string{"llm", "llm/providers", "agent", "server", "eval", "otel"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/aws/") || dep == "github.com/byref/byref/llm/bedrock" {
				t.Errorf("%s depends on %s; only programs that import llm/bedrock build the AWS SDK", pkg, dep)
			}
		}
	}
}

// TestCodegenDoesNotImportRuntime: replay code is generated from a run's
// log alone (byref replay, the inspector, a program reading its store), so
// package codegen builds without the runtime, the model interface or the
// store drivers.
func TestCodegenDoesNotImportRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/codegen").CombinedOutput()
	if err != nil {
		t.Fatalf("go list codegen: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "github.com/byref/byref/agent", dep == "github.com/byref/byref/llm", strings.HasPrefix(dep, "github.com/byref/byref/run/sqlite"), strings.HasPrefix(dep, "modernc.org/"):
			t.Errorf("codegen depends on %s; it reads a run's log (package run) and must not need the runtime", dep)
		}
	}
}

// TestMCPImportNeedsNoRuntime: importing MCP tools as actions (package
// mcp) links the action package and the MCP SDK, not package agent, the
// interpreter or the store; serving over MCP (mcp/mcpserver) is what
// builds on package agent.
func TestMCPImportNeedsNoRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/mcp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list mcp: %v\n%s", err, out)
	}
	allowed := []string{"github.com/byref/byref/mcp", "github.com/byref/byref/action", "github.com/byref/byref/schema",
		"github.com/byref/byref/variable", "github.com/byref/byref/llm", "github.com/byref/byref/run", // the core: std only
		"github.com/byref/byref/internal/toolschema"} // a tool's JSON schema as an action, on the core alone (checked here too: its deps are mcp's)
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/byref/byref/") && !slices.Contains(allowed, dep) {
			t.Errorf("mcp depends on %s; importing MCP tools as actions may use only action and schema (serving belongs in mcp/mcpserver)", dep)
		}
	}
}
