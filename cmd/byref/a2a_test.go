package main

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
)

// askModel asks a question, then answers with what it was told.
var askModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			return llm.Text("told: " + m.Text), nil
		}
	}
	return llm.CallTool(action.AskUserName, `{"question":"Which city?"}`), nil
})

func TestA2ACall(t *testing.T) {
	asker, err := agent.New(agent.Options{Model: askModel, DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Agents: []server.Agent{{Name: "asker", Agent: asker}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2a.Mount(s, a2a.Options{}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer s.Close()
	defer ts.Close()
	call := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if code := realMain(context.Background(), append([]string{"a2a", "call"}, args...), strings.NewReader(""), &out, &out); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		return out.String()
	}
	out := call(ts.URL+"/a2a/asker", "weather please")
	// The stream's first task is sent once the user's message is in it, so
	// it arrives working, not submitted (a2a's one truth per stream).
	for _, want := range []string{"agent asker", "working", "input-required: Which city?", "to answer: byref a2a call " + ts.URL + "/a2a/asker --task "} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	task := strings.Fields(out[strings.Index(out, "--task ")+len("--task "):])[0]
	out = call(ts.URL+"/a2a/asker", "--task", task, "Paris")
	for _, want := range []string{"completed: told:", "Paris", "artifact result:", "to follow up:"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestA2ACallUsage(t *testing.T) {
	var out bytes.Buffer
	if code := realMain(context.Background(), []string{"a2a", "call", "http://127.0.0.1:1"}, strings.NewReader(""), &out, &out); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, out.String())
	}
}

// byref serve serves A2A beside ACP: byref a2a call reaches its agent
// through the root card.
func TestServeServesA2A(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(byrefBin, "serve", "--addr", addr, "--model", "scripted:hello", "--db", filepath.Join(t.TempDir(), "runs.db"))
	cmd.Env = append(cmd.Environ(), "BYREF_TOKEN=")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	// Wait for the listener: the banner is printed before it is up.
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 500 {
			t.Fatalf("byref serve does not listen on %s:\n%s", addr, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, code := byref(t, "", "a2a", "call", "http://"+addr, "say hello")
	if code != 0 || !strings.Contains(got, "agent byref") || !strings.Contains(got, "completed") {
		t.Fatalf("exit %d:\n%s\nserve:\n%s", code, got, out.String())
	}
}
