package agent

import (
	"strconv"
	"strings"
	"sync"
)

// callOutput holds a call's two output buffers, and what it spent of its
// run's model, in one allocation.
type callOutput struct {
	stdout, stderr boundedBuffer
	sampled        sampling
}

// boundedBuffer keeps the first limit bytes written to it and counts the
// rest. It is safe for concurrent use: an action may write from goroutines.
type boundedBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int
}

// Write never fails, so an action's output never makes it fail.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
	} else {
		if room > 0 {
			b.buf = append(b.buf, p[:room]...)
		}
		b.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

// String returns what was kept, with a note of what was dropped.
func (b *boundedBuffer) String() string {
	if b == nil { // a call of an action that takes no context: no output
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return string(b.buf) + "\n[… " + strconv.Itoa(b.dropped) + " more bytes dropped]"
}

// texts returns what the call wrote, hidden when the call was given a
// secret (see hideOutput); "" for an action that takes no context.
func (o *callOutput) texts(secret bool) (stdout, stderr string) {
	if o == nil {
		return "", ""
	}
	stdout, stderr = o.stdout.String(), o.stderr.String()
	if secret {
		stdout, stderr = hideOutput(stdout), hideOutput(stderr)
	}
	return stdout, stderr
}

// hideOutput replaces non-empty output with a note.
func hideOutput(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	return hiddenOutput
}

// Texts shown instead of what a call or snippet that received a secret
// printed or returned as an error.
const (
	hiddenOutput = "<output hidden: the call was given a secret or a value derived from one>"
	hiddenError  = "failed; its error is hidden because the call was given a secret or a value derived from one"
)
