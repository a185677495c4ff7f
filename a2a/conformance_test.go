package a2a_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/server"
)

// jsSDK is the official A2A client the conformance test runs.
const jsSDK = "@a2a-js/sdk@1.3.0"

// installJSSDK installs @a2a-js/sdk and express (its server's peer
// dependency, for testdata/server.mjs) into the user cache directory once
// (byref-a2a-js-sdk-1.3.0) and returns the npm prefix it is installed
// under. Without node or npm it skips, except in CI (CI=true), where it
// fails.
func installJSSDK(t *testing.T) string {
	t.Helper()
	pkgs := []string{jsSDK, "express@5.1.0"}
	install := "npm install --prefix DIR " + strings.Join(pkgs, " ") + " --no-audit --no-fund"
	npm, err := exec.LookPath("npm")
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the A2A conformance tests need node and npm (for %q): %v", install, err)
		}
		t.Skipf("skipping: node or npm is not installed (the test runs %q); install Node 20+", install)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "byref-a2a-js-sdk-1.3.0")
	marker := filepath.Join(dir, "node_modules", "express", "package.json")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "byref-a2a-js-sdk-install-")
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
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(marker); statErr != nil {
			t.Fatalf("moving the install into %s: %v", dir, err)
		}
	}
	return dir
}

// TestA2AConformance runs the official JavaScript SDK's client against the
// server (testdata/conformance.mjs); every case it prints must be ok.
func TestA2AConformance(t *testing.T) {
	prefix := installJSSDK(t)
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "conformance.mjs"))
	cmd.Env = append(os.Environ(), "A2A_PREFIX="+prefix, "A2A_URL="+ts.URL)
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
