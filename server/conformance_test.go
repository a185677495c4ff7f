package server_test

import (
	"path/filepath"
	"testing"

	"github.com/byref/byref/internal/nodetest"
	"github.com/byref/byref/server"
)

// acpSDK is the official ACP client the conformance test runs.
const acpSDK = "acp-sdk@1.0.3"

// TestACPConformance runs the official TypeScript client against the server
// (testdata/conformance.cjs); every case it prints must be ok.
func TestACPConformance(t *testing.T) {
	prefix := nodetest.Install(t, "byref-acp-sdk-1.0.3", "acp-sdk", acpSDK)
	_, ts := startServer(t, server.Options{})
	nodetest.RunCases(t, filepath.Join("testdata", "conformance.cjs"), "ACP_PREFIX="+prefix, "ACP_URL="+ts.URL)
}
