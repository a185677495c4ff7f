package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Local URLs are refused unless the options allow them: a model must not
// read the host's files through the browser.
func TestLocalURLsAreRefused(t *testing.T) {
	b := &Browser{proc: &process{opts: Options{}}}
	for _, u := range []string{"file:///etc/passwd", "FILE:///root/", "chrome://settings", "view-source:http://127.0.0.1/", "devtools://devtools/bundled/inspector.html"} {
		err := b.checkURL("goto", u)
		var be *Error
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if err := b.checkURL("goto", "http://127.0.0.1:8000/"); err != nil {
		t.Errorf("http refused: %v", err)
	}
	b.proc.opts.AllowLocalURLs = true
	if err := b.checkURL("goto", "file:///tmp/x"); err != nil {
		t.Errorf("AllowLocalURLs: %v", err)
	}
	if err := (&Browser{proc: &process{}}).Goto(context.Background(), "file:///etc/passwd"); err == nil {
		t.Error("Goto opened a file URL")
	}
}
