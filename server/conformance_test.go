package server_test

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

	"github.com/byref/byref/server"
)

// acpSDK is the official ACP client the conformance test runs.
const acpSDK = "acp-sdk@1.0.3"

// installACPClient installs acp-sdk into the user cache directory once
// (byref-acp-sdk-1.0.3) and returns the npm prefix it is installed under.
func installACPClient(t *testing.T) string {
	t.Helper()
	install := "npm install --prefix DIR " + acpSDK + " --no-audit --no-fund"
	npm, err := exec.LookPath("npm")
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the ACP conformance test needs node and npm (for %q): %v", install, err)
		}
		t.Skipf("skipping the ACP conformance test: node or npm is not installed (it runs %q); install Node 20+", install)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "byref-acp-sdk-1.0.3")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "acp-sdk", "package.json")); err == nil {
		return dir
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "byref-acp-sdk-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, acpSDK, "--no-audit", "--no-fund")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Replace(install, "DIR", tmp, 1), err, out)
	}
	t.Logf("installed %s in %v", acpSDK, time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, dir); err != nil {
		// Another test process may have installed it meanwhile.
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "acp-sdk", "package.json")); statErr != nil {
			t.Fatalf("moving the install into %s: %v", dir, err)
		}
	}
	return dir
}

// TestACPConformance runs the official TypeScript client against the server
// (testdata/conformance.cjs); every case it prints must be ok.
func TestACPConformance(t *testing.T) {
	prefix := installACPClient(t)
	_, ts := startServer(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "conformance.cjs"))
	cmd.Env = append(os.Environ(), "ACP_PREFIX="+prefix, "ACP_URL="+ts.URL)
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
