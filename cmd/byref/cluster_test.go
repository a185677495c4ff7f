package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/temporaltest"
)

// The cluster test's sizes: 1,000 runs in all, through 3 replicas of
// byref serve, on a model that answers after 100 ms: 600 runs in the
// replicas' processes, 400 on Temporal workers. The runs on Temporal cost
// the dev server and the workers far more CPU than runs in a replica's
// process (a workflow task and an activity per model call and step, each
// a round trip through the dev server), so fewer of them go there: the
// test stays within minutes on a 2-core CI machine.
const (
	clusterModel = "scripted:cluster?delay=100ms"
	replicaRuns  = 600
	temporalRuns = 400
	askEvery     = 10 // one run in askEvery asks for an approval
	senders      = 16 // clients sending runs at once
	// takeoverBound is the acceptance bound: a run whose owner replica
	// is killed goes on from another replica within it.
	takeoverBound = 10 * time.Second
	// workerTakeoverBound bounds the same for a killed Temporal worker,
	// whose runs move when Temporal misses its heartbeat
	// (--worker-lost-after 2s) and schedules the run's next task on the
	// other worker: 5 to 7 s measured on an idle machine, so 10 s would
	// leave no room for a CI machine running the race suite beside it.
	workerTakeoverBound = 20 * time.Second
)

// TestCluster runs byref as a team deploys it beyond one machine: byref
// serve replicas and Temporal workers as separate OS processes, each in
// its own empty working directory, sharing one PostgreSQL server. It
// sends runs to the replicas at random over ACP, answers the approvals
// some of them ask for through another replica than the one that
// started them, and SIGKILLs an owner in the middle. Then no run is lost,
// every run completes (or awaits, when it asked and was not answered), no
// step of a run is recorded twice, the runs of the killed owner go on
// within takeoverBound (a replica's) or workerTakeoverBound (a
// worker's), and the idle cluster sends the database no statement.
//
// Two clusters, one after the other, each on its own database: 3
// replicas that run the runs in their processes, of which one is killed
// (its runs are taken over by the others); then 3 replicas that start
// the runs on 2 Temporal workers, of which one replica and one worker are
// killed. A database each keeps each cluster's checks to its own runs
// (the replicas of the first would take over runs of the second);
// one after the other keeps the CPU of a 2-core machine for one.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, Temporal's dev server and five byref processes")
	}
	pg := pgtest.Start(t)
	t.Run("runs in the replicas", func(t *testing.T) {
		c := startCluster(t, pg.Database(t), 3, "--approve", "on_tool_call")
		c.owners = true
		c.load(t, replicaRuns, func() { c.kill(t, c.replicas[0].served) })
		c.check(t)
	})
	t.Run("runs on Temporal workers", func(t *testing.T) {
		db := pg.Database(t)
		hostPort, _ := temporaltest.DevServer(t)
		common := []string{"--temporal", hostPort, "--task-queue", "cluster", "--worker-lost-after", "2s"}
		var workers []*served
		for range 2 {
			workers = append(workers, launch(t, t.TempDir(), append([]string{"worker", "--store", db, "--model", clusterModel}, common...)...))
		}
		c := startCluster(t, db, 3, append([]string{"--approve", "on_tool_call"}, common...)...)
		c.load(t, temporalRuns, func() {
			c.kill(t, c.replicas[0].served)
			c.kill(t, workers[0])
		})
		c.check(t)
	})
}

// cluster is byref serve replicas on one database, and what the test
// sent them.
type cluster struct {
	db       string // the database's URL
	conn     *pgx.Conn
	replicas []*replica

	// owners reports that the replicas run the runs (not workers): a run
	// started through the killed replica is the one whose owner died.
	owners bool

	mu     sync.Mutex
	runs   map[string]*sentRun // by ID
	killAt time.Time
	killed []*served
}

// replica is a byref serve process and whether it is alive.
type replica struct {
	*served
	dead atomic.Bool
}

// sentRun is a run a replica acknowledged.
type sentRun struct {
	id       string
	via      *replica // the replica that started it
	ask      bool     // it asks for an approval
	answered bool     // the test approved it, through another replica
}

// startCluster starts n byref serve replicas on the database db with
// args, each in its own empty working directory.
func startCluster(t *testing.T, db string, n int, args ...string) *cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	c := &cluster{db: db, conn: conn, runs: map[string]*sentRun{}}
	for range n {
		addr := freeAddr(t)
		s := launch(t, t.TempDir(), append([]string{"serve", "--addr", addr, "--store", db, "--model", clusterModel}, args...)...)
		s.base = "http://" + addr
		c.replicas = append(c.replicas, &replica{served: s})
	}
	return c
}

// kill SIGKILLs a process of the cluster, the first time at killAt.
func (c *cluster) kill(t *testing.T, s *served) {
	t.Helper()
	c.mu.Lock()
	if c.killAt.IsZero() {
		c.killAt = time.Now()
	}
	c.killed = append(c.killed, s)
	c.mu.Unlock()
	for _, r := range c.replicas {
		if r.served == s {
			r.dead.Store(true)
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
}

// alive returns a replica that is alive, at random, but not not.
func (c *cluster) alive(not *replica) *replica {
	var rs []*replica
	for _, r := range c.replicas {
		if !r.dead.Load() && r != not {
			rs = append(rs, r)
		}
	}
	return rs[rand.IntN(len(rs))]
}

// load sends n runs to the replicas at random, senders at a time, calls
// middle once half of them are acknowledged, then answers half of the
// runs that ask, each through another replica than the one that started
// it, once it awaits. A run refused because its replica died is sent
// again to another, as a client behind a load balancer does.
func (c *cluster) load(t *testing.T, n int, middle func()) {
	t.Helper()
	var next, acked atomic.Int64
	var retried atomic.Int64
	half := make(chan struct{})
	errs := make(chan error, senders)
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				ask := i%askEvery == 0
				task := fmt.Sprintf("run %d", i)
				if ask {
					task = fmt.Sprintf("ask %d", i)
				}
				for {
					r := c.alive(nil)
					id, err := r.start(task)
					if err != nil && r.dead.Load() {
						retried.Add(1)
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					c.mu.Lock()
					c.runs[id] = &sentRun{id: id, via: r, ask: ask}
					c.mu.Unlock()
					break
				}
				if acked.Add(1) == int64(n/2) {
					close(half)
				}
			}
		}()
	}
	start := time.Now()
	select {
	case <-half:
		middle()
	case err := <-errs:
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d runs acknowledged in %v (%d sends to a killed replica sent again)", n, time.Since(start).Round(time.Millisecond), retried.Load())

	// Approve half of the runs that ask, through another replica.
	var asks []*sentRun
	for _, r := range c.runs {
		if r.ask {
			asks = append(asks, r)
		}
	}
	slices.SortFunc(asks, func(a, b *sentRun) int { return strings.Compare(a.id, b.id) })
	for i, r := range asks {
		if i%2 == 1 {
			continue
		}
		c.waitStatus(t, r.id, "awaiting")
		via := c.alive(r.via)
		if err := via.approve(r.id); err != nil {
			t.Fatalf("approving run %s (started on %s) through %s: %v\n%s", r.id, r.via.base, via.base, err, notable(via.out.String()))
		}
		r.answered = true
	}
}

// start creates a run of task over ACP, in async mode, and returns its
// ID.
func (r *replica) start(task string) (string, error) {
	var got acpRun
	if err := r.call("/runs", create(task, "async"), &got); err != nil {
		return "", err
	}
	if got.RunID == "" {
		return "", fmt.Errorf("%s created a run without an ID", r.base)
	}
	return got.RunID, nil
}

// approve answers the run's await with an approval.
func (r *replica) approve(id string) error {
	return r.call("/runs/"+id, `{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content_type":"text/plain","content":"approve"}]}},"mode":"async"}`, nil)
}

// call POSTs body to path and decodes the answer into out.
func (r *replica) call(path, body string, out any) error {
	resp, err := http.Post(r.base+path, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s%s: %s: %s", r.base, path, resp.Status, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// waitStatus waits until the database says the run has status.
func (c *cluster) waitStatus(t *testing.T, id, status string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for {
		var got string
		err := c.conn.QueryRow(context.Background(), `SELECT status FROM byref.runs WHERE id = $1`, id).Scan(&got)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if got == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %q after 2 minutes, want %s", id, got, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// check waits until every run has finished or awaits, then asserts what
// the cluster promises, from the database's logs.
func (c *cluster) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	wantAwaiting := 0
	for _, r := range c.runs {
		if r.ask && !r.answered {
			wantAwaiting++
		}
	}
	// Every run settles: completed, or awaiting when it asked and was not
	// answered. The database holds the runs the killed replica created
	// but never acknowledged too: they must settle as well.
	deadline := time.Now().Add(3 * time.Minute) // a hang guard
	var counts map[string]int
	for {
		counts = map[string]int{}
		rows, err := c.conn.Query(ctx, `SELECT status, count(*) FROM byref.runs GROUP BY status`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var st string
			var n int
			if err := rows.Scan(&st, &n); err != nil {
				t.Fatal(err)
			}
			counts[st] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		total := total(counts)
		if counts["completed"]+counts["awaiting"] == total && total >= len(c.runs) && counts["awaiting"] <= wantAwaiting+total-len(c.runs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runs have not settled after 3 minutes: %v (%d sent, %d of them left awaiting)", counts, len(c.runs), wantAwaiting)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("runs in the database by status: %v (%d acknowledged, %d of them asked and were left awaiting; %d more started by the killed replica, which died before it answered)",
		counts, len(c.runs), wantAwaiting, total(counts)-len(c.runs))

	// 0 runs lost: each acknowledged run is in the database, completed,
	// or awaiting when it asked and was not answered.
	status := map[string]string{}
	rows, err := c.conn.Query(ctx, `SELECT id, status FROM byref.runs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			t.Fatal(err)
		}
		status[id] = st
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for id, r := range c.runs {
		want := "completed"
		if r.ask && !r.answered {
			want = "awaiting"
		}
		if got, ok := status[id]; !ok {
			lost++
			t.Errorf("run %s, acknowledged by %s, is not in the database", id, r.via.base)
		} else if got != want {
			t.Errorf("run %s (asks: %v, answered: %v) is %s, want %s", id, r.ask, r.answered, got, want)
		}
	}
	if lost > 0 {
		t.Errorf("%d runs lost", lost)
	}

	c.checkNoStepTwice(t)
	c.checkTakeover(t)
	c.checkIdle(t)
}

// total is the sum of counts.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// checkNoStepTwice asserts that no run's log records a step twice: one
// model answer per step, one scheduling and one completion per tool call,
// one execution per snippet, one request and one resolution per await.
func (c *cluster) checkNoStepTwice(t *testing.T) {
	t.Helper()
	rows, err := c.conn.Query(context.Background(), `
		SELECT r.id, e.type, coalesce(d->'data'->'call'->>'id', d->'data'->>'call_id', d->'data'->>'id', d->'data'->>'await_id', ''),
			coalesce(d->'data'->>'step', ''), count(*)
		FROM byref.runs r JOIN byref.events e ON e.run = r.pk, LATERAL (SELECT e.data::jsonb AS d) j
		WHERE e.type IN ('assistant_message', 'tool_call_scheduled', 'tool_call_completed', 'snippet_executed', 'await_requested', 'await_resolved', 'result')
		GROUP BY 1, 2, 3, 4 HAVING count(*) > 1
		ORDER BY 1 LIMIT 20`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, typ, key, step string
		var n int
		if err := rows.Scan(&id, &typ, &key, &step, &n); err != nil {
			t.Fatal(err)
		}
		t.Errorf("run %s records %s %q of step %s %d times", id, typ, key, step, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// bound is how soon a run of the killed owner must go on: a
// replica's within takeoverBound, a worker's within workerTakeoverBound.
func (c *cluster) bound() time.Duration {
	if c.owners {
		return takeoverBound
	}
	return workerTakeoverBound
}

// checkTakeover asserts that every run that was created or running when
// its owner was killed went on within c.bound(): its first event after the
// kill came within it. When the replicas own the runs, those are the runs
// started through the killed replica (and those it started but never
// acknowledged); on Temporal, which worker hosted a run is not known
// here: every run running at the kill counts, and the surviving worker's
// go on at once, so the slowest is one of the killed worker's. It logs
// what it measured.
func (c *cluster) checkTakeover(t *testing.T) {
	t.Helper()
	type span struct {
		before, after int64 // the last event's time before the kill, the first's after (Unix ns)
		status        string
	}
	kill := c.killAt.UnixNano()
	rows, err := c.conn.Query(context.Background(), `
		SELECT r.id, e.time, e.type, coalesce(e.data::jsonb->'data'->>'to', '')
		FROM byref.runs r JOIN byref.events e ON e.run = r.pk ORDER BY r.id, e.seq`)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]*span{}
	for rows.Next() {
		var id, typ, to string
		var at int64
		if err := rows.Scan(&id, &at, &typ, &to); err != nil {
			t.Fatal(err)
		}
		s := runs[id]
		if s == nil {
			s = &span{}
			runs[id] = s
		}
		switch {
		case at <= kill:
			s.before = at
			if typ == "status_changed" {
				s.status = to
			}
		case s.after == 0:
			s.after = at
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var gaps []time.Duration
	for id, s := range runs {
		if s.before == 0 || s.status != "" && s.status != "running" { // started after the kill, or awaiting or done at it ("": created)
			continue
		}
		if sent, ok := c.runs[id]; c.owners && ok && !sent.via.dead.Load() {
			continue // its owner lives
		}
		if s.after == 0 {
			t.Errorf("run %s, created or running at the kill, never went on", id)
			continue
		}
		gaps = append(gaps, time.Duration(s.after-kill))
	}
	if len(gaps) == 0 {
		t.Fatalf("no run of the killed owner was running at the kill")
	}
	slices.Sort(gaps)
	worst := gaps[len(gaps)-1]
	t.Logf("%d runs of the killed owner were created or running at the kill; their next event came after it: p50 %v, p99 %v, max %v (bound %v)",
		len(gaps), gaps[len(gaps)/2].Round(time.Millisecond), gaps[len(gaps)*99/100].Round(time.Millisecond), worst.Round(time.Millisecond), c.bound())
	for _, l := range c.replicaLines("took over") {
		t.Logf("%v after the kill, a replica printed: %s", l.at.Sub(c.killAt).Round(time.Millisecond), l.text)
	}
	if bound := c.bound(); worst > bound {
		t.Errorf("a run whose owner was killed went on %v after the kill, past %v", worst.Round(time.Millisecond), bound)
	}
}

// replicaLines returns what the replicas alive printed that contains
// text.
func (c *cluster) replicaLines(text string) []stamped {
	var out []stamped
	for _, r := range c.replicas {
		if !r.dead.Load() {
			out = append(out, r.printed(text)...)
		}
	}
	return out
}

// idleFor is how long the idle cluster is watched: any polling faster
// than it shows.
const idleFor = 5 * time.Second

// checkIdle asserts that the idle cluster sends the database nothing:
// over idleFor, no session of the database but the test's starts a
// statement, and no new session connects. pg_stat_activity shows each
// session's latest statement's start; a keep-alive of TCP or of the
// protocol is not a statement.
func (c *cluster) checkIdle(t *testing.T) {
	t.Helper()
	before := c.activity(t)
	time.Sleep(idleFor)
	after := c.activity(t)
	worked := 0
	for pid, now := range after {
		if was, ok := before[pid]; !ok || was != now {
			worked++
			t.Errorf("the idle cluster sent the database a statement: session %d was %q, is %q", pid, was, now)
		}
	}
	t.Logf("over %v idle, %d of the cluster's %d sessions of the database started a statement", idleFor, worked, len(after))
}

// activity returns, for each session of the cluster's database but the
// test's, its application, its latest statement and when that started.
func (c *cluster) activity(t *testing.T) map[int]string {
	t.Helper()
	rows, err := c.conn.Query(context.Background(), `
		SELECT pid, application_name || ' ' || coalesce(query_start::text, '-') || ' ' || left(query, 80)
		FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for rows.Next() {
		var pid int
		var what string
		if err := rows.Scan(&pid, &what); err != nil {
			t.Fatal(err)
		}
		out[pid] = what
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// notable returns the lines of a replica's output but its logs of runs
// that start and end.
func notable(s string) string {
	var out []string
	for l := range strings.Lines(s) {
		if !strings.Contains(l, `msg="run started"`) && !strings.Contains(l, `msg="run ended"`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
