package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

// member is a replica of a store of its own (a process of its own) on a
// shared schema, joined, whose adoptions a test reads.
type member struct {
	*Replica
	adopted chan []run.ID
}

func join(t testing.TB, app, schema string) *member {
	t.Helper()
	s := openAt(t, app, Options{Schema: schema})
	r, err := s.NewReplica()
	if err != nil {
		t.Fatal(err)
	}
	m := &member{Replica: r, adopted: make(chan []run.ID, 8)}
	answer := func(_ context.Context, id run.ID, req []byte) []byte {
		return []byte(r.ID() + " answers " + string(req) + " for " + string(id))
	}
	adopt := func(_ context.Context, _ string, ids []run.ID) { m.adopted <- ids }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	if err := r.Join(ctx, answer, adopt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Leave(context.Background()) })
	return m
}

// Replicas on one schema: the owner of a run answers the commands another
// sends; a claim has one holder; when the owner's session ends without
// a word (its connections are ended), another replica takes over the
// runs it owned that have not ended, and the old owner learns it lost its
// lease: its Store writes no more.
func TestReplicas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	s := openAt(t, "", Options{})
	a := join(t, "replica_a", s.schema)
	b := join(t, "replica_b", s.schema)

	for _, id := range []run.ID{"r1", "r2", "r3"} {
		if _, _, err := s.Create(ctx, run.Event{RunID: id, Payload: run.RunCreated{}}); err != nil {
			t.Fatal(err)
		}
		ok, err := a.Own(ctx, id)
		if err != nil || !ok {
			t.Fatalf("a owns %s: %v, %v", id, ok, err)
		}
	}
	if r, err := s.NewReplica(); err != nil {
		t.Fatal(err)
	} else if _, err := r.Own(ctx, "r1"); err == nil || !strings.Contains(err.Error(), "Join") {
		t.Fatalf("a replica that has not joined owns a run: %v", err)
	}
	if ok, err := b.Own(ctx, "r1"); err != nil || ok {
		t.Fatalf("b owns r1, owned by a: %v, %v; want false", ok, err)
	}
	// r3 has ended: it is not handed over.
	if _, err := s.Append(ctx, "r3", 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusFailed}}); err != nil {
		t.Fatal(err)
	}
	if owner, err := b.Owner(ctx, "r1"); err != nil || owner != a.ID() {
		t.Fatalf("the owner of r1 is %q, %v; want %q", owner, err, a.ID())
	}
	reply, err := b.Ask(ctx, "r1", []byte("resume"))
	if want := a.ID() + " answers resume for r1"; err != nil || string(reply) != want {
		t.Fatalf("b asked: %q, %v; want %q", reply, err, want)
	}
	if _, err := a.Ask(ctx, "r1", nil); !errors.Is(err, run.ErrRunNotFound) {
		t.Fatalf("a asked about its own run: %v, want run.ErrRunNotFound", err)
	}
	if _, err := b.Ask(ctx, "nobody's", nil); !errors.Is(err, run.ErrRunNotFound) {
		t.Fatalf("b asked about a run no one owns: %v, want run.ErrRunNotFound", err)
	}
	if ok, err := a.Claim(ctx, "push", "k"); err != nil || !ok {
		t.Fatalf("a claims k: %v, %v", ok, err)
	}
	if ok, err := b.Claim(ctx, "push", "k"); err != nil || ok {
		t.Fatalf("b claims k, a's: %v, %v; want false", ok, err)
	}

	if n := terminate(t, "replica_a"); n == 0 {
		t.Fatal("ended no session of replica a")
	}
	select {
	case got := <-b.adopted:
		if !slices.Equal(got, []run.ID{"r1", "r2"}) {
			t.Fatalf("b adopted %v, want [r1 r2]", got)
		}
	case <-ctx.Done():
		t.Fatal("b did not take a over")
	}
	select {
	case <-a.Lost():
	case <-ctx.Done():
		t.Fatal("a did not learn it lost its lease")
	}
	if _, err := a.Claim(ctx, "push", "x"); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("a claims after it lost its lease: %v, want ErrLeaseLost", err)
	}
	// a's Store writes no more: b may be restoring its runs.
	if _, err := a.s.Append(ctx, "r1", 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusFailed}}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("a's Store appends after it lost its lease: %v, want ErrLeaseLost", err)
	}
	if owner, err := b.Owner(ctx, "r2"); err != nil || owner != b.ID() {
		t.Fatalf("the owner of r2 is %q, %v; want b, %q", owner, err, b.ID())
	}
	if ok, err := b.Claim(ctx, "push", "k"); err != nil || !ok {
		t.Fatalf("b claims k after taking a over: %v, %v", ok, err)
	}

	// A third replica joins; when b leaves, it takes b's runs over.
	c := join(t, "replica_c", s.schema)
	if err := b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-c.adopted:
		if !slices.Equal(got, []run.ID{"r1", "r2"}) {
			t.Fatalf("c adopted %v, want [r1 r2]", got)
		}
	case <-ctx.Done():
		t.Fatal("c did not take b over")
	}
	if n := queryInt(t, `SELECT count(*) FROM `+s.quoted+`.replicas`); n != 1 {
		t.Fatalf("%d replicas are left, want 1", n)
	}
}

// A command to an owner that stops before it answers fails with
// ErrOwnerGone once the owner is taken over, without waiting for its
// context.
func TestAskOwnerGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	s := openAt(t, "", Options{})
	s2 := openAt(t, "", Options{Schema: s.schema})
	a, err := s2.NewReplica()
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{})
	answer := func(ctx context.Context, _ run.ID, _ []byte) []byte {
		close(asked)
		<-ctx.Done() // never answers: it stops first
		return nil
	}
	if err := a.Join(ctx, answer, nil); err != nil {
		t.Fatal(err)
	}
	b := join(t, "", s.schema)
	if _, _, err := s.Create(ctx, run.Event{RunID: "r", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Own(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := b.Ask(ctx, "r", []byte("cancel"))
		errc <- err
	}()
	<-asked
	go a.Leave(context.Background())
	if err := <-errc; !errors.Is(err, ErrOwnerGone) {
		t.Fatalf("asked an owner that stopped: %v, want ErrOwnerGone", err)
	}
}

// BenchmarkAsk is a command forwarded to a run's owner and its answer:
// the command's row and notification, the owner's read and reply, the
// asker's read.
func BenchmarkAsk(b *testing.B) {
	ctx := context.Background()
	s := openAt(b, "", Options{})
	owner := join(b, "", s.schema)
	asker := join(b, "", s.schema)
	if _, _, err := s.Create(ctx, run.Event{RunID: "r", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	if _, err := owner.Own(ctx, "r"); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := asker.Ask(ctx, "r", []byte(`{"op":"cancel"}`)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}

// BenchmarkOwn is the lease a replica takes on each run it starts.
func BenchmarkOwn(b *testing.B) {
	ctx := context.Background()
	s := openAt(b, "", Options{})
	r := join(b, "", s.schema)
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		if _, err := r.Own(ctx, run.ID(strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}

// Idle replicas send the database nothing: once each waits for the
// other's lock, while another process appends 50 batches (whose
// notifications both replicas' Stores receive: the interval is measured
// by those events, not by a clock), neither sends a statement, and the
// server sees no new statement from any of their sessions.
func TestIdleReplicasSendNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	w := openAt(t, "", Options{})
	mustCreate(t, w, "run_busy")
	busy := mustAppend(t, w, "run_busy", 1, toRunning)
	type idle struct {
		app   string
		tr    *tracer
		notes chan string
		seen  string
		sent  int64
	}
	var replicas []*idle
	for i := range 2 {
		r := &idle{app: fmt.Sprintf("byref-idle-replica-%d-%s", i, w.schema), tr: &tracer{sql: make(chan string, 10000)}, notes: make(chan string, 1000)}
		s := openAt(t, r.app, Options{Schema: w.schema, tracer: r.tr, onNotify: func(p string) { r.notes <- p }})
		rep, err := s.NewReplica()
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Join(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rep.Leave(context.Background()) })
		replicas = append(replicas, r)
	}
	// Until each waits for the other's lock.
	for queryInt(t, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name IN ($1, $2)`, replicas[0].app, replicas[1].app) < 2 {
		if ctx.Err() != nil {
			t.Fatal("the replicas do not wait for each other's locks")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, r := range replicas {
		r.sent, r.seen = r.tr.n.Load(), activity(t, r.app)
	}
	const appends = 50
	for range appends {
		busy = mustAppend(t, w, "run_busy", busy, message("elsewhere"))
	}
	for _, r := range replicas {
		for heard := 0; heard < appends; {
			if p := <-r.notes; p == "run_busy" {
				heard++
			}
		}
		if n := r.tr.n.Load() - r.sent; n != 0 {
			t.Errorf("an idle replica's Store sent %d statements while %d appends elsewhere were notified to it", n, appends)
		}
		if now := activity(t, r.app); now != r.seen {
			t.Errorf("the server saw an idle replica's sessions work:\nbefore %s\nafter  %s", r.seen, now)
		}
	}
}
