package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/browser"
)

func TestRun(t *testing.T) {
	if _, err := browser.FindChromium(browser.Options{}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("%v; install it with scripts/install-chromium.sh (%s)", err, browser.InstallCommand)
	}
	// The browser's profile directory goes to TMPDIR; the run must leave
	// none behind.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"browser actions offered at first: browser_start\n",
		`  browser_start_result = Browser at http://127.0.0.1:`,
		`    e1 textbox "Order number"`,
		`    e2 button "Look up"`,
		`/order?n=1042 "Order 1042"`,
		`  browser_text_result = shipped on 12 March, arriving Friday`,
		"  browser_start_result = Browser (closed)\n",
		"completed after 7 steps: order 1042 is shipped on 12 March, arriving Friday\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "byref-chromium-*")); len(left) > 0 {
		t.Errorf("profile directories left: %v", left)
	}
}
