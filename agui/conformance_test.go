package agui_test

import (
	"path/filepath"
	"testing"

	"github.com/byref/byref/internal/nodetest"
)

// client is the official AG-UI client the conformance test runs.
const client = "@ag-ui/client@1.0.0"

// TestAGUIConformance runs the official client against the server
// (testdata/conformance.mjs): a text run, tool calls, state (never the
// secret's value), an approval, a question and cancellation; every case it
// prints must be ok.
func TestAGUIConformance(t *testing.T) {
	prefix := nodetest.Install(t, "byref-ag-ui-client-1.0.0", "@ag-ui/client", client)
	_, ts := startAGUI(t)
	nodetest.RunCases(t, filepath.Join("testdata", "conformance.mjs"), "AGUI_PREFIX="+prefix, "AGUI_URL="+ts.URL, "AGUI_SECRET="+password)
}
