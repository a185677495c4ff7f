package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/mcp"
)

// callAgent lists the tools of a byref mcp server and runs its agent.
func callAgent(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx := context.Background()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "byref" {
		t.Fatalf("tools: %v", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "byref", Arguments: json.RawMessage(`{"task":"say hello"}`)})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			got += tc.Text
		}
	}
	if res.IsError || !strings.Contains(got, "Hello from the scripted model.") {
		t.Fatalf("byref: isError %v, %q", res.IsError, got)
	}
}

func TestMCPStdio(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	cmd := exec.Command(byrefBin, "mcp", "--model", "scripted:hello", "--db", db)
	cmd.Env = append(os.Environ(), "BYREF_DB=", "BYREF_MODEL=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, &sdk.CommandTransport{Command: cmd})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	callAgent(t, cs)
	cs.Close()
	// The run was recorded.
	out, code := byref(t, "", "runs", "ls", "--db", db)
	if code != 0 || !strings.Contains(out, "completed") {
		t.Errorf("runs ls: exit %d\n%s", code, out)
	}
}

func TestMCPHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(byrefBin, "mcp", "--model", "scripted:hello", "--db", filepath.Join(t.TempDir(), "runs.db"), "--http", addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("byref mcp --http did not listen: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callAgent(t, cs)
}

func TestMCPRefusesNonLoopback(t *testing.T) {
	out, code := byref(t, "", "mcp", "--model", "scripted:hello", "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(out, "loopback") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
