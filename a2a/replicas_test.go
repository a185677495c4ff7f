package a2a_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/replicatest"
	"github.com/byref/byref/server"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// a2aReplica starts a replica serving the test agents over A2A on the
// database at url, and returns it and its base URL.
func a2aReplica(t *testing.T, url string) (*replicatest.Replica, string) {
	t.Helper()
	r := replicatest.Start(t, url, server.Options{}, testAgents, func(s *server.Server) error {
		_, err := a2a.Mount(s, a2a.Options{AllowPrivatePush: true})
		return err
	})
	ts := httptest.NewServer(r.Server)
	t.Cleanup(ts.Close)
	return r, ts.URL
}

// Any replica answers any task over A2A: a task one replica runs is read,
// answered (the answer forwarded to its owner) and cancelled through
// another.
func TestReplicasOverA2A(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	_, a := a2aReplica(t, url)
	_, b := a2aReplica(t, url)
	ca, cb := clientFor(t, a, "awaiter"), clientFor(t, b, "awaiter")

	res, err := ca.SendMessage(ctx, userMessage("ask me"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("task = %+v", task.Status)
	}
	got, err := cb.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("GetTask through another replica: %+v, %v", got, err)
	}
	res, err = cb.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("blue"))})
	if err != nil {
		t.Fatal(err)
	}
	if done := res.(*sdk.Task); done.Status.State != sdk.TaskStateCompleted || !strings.Contains(done.Status.Message.Parts[0].Text(), "blue") {
		t.Fatalf("answered through another replica: %+v", done.Status)
	}

	res, err = ca.SendMessage(ctx, userMessage("ask me again"))
	if err != nil {
		t.Fatal(err)
	}
	task = res.(*sdk.Task)
	canceled, err := cb.CancelTask(ctx, &sdk.CancelTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatalf("CancelTask through another replica: %v", err)
	}
	if s := canceled.Status.State; s != sdk.TaskStateCanceled && s != sdk.TaskStateWorking {
		t.Fatalf("cancelled through another replica: %+v", canceled.Status)
	}
}

// Replicas never deliver a push notification twice: one replica claims a
// configuration's deliveries (a replica that starts later leaves them to
// it), and when that replica dies, the one that takes it over goes on
// with them.
func TestPushDeliveredOnceByReplicas(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	owner, a := a2aReplica(t, url)
	_, b := a2aReplica(t, url)
	recv := newReceiver(t)
	ca := clientFor(t, a, "awaiter")
	send := func(text string) *sdk.Task {
		t.Helper()
		req := userMessage(text)
		req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{URL: recv.URL + "/" + text}}
		res, err := ca.SendMessage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.(*sdk.Task)
	}
	first := send("first")
	recv.waitFor(t, "input_required")
	// A replica that starts now finds the configuration in the store, and
	// leaves it to the replica that delivers it.
	_, c := a2aReplica(t, url)
	if _, err := clientFor(t, c, "awaiter").SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, first, sdk.NewTextPart("blue"))}); err != nil {
		t.Fatal(err)
	}
	recv.waitFor(t, "completed")

	// The replica that delivers dies; another delivers the rest.
	second := send("second")
	recv.waitFor(t, "input_required")
	owner.Kill(t)
	if _, err := clientFor(t, b, "awaiter").SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, second, sdk.NewTextPart("green"))}); err != nil {
		t.Fatal(err)
	}
	recv.waitFor(t, "completed")

	recv.mu.Lock()
	defer recv.mu.Unlock()
	seen := map[string]bool{}
	for _, sr := range recv.got {
		b, _ := json.Marshal(sr)
		if seen[string(b)] {
			t.Errorf("delivered twice: %s", b)
		}
		seen[string(b)] = true
	}
}

// A replica that starts after the one that delivered a configuration's
// notifications stopped takes them over: its deliveries go on there.
func TestPushGoesOnAfterAReplicaStops(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).Database(t)
	first, a := a2aReplica(t, url)
	recv := newReceiver(t)
	req := userMessage("ask me")
	req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{URL: recv.URL + "/hook"}}
	res, err := clientFor(t, a, "awaiter").SendMessage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	recv.waitFor(t, "input_required")
	if err := first.Server.Close(); err != nil {
		t.Fatal(err)
	}
	_, b := a2aReplica(t, url)
	if _, err := clientFor(t, b, "awaiter").SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("blue"))}); err != nil {
		t.Fatal(err)
	}
	recv.waitFor(t, "completed")
}
