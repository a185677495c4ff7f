package interp

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// TestNoDebugHandlers: linking interp (and so the runtime) registers
// nothing on http.DefaultServeMux. yaegi's stdlib package, which byref no
// longer imports, pulled in net/http/pprof and expvar, whose init functions
// expose /debug/pprof/ and /debug/vars on any host serving the default mux.
func TestNoDebugHandlers(t *testing.T) {
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/vars"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if _, pattern := http.DefaultServeMux.Handler(req); pattern != "" {
			t.Errorf("%s is served by the default mux (pattern %q)", path, pattern)
		}
	}
}

// TestNoStdlibTable: the runtime's dependencies hold neither yaegi's
// whole-stdlib table nor the packages that register debug handlers.
func TestNoStdlibTable(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/byref/byref/agent", "github.com/byref/byref/interp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "net/http/pprof", dep == "expvar", strings.HasPrefix(dep, "github.com/traefik/yaegi"):
			t.Errorf("the runtime depends on %s", dep)
		}
	}
}
