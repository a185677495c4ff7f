package browser_test

import (
	"testing"

	"github.com/byref/byref/browser"
	"github.com/byref/byref/run"
)

// A Screenshot is media: a run that takes one has it in its output.
func TestScreenshotIsMedia(t *testing.T) {
	var m run.Media = browser.Screenshot(nil)
	if got := m.MediaType(); got != "image/png" {
		t.Fatalf("MediaType = %q", got)
	}
}
