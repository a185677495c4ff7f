package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

// base is the time of the suite's first event; events are a second apart.
var base = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// Run runs the conformance suite against stores made by newStore, which is
// called once per subtest and should register any cleanup with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) run.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, run.Store)
	}{
		{"CreateIdempotent", testCreateIdempotent},
		{"CreateInvalid", testCreateInvalid},
		{"CreateConcurrentSameID", testCreateConcurrentSameID},
		{"AppendSequence", testAppendSequence},
		{"AppendConflict", testAppendConflict},
		{"AppendConcurrentSameRun", testAppendConcurrentSameRun},
		{"AppendAtomic", testAppendAtomic},
		{"AppendTransitions", testAppendTransitions},
		{"ReadFrom", testReadFrom},
		{"NotFound", testNotFound},
		{"Get", testGet},
		{"ListFilters", testListFilters},
		{"ListPaging", testListPaging},
		{"RoundTripEveryKind", testRoundTrip},
		{"EventsStoredThenLive", testEventsStoredThenLive},
		{"EventsFromSeq", testEventsFromSeq},
		{"EventsEndsWhenTerminal", testEventsEndsWhenTerminal},
		{"EventsContextDone", testEventsContextDone},
		{"EventsBreak", testEventsBreak},
		{"ConcurrentRunsAndSubscribers", testConcurrent},
		{"Records", testRecords},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newStore(t))
		})
	}
}

// at returns the suite's time plus i seconds.
func at(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }

func status(from, to run.Status) run.Event {
	return run.Event{Payload: run.StatusChanged{From: from, To: to}}
}

func message(text string) run.Event {
	return run.Event{Payload: run.AssistantMessage{Text: text}}
}

// mustCreate creates a run with a full RunCreated event.
func mustCreate(t *testing.T, s run.Store, id run.ID) run.Summary {
	t.Helper()
	sum, ok, err := s.Create(context.Background(), created(id, at(0)))
	if err != nil || !ok {
		t.Fatalf("Create(%q) = %v, %v; want created", id, ok, err)
	}
	return sum
}

// mustAppend appends and checks the returned sequence number.
func mustAppend(t *testing.T, s run.Store, id run.ID, last int64, events ...run.Event) int64 {
	t.Helper()
	seq, err := s.Append(context.Background(), id, last, events...)
	if err != nil {
		t.Fatalf("Append(%q, %d, %d events): %v", id, last, len(events), err)
	}
	if want := last + int64(len(events)); seq != want {
		t.Fatalf("Append(%q, %d, %d events) = %d, want %d", id, last, len(events), seq, want)
	}
	return seq
}

func mustRead(t *testing.T, s run.Store, id run.ID, from int64, limit int) []run.Event {
	t.Helper()
	events, err := s.Read(context.Background(), id, from, limit)
	if err != nil {
		t.Fatalf("Read(%q, %d, %d): %v", id, from, limit, err)
	}
	return events
}

// checkSeqs checks that events are numbered from, from+1, … and belong to id.
func checkSeqs(t *testing.T, id run.ID, events []run.Event, from int64) {
	t.Helper()
	for i, e := range events {
		if want := from + int64(i); e.Seq != want || e.RunID != id {
			t.Fatalf("event %d is %s#%d, want %s#%d", i, e.RunID, e.Seq, id, want)
		}
	}
}

func testCreateIdempotent(t *testing.T, s run.Store) {
	ctx := context.Background()
	first := mustCreate(t, s, "run_a")
	if first.ID != "run_a" || first.Status != run.StatusCreated || first.LastSeq != 1 ||
		first.Name != "weather" || first.Session != "sess_1" || first.Tags["order"] != "42" ||
		!first.CreatedAt.Equal(at(0)) {
		t.Fatalf("Create summary = %+v", first)
	}
	mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning))
	again := run.Event{RunID: "run_a", Time: at(5), Payload: run.RunCreated{Name: "other"}}
	sum, ok, err := s.Create(ctx, again)
	if err != nil || ok {
		t.Fatalf("second Create = %v, %v; want existing run, not created, no error", ok, err)
	}
	if sum.Name != "weather" || sum.Status != run.StatusRunning || sum.LastSeq != 2 {
		t.Fatalf("second Create returned %+v; want the existing run", sum)
	}
	events := mustRead(t, s, "run_a", 1, 0)
	if len(events) != 2 || events[0].Type() != run.EventRunCreated {
		t.Fatalf("log after second Create = %v", events)
	}
}

func testCreateInvalid(t *testing.T, s run.Store) {
	ctx := context.Background()
	for _, e := range []run.Event{
		{Payload: run.RunCreated{Name: "no id"}},
		{RunID: "run_x", Payload: run.UserMessage{Text: "not a creation"}},
		{RunID: "run_x"},
		{RunID: "run_x", Seq: 7, Payload: run.RunCreated{}},
	} {
		if _, _, err := s.Create(ctx, e); !errors.Is(err, run.ErrInvalidEvent) {
			t.Errorf("Create(%+v) = %v, want ErrInvalidEvent", e, err)
		}
	}
	if _, err := s.Get(ctx, "run_x"); !errors.Is(err, run.ErrRunNotFound) {
		t.Errorf("an invalid Create left a run: Get = %v", err)
	}
}

func testCreateConcurrentSameID(t *testing.T, s run.Store) {
	const n = 8
	var wg sync.WaitGroup
	results := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			_, ok, err := s.Create(context.Background(), created("run_same", at(i)))
			if err != nil {
				t.Errorf("Create: %v", err)
			}
			results[i] = ok
		})
	}
	wg.Wait()
	if c := countTrue(results); c != 1 {
		t.Fatalf("%d of %d concurrent Creates of one ID created it, want 1", c, n)
	}
	if events := mustRead(t, s, "run_same", 1, 0); len(events) != 1 {
		t.Fatalf("log has %d events, want 1", len(events))
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func testAppendSequence(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	last := mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning))
	last = mustAppend(t, s, "run_a", last, message("one"), message("two"), message("three"))
	last = mustAppend(t, s, "run_a", last, run.Event{RunID: "run_a", Seq: 99, Time: at(9), Payload: run.Usage{InputTokens: 1}})
	if last != 6 {
		t.Fatalf("last = %d, want 6", last)
	}
	if _, err := s.Append(context.Background(), "run_a", last); err != nil {
		t.Fatalf("empty Append: %v", err)
	}
	events := mustRead(t, s, "run_a", 1, 0)
	checkSeqs(t, "run_a", events, 1)
	if len(events) != 6 {
		t.Fatalf("%d events, want 6", len(events))
	}
	for _, e := range events {
		if e.Time.IsZero() || e.Time.Location() != time.UTC {
			t.Errorf("event %d has time %v, want a UTC time", e.Seq, e.Time)
		}
	}
	if !events[5].Time.Equal(at(9)) {
		t.Errorf("an event's own time was not kept: %v", events[5].Time)
	}
	if got := events[2].Payload.(run.AssistantMessage).Text; got != "one" {
		t.Errorf("event 3 = %q, want one", got)
	}
}

func testAppendConflict(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning), message("x"))
	for _, last := range []int64{0, 1, 2, 4, 100} {
		_, err := s.Append(context.Background(), "run_a", last, message("late"))
		var ce *run.ConflictError
		if !errors.Is(err, run.ErrConflict) || !errors.As(err, &ce) {
			t.Fatalf("Append with last %d = %v, want a *ConflictError", last, err)
		}
		if ce.RunID != "run_a" || ce.Expected != last || ce.Actual != 3 {
			t.Fatalf("ConflictError = %+v, want run_a expected %d actual 3", ce, last)
		}
	}
	if events := mustRead(t, s, "run_a", 1, 0); len(events) != 3 {
		t.Fatalf("a refused append was stored: %d events", len(events))
	}
}

func testAppendConcurrentSameRun(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning))
	const n = 8
	var wg sync.WaitGroup
	won := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			_, err := s.Append(context.Background(), "run_a", 2, message(fmt.Sprint(i)), message(fmt.Sprint(i)))
			switch {
			case err == nil:
				won[i] = true
			case !errors.Is(err, run.ErrConflict):
				t.Errorf("Append: %v, want nil or ErrConflict", err)
			}
		})
	}
	wg.Wait()
	if c := countTrue(won); c != 1 {
		t.Fatalf("%d of %d racing appends with the same last won, want 1", c, n)
	}
	events := mustRead(t, s, "run_a", 1, 0)
	checkSeqs(t, "run_a", events, 1)
	if len(events) != 4 || !reflect.DeepEqual(events[2].Payload, events[3].Payload) {
		t.Fatalf("log = %v; want one whole batch", events)
	}
}

func testAppendAtomic(t *testing.T, s run.Store) {
	ctx := context.Background()
	mustCreate(t, s, "run_a")
	bad := [][]run.Event{
		{message("ok"), {}},
		{message("ok"), {RunID: "run_other", Payload: run.Usage{}}},
		{message("ok"), created("run_a", at(1))},
		{message("ok"), status(run.StatusCreated, run.StatusRunning), status(run.StatusRunning, run.StatusCanceled)},
		{status(run.StatusCreated, run.StatusRunning), status(run.StatusCreated, run.StatusRunning)},
		{message("ok"), {Payload: run.Unknown{Type: "from_the_future"}}},
	}
	for i, batch := range bad {
		if _, err := s.Append(ctx, "run_a", 1, batch...); err == nil {
			t.Errorf("bad batch %d was accepted", i)
		}
	}
	if events := mustRead(t, s, "run_a", 1, 0); len(events) != 1 {
		t.Fatalf("refused batches left %d events, want 1", len(events))
	}
	if sum, _ := s.Get(ctx, "run_a"); sum.Status != run.StatusCreated || sum.LastSeq != 1 {
		t.Fatalf("refused batches changed the summary: %+v", sum)
	}
	mustAppend(t, s, "run_a", 1, message("after"))
}

func testAppendTransitions(t *testing.T, s run.Store) {
	ctx := context.Background()
	mustCreate(t, s, "run_a")
	_, err := s.Append(ctx, "run_a", 1, status(run.StatusCreated, run.StatusCompleted))
	var te *run.TransitionError
	if !errors.As(err, &te) || te.From != run.StatusCreated || te.To != run.StatusCompleted {
		t.Fatalf("created → completed: %v, want *TransitionError", err)
	}
	if _, err := s.Append(ctx, "run_a", 1, status(run.StatusRunning, run.StatusCompleted)); !errors.Is(err, run.ErrInvalidEvent) {
		t.Fatalf("a move from a status the run is not in: %v, want ErrInvalidEvent", err)
	}
	last := mustAppend(t, s, "run_a", 1,
		status(run.StatusCreated, run.StatusRunning),
		status(run.StatusRunning, run.StatusCompleted))
	last = mustAppend(t, s, "run_a", last, message("follow-up"), status(run.StatusCompleted, run.StatusRunning))
	last = mustAppend(t, s, "run_a", last, run.Event{Payload: run.StatusChanged{
		From: run.StatusRunning, To: run.StatusFailed, Reason: "interrupted"}})
	sum, err := s.Get(ctx, "run_a")
	if err != nil || sum.Status != run.StatusFailed || sum.Reason != "interrupted" || sum.LastSeq != last {
		t.Fatalf("Get = %+v, %v; want failed, interrupted, last %d", sum, err, last)
	}
	for _, e := range []run.Event{message("late"), status(run.StatusFailed, run.StatusRunning)} {
		if _, err := s.Append(ctx, "run_a", last, e); !errors.Is(err, run.ErrFinished) {
			t.Errorf("Append %s to a failed run: %v, want ErrFinished", e.Type(), err)
		}
	}
	mustCreate(t, s, "run_b")
	last = mustAppend(t, s, "run_b", 1, status(run.StatusCreated, run.StatusCancelling), status(run.StatusCancelling, run.StatusCanceled))
	if _, err := s.Append(ctx, "run_b", last, message("late")); !errors.Is(err, run.ErrFinished) {
		t.Errorf("Append to a canceled run: %v, want ErrFinished", err)
	}
}

func testReadFrom(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	var batch []run.Event
	for i := range 9 {
		batch = append(batch, message(fmt.Sprint(i)))
	}
	mustAppend(t, s, "run_a", 1, batch...)
	for _, tt := range []struct {
		from      int64
		limit     int
		wantFirst int64
		wantLen   int
	}{
		{0, 0, 1, 10}, {-5, 0, 1, 10}, {1, 0, 1, 10}, {4, 0, 4, 7}, {4, 3, 4, 3},
		{10, 0, 10, 1}, {10, 5, 10, 1}, {11, 0, 0, 0}, {1000, 2, 0, 0},
	} {
		events := mustRead(t, s, "run_a", tt.from, tt.limit)
		if len(events) != tt.wantLen {
			t.Errorf("Read(from %d, limit %d) returned %d events, want %d", tt.from, tt.limit, len(events), tt.wantLen)
			continue
		}
		checkSeqs(t, "run_a", events, tt.wantFirst)
	}
}

func testNotFound(t *testing.T, s run.Store) {
	ctx := context.Background()
	mustCreate(t, s, "run_a")
	const id = "run_missing"
	if _, err := s.Append(ctx, id, 1, message("x")); !errors.Is(err, run.ErrRunNotFound) {
		t.Errorf("Append: %v, want ErrRunNotFound", err)
	}
	if _, err := s.Read(ctx, id, 1, 0); !errors.Is(err, run.ErrRunNotFound) {
		t.Errorf("Read: %v, want ErrRunNotFound", err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, run.ErrRunNotFound) {
		t.Errorf("Get: %v, want ErrRunNotFound", err)
	}
	if _, err := run.LoadSnapshot(ctx, s, id); !errors.Is(err, run.ErrRunNotFound) {
		t.Errorf("LoadSnapshot: %v, want ErrRunNotFound", err)
	}
	n := 0
	for _, err := range s.Events(ctx, id, 1) {
		n++
		if !errors.Is(err, run.ErrRunNotFound) {
			t.Errorf("Events yielded %v, want ErrRunNotFound", err)
		}
	}
	if n != 1 {
		t.Errorf("Events yielded %d times, want one error", n)
	}
}

func testGet(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	last := mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning),
		run.Event{Time: at(7), Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusAwaiting, Reason: "approval"}})
	sum, err := s.Get(context.Background(), "run_a")
	if err != nil {
		t.Fatal(err)
	}
	want := run.Summary{ID: "run_a", Name: "weather", Session: "sess_1", Turn: "turn_1",
		ParentRun: "run_parent", ParentToolCall: "call_9",
		Tags:   map[string]string{"order": "42", "team": "ops"},
		Status: run.StatusAwaiting, Reason: "approval", CreatedAt: at(0), UpdatedAt: at(7), LastSeq: last}
	if !reflect.DeepEqual(sum, want) {
		t.Fatalf("Get =\n%+v\nwant\n%+v", sum, want)
	}
}

// listFixture creates runs r0…r9 (r9 newest) with statuses, tags, sessions
// and parents that the filters tell apart.
func listFixture(t *testing.T, s run.Store) {
	ctx := context.Background()
	for i := range 10 {
		id := run.ID(fmt.Sprintf("r%d", i))
		c := run.RunCreated{
			Name:    fmt.Sprintf("run %d", i),
			Session: run.SessionID(fmt.Sprintf("s%d", i%2)),
			Tags:    map[string]string{"n": fmt.Sprint(i), "parity": []string{"even", "odd"}[i%2]},
		}
		if i%3 == 0 {
			c.Tags["three"] = "yes"
		}
		if i >= 8 {
			c.ParentRun = "r0"
		}
		if _, _, err := s.Create(ctx, run.Event{RunID: id, Time: at(i), Payload: c}); err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 1:
			mustAppend(t, s, id, 1, status(run.StatusCreated, run.StatusRunning))
		case 2:
			mustAppend(t, s, id, 1, status(run.StatusCreated, run.StatusRunning), status(run.StatusRunning, run.StatusCompleted))
		case 3:
			mustAppend(t, s, id, 1, status(run.StatusCreated, run.StatusFailed))
		}
	}
}

func ids(runs []run.Summary) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = string(r.ID)
	}
	return out
}

func testListFilters(t *testing.T, s run.Store) {
	listFixture(t, s)
	for _, tt := range []struct {
		name string
		q    run.Query
		want []string
	}{
		{"all", run.Query{}, []string{"r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0"}},
		{"status", run.Query{Statuses: []run.Status{run.StatusRunning}}, []string{"r9", "r5", "r1"}},
		{"statuses", run.Query{Statuses: []run.Status{run.StatusCompleted, run.StatusFailed}}, []string{"r7", "r6", "r3", "r2"}},
		{"no match", run.Query{Statuses: []run.Status{run.StatusCanceled}}, []string{}},
		{"tag", run.Query{Tags: map[string]string{"parity": "odd"}}, []string{"r9", "r7", "r5", "r3", "r1"}},
		{"tags", run.Query{Tags: map[string]string{"parity": "odd", "three": "yes"}}, []string{"r9", "r3"}},
		{"tag value", run.Query{Tags: map[string]string{"n": "4"}}, []string{"r4"}},
		{"tag absent", run.Query{Tags: map[string]string{"three": "no"}}, []string{}},
		{"session", run.Query{Session: "s0"}, []string{"r8", "r6", "r4", "r2", "r0"}},
		{"parent", run.Query{ParentRun: "r0"}, []string{"r9", "r8"}},
		{"time", run.Query{CreatedAfter: at(3), CreatedBefore: at(6)}, []string{"r5", "r4", "r3"}},
		{"all filters", run.Query{Statuses: []run.Status{run.StatusCreated, run.StatusCompleted},
			Session: "s0", Tags: map[string]string{"parity": "even"}, CreatedAfter: at(1)},
			[]string{"r8", "r6", "r4", "r2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, next, err := s.List(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(runs); !slices.Equal(got, tt.want) || next != "" {
				t.Fatalf("List = %v, next %q; want %v, no next page", got, next, tt.want)
			}
		})
	}
	runs, _, _ := s.List(context.Background(), run.Query{Tags: map[string]string{"n": "7"}})
	if len(runs) != 1 || runs[0].Status != run.StatusFailed || runs[0].Tags["parity"] != "odd" || !runs[0].CreatedAt.Equal(at(7)) {
		t.Fatalf("listed summary = %+v", runs)
	}
}

func testListPaging(t *testing.T, s run.Store) {
	ctx := context.Background()
	listFixture(t, s)
	for _, tt := range []struct {
		q    run.Query
		want []string
	}{
		{run.Query{Limit: 3}, []string{"r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0"}},
		{run.Query{Limit: 2, Tags: map[string]string{"parity": "odd"}}, []string{"r9", "r7", "r5", "r3", "r1"}},
		{run.Query{Limit: 5}, []string{"r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0"}},
		{run.Query{Limit: 1, Statuses: []run.Status{run.StatusFailed}}, []string{"r7", "r3"}},
	} {
		var got []string
		q := tt.q
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatalf("%+v: paging does not end", tt.q)
			}
			runs, next, err := s.List(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) > q.PageSize() {
				t.Fatalf("%+v: page of %d runs, limit %d", tt.q, len(runs), q.PageSize())
			}
			got = append(got, ids(runs)...)
			if next == "" {
				break
			}
			q.Cursor = next
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: pages = %v, want %v", tt.q, got, tt.want)
		}
	}
	if _, _, err := s.List(ctx, run.Query{Cursor: "not a cursor"}); !errors.Is(err, run.ErrBadCursor) {
		t.Errorf("List with a bad cursor: %v, want ErrBadCursor", err)
	}
}

func testRoundTrip(t *testing.T, s run.Store) {
	ctx := context.Background()
	want := []run.Event{created("run_a", at(0))}
	want[0].Seq = 1
	var batch []run.Event
	for i, p := range EveryKind() {
		e := run.Event{RunID: "run_a", Seq: int64(i + 2), Time: at(i + 1).Add(123456789), Payload: p}
		want = append(want, e)
		batch = append(batch, e)
	}
	if _, _, err := s.Create(ctx, want[0]); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "run_a", 1, batch[:5]...)
	mustAppend(t, s, "run_a", 6, batch[5:]...)
	got := mustRead(t, s, "run_a", 1, 0)
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s event did not survive:\ngot  %#v\nwant %#v", want[i].Type(), got[i], want[i])
		}
	}
	snap, err := run.LoadSnapshot(ctx, s, "run_a")
	if err != nil {
		t.Fatal(err)
	}
	if wantSnap := run.Fold(want); !reflect.DeepEqual(snap, wantSnap) {
		t.Errorf("LoadSnapshot =\n%+v\nwant\n%+v", snap, wantSnap)
	}
}

// collect runs a subscription to its end in a goroutine.
func collect(ctx context.Context, s run.Store, id run.ID, from int64) <-chan []run.Event {
	out := make(chan []run.Event, 1)
	go func() {
		var got []run.Event
		for e, err := range s.Events(ctx, id, from) {
			if err != nil {
				got = append(got, run.Event{Payload: run.Error{Message: err.Error()}})
				break
			}
			got = append(got, e)
		}
		out <- got
	}()
	return out
}

// appendSteps appends n single-event steps, then completes the run.
func appendSteps(t *testing.T, s run.Store, id run.ID, last int64, n int) int64 {
	for i := range n {
		last = mustAppend(t, s, id, last, message(fmt.Sprint(i)))
	}
	return mustAppend(t, s, id, last, status(run.StatusRunning, run.StatusCompleted))
}

func testEventsStoredThenLive(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	last := mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning), message("stored"))
	// Subscribers started at every point of the appends: each must see the
	// whole log once, in order, and end when the run completes.
	var subs []<-chan []run.Event
	subs = append(subs, collect(context.Background(), s, "run_a", 1))
	for i := range 50 {
		last = mustAppend(t, s, "run_a", last, message(fmt.Sprint(i)), message(fmt.Sprint(i)))
		subs = append(subs, collect(context.Background(), s, "run_a", 1))
	}
	last = mustAppend(t, s, "run_a", last, status(run.StatusRunning, run.StatusCompleted))
	subs = append(subs, collect(context.Background(), s, "run_a", 0))
	want := mustRead(t, s, "run_a", 1, 0)
	for i, sub := range subs {
		got := <-sub
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("subscriber %d saw %d events (last %v), want the %d of the log", i, len(got), lastOf(got), last)
		}
	}
}

func lastOf(events []run.Event) any {
	if len(events) == 0 {
		return nil
	}
	e := events[len(events)-1]
	return fmt.Sprintf("#%d %s %+v", e.Seq, e.Type(), e.Payload)
}

func testEventsFromSeq(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	last := mustAppend(t, s, "run_a", 1, status(run.StatusCreated, run.StatusRunning), message("a"), message("b"))
	mid := collect(context.Background(), s, "run_a", 3)
	future := collect(context.Background(), s, "run_a", 8)
	appendSteps(t, s, "run_a", last, 5)
	all := mustRead(t, s, "run_a", 1, 0)
	if got := <-mid; !reflect.DeepEqual(got, all[2:]) {
		t.Errorf("from 3: got %d events, want %d", len(got), len(all[2:]))
	}
	if got := <-future; !reflect.DeepEqual(got, all[7:]) {
		t.Errorf("from 8: got %d events, want %d", len(got), len(all[7:]))
	}
	if got := <-collect(context.Background(), s, "run_a", 100); len(got) != 0 {
		t.Errorf("from past the end of a completed run: %d events, want none", len(got))
	}
}

func testEventsEndsWhenTerminal(t *testing.T, s run.Store) {
	for _, end := range [][]run.Event{
		{status(run.StatusCreated, run.StatusFailed)},
		{status(run.StatusCreated, run.StatusCancelling), status(run.StatusCancelling, run.StatusCanceled)},
		{status(run.StatusCreated, run.StatusRunning), status(run.StatusRunning, run.StatusCompleted)},
	} {
		id := run.ID("run_" + string(end[len(end)-1].Payload.(run.StatusChanged).To))
		mustCreate(t, s, id)
		sub := collect(context.Background(), s, id, 1)
		mustAppend(t, s, id, 1, end...)
		if got := <-sub; len(got) != 1+len(end) {
			t.Errorf("%s: subscription saw %d events, want %d", id, len(got), 1+len(end))
		}
	}
}

func testEventsContextDone(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan run.Event)
	done := make(chan int)
	go func() {
		n := 0
		for e, err := range s.Events(ctx, "run_a", 1) {
			if err != nil {
				t.Errorf("Events yielded %v after cancel, want a silent end", err)
			}
			n++
			seen <- e
		}
		done <- n
	}()
	<-seen // the stored RunCreated: the subscription now waits live
	cancel()
	if n := <-done; n != 1 {
		t.Fatalf("subscription yielded %d events, want 1", n)
	}
}

func testEventsBreak(t *testing.T, s run.Store) {
	mustCreate(t, s, "run_a")
	mustAppend(t, s, "run_a", 1, message("a"), message("b"))
	n := 0
	for range s.Events(context.Background(), "run_a", 1) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("n = %d", n)
	}
}

func testConcurrent(t *testing.T, s run.Store) {
	const runs, steps, subsPerRun = 8, 30, 3
	var wg sync.WaitGroup
	for r := range runs {
		id := run.ID(fmt.Sprintf("run_%d", r))
		mustCreate(t, s, id)
		var subs []<-chan []run.Event
		for range subsPerRun {
			subs = append(subs, collect(context.Background(), s, id, 1))
		}
		wg.Go(func() {
			ctx := context.Background()
			last, err := s.Append(ctx, id, 1, status(run.StatusCreated, run.StatusRunning))
			for i := 0; err == nil && i < steps; i++ {
				last, err = s.Append(ctx, id, last, message(fmt.Sprint(i)), run.Event{Payload: run.Usage{InputTokens: int64(i)}})
				if i%10 == 0 {
					_, _, _ = s.List(ctx, run.Query{Statuses: []run.Status{run.StatusRunning}})
				}
			}
			if err == nil {
				_, err = s.Append(ctx, id, last, status(run.StatusRunning, run.StatusCompleted))
			}
			if err != nil {
				t.Errorf("%s: %v", id, err)
				return
			}
			for _, sub := range subs {
				got := <-sub
				if len(got) != 3+2*steps {
					t.Errorf("%s: subscriber saw %d events, want %d", id, len(got), 3+2*steps)
				}
				for i, e := range got {
					if e.Seq != int64(i+1) || e.RunID != id {
						t.Errorf("%s: event %d is %s#%d", id, i, e.RunID, e.Seq)
						break
					}
				}
			}
		})
	}
	wg.Wait()
	all, _, err := s.List(context.Background(), run.Query{Statuses: []run.Status{run.StatusCompleted}})
	if err != nil || len(all) != runs {
		t.Fatalf("List completed = %d runs, %v; want %d", len(all), err, runs)
	}
}
