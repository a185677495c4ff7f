// Package temporaltest gives tests a Temporal server: a dev server started
// from Temporal's CLI (temporal server start-dev), on 127.0.0.1, in memory,
// stopped when the test ends.
//
//	hostPort, c := temporaltest.DevServer(t)
//
// Without the CLI (on PATH or in ~/go/bin) a test that calls DevServer is
// skipped, except in CI (CI=true), where it fails: .ci/run installs the
// CLI (scripts/install-temporal.sh).
package temporaltest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/byref/byref/internal/syncbuf"
)

// Quiet is a logger for Temporal's clients and workers that drops
// everything.
func Quiet() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// CLI returns the Temporal CLI's path, or skips the test (fails it in CI,
// which installs the CLI).
func CLI(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, "go", "bin", "temporal")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "the Temporal CLI is not installed: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (.ci/run does)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// DevServer starts a Temporal dev server on 127.0.0.1 and returns its
// frontend's host:port and a client of its default namespace, both
// closed when the test ends.
func DevServer(t testing.TB) (string, client.Client) {
	t.Helper()
	// A port freePort found can be taken by another process before the
	// server binds it, and the server then exits: start it again on new
	// ports, a few times, saying why it stopped.
	var why string
	for range 3 {
		hostPort, c, exited := start(t)
		if c != nil {
			return hostPort, c
		}
		why = exited
	}
	t.Fatalf("the Temporal dev server did not start:\n%s", why)
	return "", nil
}

// start starts a Temporal dev server and dials it; when the server exits
// first, it returns what it printed instead of a client.
func start(t testing.TB) (string, client.Client, string) {
	t.Helper()
	bin := CLI(t)
	port := freePort(t)
	cmd := exec.Command(bin, "server", "start-dev", "--ip", "127.0.0.1", "--port", port, "--headless",
		"--http-port", freePort(t), "--metrics-port", freePort(t), "--log-level", "error",
		// One partition per task queue: with several, a task can wait
		// for a forward between partitions (about 200ms a step here).
		"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1")
	cmd.Dir = t.TempDir()
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	hostPort := "127.0.0.1:" + port
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		c, err := client.Dial(client.Options{HostPort: hostPort, Logger: Quiet()})
		if err == nil {
			_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
			if err == nil {
				t.Cleanup(c.Close)
				return hostPort, c, ""
			}
			c.Close()
		}
		select {
		case <-exited:
			return "", nil, "it exited: " + out.String()
		case <-ctx.Done():
			t.Fatalf("the Temporal dev server did not serve the default namespace: %v\n%s", err, out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
