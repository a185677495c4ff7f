package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
)

// receiver is a push notification endpoint on 127.0.0.1 that keeps what it
// is sent. fail, when set, answers each request instead (0: go on).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []sdk.StreamResponse
	headers  []http.Header
	attempts int
	fail     func(attempt int) int
	notify   chan struct{}
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{notify: make(chan struct{}, 1000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.attempts++
		attempt := r.attempts
		fail := r.fail
		r.mu.Unlock()
		if fail != nil {
			if code := fail(attempt); code != 0 {
				w.WriteHeader(code)
				return
			}
		}
		var sr sdk.StreamResponse
		if err := json.Unmarshal(body, &sr); err != nil {
			t.Errorf("a notification that is not a StreamResponse: %v: %s", err, body)
		}
		r.mu.Lock()
		r.got = append(r.got, sr)
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		r.notify <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

// states returns the states the notifications carried so far.
func (r *receiver) states() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, sr := range r.got {
		switch e := sr.Event.(type) {
		case *sdk.Task:
			out = append(out, "task:"+stateOf(e.Status.State))
		case *sdk.TaskStatusUpdateEvent:
			out = append(out, stateOf(e.Status.State))
		case *sdk.TaskArtifactUpdateEvent:
			out = append(out, "artifact")
		}
	}
	return out
}

func stateOf(s sdk.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

// waitFor waits until the receiver's states end with last.
func (r *receiver) waitFor(t *testing.T, last string) []string {
	t.Helper()
	for {
		if s := r.states(); len(s) > 0 && s[len(s)-1] == last {
			return s
		}
		<-r.notify
	}
}

func TestPushNotifications(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{AllowPrivatePush: true})
	recv := newReceiver(t)
	ctx := context.Background()
	c := clientFor(t, ts.URL, "awaiter")
	card, err := a2a.ResolveCard(ctx, ts.URL+"/a2a/awaiter", a2a.ClientOptions{})
	if err != nil || !card.Capabilities.PushNotifications {
		t.Fatalf("the card does not declare push notifications: %+v, %v", card.Capabilities, err)
	}
	// A configuration given with the message: every update from the
	// start, with the authentication and the token asked for.
	req := userMessage("ask me")
	req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{URL: recv.URL + "/hook", Token: "tok-1", Auth: &sdk.PushAuthInfo{Scheme: "Bearer", Credentials: "secret-1"}}}
	res, err := c.SendMessage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	got := recv.waitFor(t, "input_required")
	if got[0] != "task:submitted" {
		t.Fatalf("notifications %v: the first is not the task", got)
	}
	recv.mu.Lock()
	h := recv.headers[0]
	recv.mu.Unlock()
	if h.Get("Authorization") != "Bearer secret-1" || h.Get("X-A2A-Notification-Token") != "tok-1" || h.Get("A2A-Notification-Token") != "tok-1" {
		t.Fatalf("headers %v", h)
	}
	list, err := c.ListTaskPushConfigs(ctx, &sdk.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(list) != 1 || list[0].URL != recv.URL+"/hook" || list[0].ID == "" {
		t.Fatalf("ListTaskPushConfigs = %+v, %v", list, err)
	}
	if _, err := c.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))}); err != nil {
		t.Fatal(err)
	}
	got = recv.waitFor(t, "completed")
	if !slices.Contains(got, "artifact") || !slices.Contains(got, "working") {
		t.Fatalf("notifications %v", got)
	}
}

func TestPushConfigMethods(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{AllowPrivatePush: true})
	recv := newReceiver(t)
	ctx := context.Background()
	c := clientFor(t, ts.URL, "awaiter")
	res, err := c.SendMessage(ctx, userMessage("ask me"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	made, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "mine", URL: recv.URL})
	if err != nil || made.ID != "mine" || made.TaskID != task.ID {
		t.Fatalf("CreateTaskPushConfig = %+v, %v", made, err)
	}
	// A configuration made on a task that waits gets the task as it is.
	if got := recv.waitFor(t, "task:input_required"); len(got) != 1 {
		t.Fatalf("notifications %v", got)
	}
	got, err := c.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: "mine"})
	if err != nil || got.URL != recv.URL {
		t.Fatalf("GetTaskPushConfig = %+v, %v", got, err)
	}
	for i := range a2a.MaxPushConfigs - 1 {
		if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "n" + string(rune('0'+i)), URL: recv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: recv.URL}); !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), "MaxPushConfigs") {
		t.Fatalf("one configuration too many: %v", err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "mine"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: "mine"}); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("a deleted configuration: %v", err)
	}
	// As in the reference server, deleting it again succeeds: it is gone.
	if err := c.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "mine"}); err != nil {
		t.Fatalf("deleting it again: %v", err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: "no-such-task", ID: "mine"}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("deleting a configuration of an unknown task: %v", err)
	}
	if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: "no-such-task", URL: recv.URL}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("a configuration of an unknown task: %v", err)
	}
	for _, bad := range []sdk.PushConfig{
		{URL: "ftp://example.com/x"},
		{URL: "/relative"},
		{URL: "http://user:pw@example.com/"},
		{URL: recv.URL, Auth: &sdk.PushAuthInfo{Scheme: "Bearer\r\nX-Evil: 1", Credentials: "x"}},
	} {
		bad.TaskID = task.ID
		if _, err := c.CreateTaskPushConfig(ctx, &bad); !errors.Is(err, sdk.ErrInvalidParams) {
			t.Fatalf("CreateTaskPushConfig(%+v) = %v, want invalid params", bad, err)
		}
	}
}

// TestPushRefusesInternalTargets: without AllowPrivatePush, a target on
// loopback, a private range, link-local (cloud metadata) or a name that
// resolves to one is refused, and the message names the option.
func TestPushRefusesInternalTargets(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	ctx := context.Background()
	c := clientFor(t, ts.URL, "awaiter")
	res, err := c.SendMessage(ctx, userMessage("ask me"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost:9/x", "http://10.1.2.3/x", "http://192.168.0.1/x", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/x", "http://0.0.0.0:9/", "http://100.64.0.1/"} {
		_, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: u})
		if !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), "AllowPrivatePush") {
			t.Errorf("CreateTaskPushConfig(%s) = %v, want a refusal naming AllowPrivatePush", u, err)
		}
	}
	req := userMessage("ask me")
	req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{URL: "http://127.0.0.1:9/x"}}
	if _, err := c.SendMessage(ctx, req); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("a message with an internal push target: %v", err)
	}
}

// TestPushRetries: a receiver that fails twice with 503 gets the
// notification at the third attempt; one that answers 400 is given up at
// once; both are recorded in the store.
func TestPushRetries(t *testing.T) {
	s, ts := startA2A(t, server.Options{}, a2a.Options{AllowPrivatePush: true, PushRetry: a2a.PushRetry{Attempts: 3, Backoff: time.Millisecond}})
	flaky, refusing := newReceiver(t), newReceiver(t)
	flaky.fail = func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return 0
	}
	refusing.fail = func(int) int { return http.StatusBadRequest }
	ctx := context.Background()
	c := clientFor(t, ts.URL, "echo")
	res, err := c.SendMessage(ctx, userMessage("hello"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	for _, r := range []*receiver{flaky, refusing} {
		if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: r.URL}); err != nil {
			t.Fatal(err)
		}
	}
	if got := flaky.waitFor(t, "task:completed"); len(got) != 1 {
		t.Fatalf("notifications %v", got)
	}
	recs := waitRecords(t, s.Store(), task.ID, func(recs []pushRecordView) bool {
		return len(recs) == 2 && recs[0].Delivered > 0 && recs[1].Delivered > 0
	})
	byURL := map[string]pushRecordView{}
	for _, r := range recs {
		byURL[r.Config.URL] = r
	}
	if r := byURL[flaky.URL]; r.Sent != 1 || r.Attempts != 3 || r.Failed != 0 {
		t.Fatalf("the flaky receiver's record: %+v", r)
	}
	if r := byURL[refusing.URL]; r.Failed != 1 || r.Attempts != 1 || !strings.Contains(r.LastError, "400") {
		t.Fatalf("the refusing receiver's record: %+v", r)
	}
}

// pushRecordView is the part of a push record the tests read.
type pushRecordView struct {
	Config    sdk.PushConfig `json:"config"`
	Delivered int64          `json:"delivered"`
	Sent      int            `json:"sent"`
	Failed    int            `json:"failed"`
	Attempts  int            `json:"attempts"`
	LastError string         `json:"last_error"`
}

// waitRecords polls the task's push records until ok, following the
// task's log between polls is not possible (records are not events), so
// it waits on the store's clock-free condition with a short sleep.
func waitRecords(t *testing.T, store run.Store, task sdk.TaskID, ok func([]pushRecordView) bool) []pushRecordView {
	t.Helper()
	for {
		raw, err := store.(run.Records).ListRecords(context.Background(), a2a.PushRecordKind, run.ID(task))
		if err != nil {
			t.Fatal(err)
		}
		var recs []pushRecordView
		for _, r := range raw {
			var v pushRecordView
			if err := json.Unmarshal(r.Value, &v); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, v)
		}
		if ok(recs) {
			return recs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPushConfigsSurviveARestart: the configurations are in the store; a
// server on the same SQLite file lists them, and its deliveries go on
// from where the last process left.
func TestPushConfigsSurviveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	recv := newReceiver(t)
	open := func() (*server.Server, *httptest.Server) {
		store, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		s, ts := startA2A(t, server.Options{Store: store, Agents: testAgents(store)}, a2a.Options{AllowPrivatePush: true})
		return s, ts
	}
	s1, ts1 := open()
	ctx := context.Background()
	c1 := clientFor(t, ts1.URL, "echo")
	res, err := c1.SendMessage(ctx, userMessage("hello"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if _, err := c1.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "kept", URL: recv.URL, Token: "tok"}); err != nil {
		t.Fatal(err)
	}
	recv.waitFor(t, "task:completed")
	waitRecords(t, s1.Store(), task.ID, func(recs []pushRecordView) bool { return len(recs) == 1 && recs[0].Sent == 1 })
	ts1.Close()
	s1.Close()

	s2, ts2 := open()
	c2 := clientFor(t, ts2.URL, "echo")
	got, err := c2.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: "kept"})
	if err != nil || got.URL != recv.URL || got.Token != "tok" {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}
	// Nothing is delivered twice: the record says it was delivered (Close
	// waits for the deliveries the restart started).
	ts2.Close()
	s2.Close()
	if s := recv.states(); len(s) != 1 {
		t.Fatalf("notifications after the restart: %v", s)
	}
}

// TestPushManyReceivers is the delivery goal: 100 receivers, 5 of them
// slow (they answer nothing until the test lets them) and 5 down. Every
// task completes while the slow receivers still hold their first
// notification, the 90 others get every notification, and each
// notification to a down receiver is retried per the policy and recorded
// as given up.
func TestPushManyReceivers(t *testing.T) {
	const n, slow, down = 100, 5, 5
	s, ts := startA2A(t, server.Options{}, a2a.Options{AllowPrivatePush: true, PushRetry: a2a.PushRetry{Attempts: 3, Backoff: time.Millisecond}})
	release := make(chan struct{})
	var held sync.WaitGroup
	held.Add(slow)
	urls := make([]string, n)
	fast := make([]*receiver, n)
	for i := range n {
		switch {
		case i < slow:
			var once sync.Once
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				once.Do(held.Done)
				<-release
			}))
			t.Cleanup(srv.Close)
			urls[i] = srv.URL
		case i < slow+down:
			urls[i] = downReceiver(t)
		default:
			fast[i] = newReceiver(t)
			urls[i] = fast[i].URL
		}
	}
	// Close lets the slow receivers answer, so that the deliveries end.
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ctx := context.Background()
	c := clientFor(t, ts.URL, "echo")
	ids := make([]sdk.TaskID, n)
	for i := range n {
		req := userMessage("task")
		req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{URL: urls[i]}}
		res, err := c.SendMessage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		task := res.(*sdk.Task)
		if task.Status.State != sdk.TaskStateCompleted {
			t.Fatalf("task %d is %s", i, task.Status.State)
		}
		ids[i] = task.ID
	}
	// Every task has completed, and the slow receivers still hold their
	// first notification: no task waited for a receiver.
	held.Wait()
	for i := slow + down; i < n; i++ {
		fast[i].waitFor(t, "completed")
	}
	for i := slow; i < slow+down; i++ {
		recs := waitRecords(t, s.Store(), ids[i], func(recs []pushRecordView) bool {
			return len(recs) == 1 && recs[0].Failed > 0 && recs[0].Failed == recs[0].Attempts/3 && recs[0].Delivered == lastSeq(t, s.Store(), ids[i])
		})
		if recs[0].Sent != 0 || recs[0].LastError == "" {
			t.Fatalf("the down receiver %d's record: %+v", i, recs[0])
		}
	}
	close(release)
	for i := range slow {
		waitRecords(t, s.Store(), ids[i], func(recs []pushRecordView) bool {
			return len(recs) == 1 && recs[0].Delivered == lastSeq(t, s.Store(), ids[i]) && recs[0].Sent > 0
		})
	}
}

// downReceiver returns the URL of a receiver that is down: it accepts
// connections and closes them at once. (A closed port could be taken by
// another test's listener meanwhile.)
func downReceiver(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook"
}

func lastSeq(t *testing.T, store run.Store, id sdk.TaskID) int64 {
	t.Helper()
	sum, err := store.Get(context.Background(), run.ID(id))
	if err != nil {
		t.Fatal(err)
	}
	return sum.LastSeq
}
