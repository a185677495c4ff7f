package a2a_test

import (
	"path/filepath"
	"testing"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/internal/nodetest"
	"github.com/byref/byref/server"
)

// jsSDK is the official A2A client the conformance test runs.
const jsSDK = "@a2a-js/sdk@1.3.0"

// installJSSDK installs @a2a-js/sdk and express (its server's peer
// dependency, for testdata/server.mjs) once and returns their npm prefix.
func installJSSDK(t *testing.T) string {
	t.Helper()
	return nodetest.Install(t, "byref-a2a-js-sdk-1.3.0", "express", jsSDK, "express@5.1.0")
}

// TestA2AConformance runs the official JavaScript SDK's client against the
// server (testdata/conformance.mjs); every case it prints must be ok.
func TestA2AConformance(t *testing.T) {
	prefix := installJSSDK(t)
	// Push notifications go to a receiver the script runs on 127.0.0.1.
	_, ts := startA2A(t, server.Options{}, a2a.Options{AllowPrivatePush: true})
	nodetest.RunCases(t, filepath.Join("testdata", "conformance.mjs"), "A2A_PREFIX="+prefix, "A2A_URL="+ts.URL)
}
