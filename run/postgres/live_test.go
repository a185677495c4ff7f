package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

var _ run.LiveStore = (*Store)(nil)

// liveFollower follows a run with Live in a goroutine, sending each event
// and delta as a line: "3" for event 3, "Δ3 text" for a delta after it.
func liveFollower(ctx context.Context, s *Store, id run.ID) <-chan string {
	out := make(chan string, 100)
	go func() {
		defer close(out)
		for e, err := range s.Live(ctx, id, 1) {
			switch d, ok := e.Payload.(run.Delta); {
			case err != nil:
				out <- "error " + err.Error()
				return
			case ok:
				out <- fmt.Sprintf("Δ%d %s", d.After, d.Text)
			default:
				out <- fmt.Sprint(e.Seq)
			}
		}
	}()
	return out
}

// expectLines receives the follower's next lines.
func expectLines(t *testing.T, got <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		if g, ok := <-got; g != w {
			t.Fatalf("followed %q (open: %t), want %q", g, ok, w)
		}
	}
}

// text is a delta of text after event after, at offset off of its
// message.
func text(after, off int64, s string) run.Delta {
	return run.Delta{Step: 1, What: run.DeltaText, Text: s, After: after, Offset: off}
}

// A follower in one process sees the deltas another publishes, each
// between the event it follows and the next; the deltas of the message
// being written when it joined are dropped.
func TestLiveDeltasAcrossProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	notes := make(chan string, 100)
	w := openAt(t, "", Options{})
	r := openAt(t, "", Options{Schema: w.schema, onNotify: func(p string) { notes <- p }})
	mustCreate(t, w, "run_live")
	last := mustAppend(t, w, "run_live", 1, toRunning)
	w.PublishDelta("run_live", text(2, 0, "joined "))
	waitPublished(t, w)
	mustCreate(t, w, "run_mark")
	mustAppend(t, w, "run_mark", 1, toRunning)
	for p := range notes { // after the first piece, which nobody followed
		if p == "run_mark" {
			break
		}
	}
	f := liveFollower(ctx, r, "run_live")
	expectLines(t, f, "1", "2") // the follower has joined, at event 2
	w.PublishDelta("run_live", text(2, 7, "mid-message: dropped"))
	waitPublished(t, w)
	last = mustAppend(t, w, "run_live", last, message("joined mid-message: dropped"))
	w.PublishDelta("run_live", text(3, 0, "Hel"))
	w.PublishDelta("run_live", text(3, 3, "lo"))
	waitPublished(t, w)
	last = mustAppend(t, w, "run_live", last, message("Hello"))
	w.PublishDelta("run_live", text(4, 0, "Bye"))
	waitPublished(t, w)
	mustAppend(t, w, "run_live", last, message("Bye"), toComplete)
	expectLines(t, f, "3", "Δ3 Hel", "Δ3 lo", "4", "Δ4 Bye", "5", "6")
	if got, ok := <-f; ok {
		t.Fatalf("followed %q after the run ended", got)
	}
}

// A delta too long for one notification arrives in pieces whose texts add
// up to it, cut between runes; the tool's name is on the first piece.
func TestLiveDeltaChunks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	w := openAt(t, "", Options{})
	r := openAt(t, "", Options{Schema: w.schema})
	mustCreate(t, w, "run_big")
	mustAppend(t, w, "run_big", 1, toRunning)
	pieces, joined := make(chan run.Delta, 100), make(chan struct{})
	go func() {
		for e, err := range r.Live(ctx, "run_big", 1) {
			if err != nil {
				t.Error(err)
				return
			}
			if d, ok := e.Payload.(run.Delta); ok {
				pieces <- d
			} else if e.Seq == 2 {
				close(joined)
			} else if e.Seq == 4 {
				close(pieces)
			}
		}
	}()
	<-joined
	last := mustAppend(t, w, "run_big", 2, message("before"))
	big := strings.Repeat("é\"\n\x01日本", 2000) // quotes and control characters grow in JSON
	w.PublishDelta("run_big", run.Delta{Step: 1, What: run.DeltaToolCall, CallID: "call_1", Name: "get_weather", Text: big, After: 3})
	waitPublished(t, w)
	mustAppend(t, w, "run_big", last, message("done"))
	var sb strings.Builder
	n, off := 0, int64(0)
	for d := range pieces {
		if (n == 0) != (d.Name == "get_weather") || d.CallID != "call_1" || d.What != run.DeltaToolCall || d.Offset != off {
			t.Fatalf("piece %d: %+v", n, d)
		}
		sb.WriteString(d.Text)
		n, off = n+1, off+d.Len()
	}
	if sb.String() != big || n < 2 {
		t.Fatalf("%d pieces adding up to %d bytes, want %d bytes in several", n, sb.Len(), len(big))
	}
}

// waitPublished waits until the Store has sent the deltas it queued: an
// append after it is notified after them. (A run's deltas and its
// appends race otherwise, and a delta that arrives after its message was
// logged is dropped as stale.)
func waitPublished(t *testing.T, s *Store) {
	t.Helper()
	for {
		s.pub.mu.Lock()
		n := len(s.pub.queue) + s.pub.sending
		s.pub.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Deltas lost while a follower's listening connection is down are not
// papered over: the follower drops the message they belong to (which the
// log then holds), and sees the deltas of the next one.
func TestLiveDeltasAfterALostConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	app := "byref-livelost-" + newSchema()
	lost, release, back := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r := openAt(t, app, Options{
		onLost: func() { lost <- struct{}{}; <-release },
		onBack: func() { back <- struct{}{} },
	})
	w := openAt(t, "", Options{Schema: r.schema})
	mustCreate(t, w, "run_gap")
	last := mustAppend(t, w, "run_gap", 1, toRunning)
	f := liveFollower(ctx, r, "run_gap")
	expectLines(t, f, "1", "2")
	last = mustAppend(t, w, "run_gap", last, message("step"))
	w.PublishDelta("run_gap", text(3, 0, "a"))
	waitPublished(t, w)
	expectLines(t, f, "3", "Δ3 a")

	if n := queryInt(t, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app); n != 1 {
		t.Fatalf("ended %d listening sessions, want 1", n)
	}
	<-lost
	w.PublishDelta("run_gap", text(3, 1, "b")) // lost
	waitPublished(t, w)
	release <- struct{}{}
	<-back
	w.PublishDelta("run_gap", text(3, 2, "c")) // after a hole: dropped
	waitPublished(t, w)
	last = mustAppend(t, w, "run_gap", last, message("abc"))
	w.PublishDelta("run_gap", text(4, 0, "d"))
	waitPublished(t, w)
	mustAppend(t, w, "run_gap", last, toComplete)
	expectLines(t, f, "4", "Δ4 d", "5")
}

// Publishing while the Store closes neither blocks nor panics, and
// publishing after Close does nothing.
func TestPublishWhileClosing(t *testing.T) {
	w := openAt(t, "", Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			w.PublishDelta("run_x", text(int64(i/100), int64(i%100), "x"))
		}
	}()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	w.PublishDelta("run_x", text(99, 0, "after"))
}

// A follower that joins after a spell in which its Store followed
// nothing sees the deltas published after it joined: the deltas the
// Store's listener let go by unread in that spell are not a gap.
func TestLiveDeltasAfterNobodyFollowed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	notes := make(chan string, 100)
	w := openAt(t, "", Options{})
	r := openAt(t, "", Options{Schema: w.schema, onNotify: func(p string) { notes <- p }})
	heard := func(id string) {
		t.Helper()
		for p := range notes {
			if p == id {
				return
			}
		}
	}
	mustCreate(t, w, "run_a")
	last := mustAppend(t, w, "run_a", 1, toRunning)
	actx, stop := context.WithCancel(ctx)
	fa := liveFollower(actx, r, "run_a")
	expectLines(t, fa, "1", "2")
	mustAppend(t, w, "run_a", last, message("go"))
	w.PublishDelta("run_a", text(3, 0, "seen"))
	expectLines(t, fa, "3", "Δ3 seen")
	stop()
	for range fa {
	}
	w.PublishDelta("run_a", text(3, 4, "nobody follows"))
	waitPublished(t, w)
	mustCreate(t, w, "run_b")
	last = mustAppend(t, w, "run_b", 1, toRunning)
	heard("run_b") // after the delta nobody followed
	fb := liveFollower(ctx, r, "run_b")
	expectLines(t, fb, "1", "2")
	last = mustAppend(t, w, "run_b", last, message("go"))
	w.PublishDelta("run_b", text(3, 0, "Hel"))
	waitPublished(t, w)
	mustAppend(t, w, "run_b", last, message("Hello"), toComplete)
	expectLines(t, fb, "3", "Δ3 Hel", "4", "5")
}

// followRunning makes a running run (its events 1 and 2) in one
// process and follows it from another, once the follower has joined.
func followRunning(t *testing.T, id run.ID) (w *Store, last int64, f <-chan string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	t.Cleanup(cancel)
	w = openAt(t, "", Options{})
	r := openAt(t, "", Options{Schema: w.schema})
	mustCreate(t, w, id)
	last = mustAppend(t, w, id, 1, toRunning)
	f = liveFollower(ctx, r, id)
	expectLines(t, f, "1", "2")
	return w, last, f
}

// A follower that subscribes to a run before its first message streams
// gets every delta of that message, in order, between the event they
// follow and the next: a client that starts a run sees it written.
func TestLiveFirstMessageWhole(t *testing.T) {
	w, last, f := followRunning(t, "run_first")
	w.PublishDelta("run_first", text(2, 0, "Hel"))
	w.PublishDelta("run_first", text(2, 3, "lo, "))
	w.PublishDelta("run_first", text(2, 7, "world"))
	waitPublished(t, w)
	mustAppend(t, w, "run_first", last, message("Hello, world"), toComplete)
	expectLines(t, f, "Δ2 Hel", "Δ2 lo, ", "Δ2 world", "3", "4")
	if got, ok := <-f; ok {
		t.Fatalf("followed %q after the run ended", got)
	}
}

// A delta lost on the way (here, one the publisher never sent) cuts its
// message there: the deltas after it are dropped, never shown with a
// hole, and the next message comes whole.
func TestLiveDeltaLostCutsItsMessage(t *testing.T) {
	w, last, f := followRunning(t, "run_lost")
	w.PublishDelta("run_lost", text(2, 0, "a"))
	// "b", at offset 1, is lost.
	w.PublishDelta("run_lost", text(2, 2, "c"))
	w.PublishDelta("run_lost", text(2, 3, "d"))
	waitPublished(t, w)
	last = mustAppend(t, w, "run_lost", last, message("abcd"))
	w.PublishDelta("run_lost", text(3, 0, "e"))
	w.PublishDelta("run_lost", text(3, 1, "f"))
	waitPublished(t, w)
	mustAppend(t, w, "run_lost", last, message("ef"), toComplete)
	expectLines(t, f, "Δ2 a", "3", "Δ3 e", "Δ3 f", "4", "5")
	if got, ok := <-f; ok {
		t.Fatalf("followed %q after the run ended", got)
	}
}
