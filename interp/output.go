package interp

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// boundedBuffer keeps the first max bytes written to it and counts the rest.
// It is safe for concurrent use: a goroutine leaked by a stopped Eval may
// still write while the caller reads the result. When the total written
// passes floodAt it calls onFlood once (to stop the snippet).
type boundedBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int64
	floodAt int64
	total   int64
	onFlood func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	room := b.max - len(b.buf)
	if room > 0 {
		n := min(room, len(p))
		b.buf = append(b.buf, p[:n]...)
		b.dropped += int64(len(p) - n)
	} else {
		b.dropped += int64(len(p))
	}
	b.total += int64(len(p))
	var flood func()
	if b.floodAt > 0 && b.total > b.floodAt && b.onFlood != nil {
		flood, b.onFlood = b.onFlood, nil
	}
	b.mu.Unlock()
	if flood != nil {
		flood()
	}
	return len(p), nil
}

// String returns what was kept, followed by a marker when output was dropped.
func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	var s strings.Builder
	s.Write(b.buf)
	if len(b.buf) > 0 && b.buf[len(b.buf)-1] != '\n' {
		s.WriteByte('\n')
	}
	fmt.Fprintf(&s, "[output truncated: %d more bytes dropped]\n", b.dropped)
	return s.String()
}

// switchWriter is the stable writer handed to one yaegi instance (whose fmt
// symbols capture it at construction); each Eval points it at a fresh buffer.
// When the instance is replaced, the writer is retired: a value an earlier
// snippet made around os.Stdout (tw := tabwriter.NewWriter(os.Stdout, ...),
// kept in a variable) then writes to the current instance's writer, so to
// the output of the snippet that uses it; after a stopped Eval, whose
// goroutine may still be writing, it refuses instead.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
	// live, once retired, is the Interpreter's current writer of the
	// same stream; nil with dead set after a stop.
	live *atomic.Pointer[switchWriter]
	dead string // the stream's name, once retired after a stop
}

// retire ends the writer's instance: writes go to live's writer from now
// on, or, when live is nil, panic with a message naming stream.
func (s *switchWriter) retire(live *atomic.Pointer[switchWriter], stream string) {
	s.mu.Lock()
	s.live, s.w = live, nil
	if live == nil {
		s.dead = stream
	}
	s.mu.Unlock()
}

// deadStream is the panic of a write to a stream of a stopped snippet.
type deadStream struct{ stream string }

func (d deadStream) Error() string {
	return fmt.Sprintf("this writer wraps the %s of a snippet that was stopped, which no longer reaches any output; make it again in this snippet (tw := tabwriter.NewWriter(%s, ...))", d.stream, d.stream)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	w, live, dead := s.w, s.live, s.dead
	s.mu.Unlock()
	if dead != "" {
		panic(deadStream{dead})
	}
	if live != nil {
		if cur := live.Load(); cur != nil && cur != s {
			return cur.Write(p)
		}
		return len(p), nil
	}
	if w == nil {
		return len(p), nil
	}
	return w.Write(p)
}
