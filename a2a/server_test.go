package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

func TestCards(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	ctx := context.Background()
	root, err := a2a.ResolveCard(ctx, ts.URL, a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Skills) != len(testAgents(nil)) || root.Skills[0].ID != "echo" {
		t.Fatalf("root card skills = %+v, want one per agent", root.Skills)
	}
	if root.SupportedInterfaces[0].URL != ts.URL+"/a2a/echo" {
		t.Fatalf("root card endpoint = %s", root.SupportedInterfaces[0].URL)
	}
	card, err := a2a.ResolveCard(ctx, ts.URL+"/a2a/typed", a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if card.Name != "typed" || !card.Capabilities.Streaming || len(card.DefaultInputModes) == 0 || len(card.DefaultOutputModes) == 0 {
		t.Fatalf("card = %+v", card)
	}
	var skills []string
	for _, s := range card.Skills {
		skills = append(skills, s.ID)
	}
	if strings.Join(skills, ",") != "login,forecast,work" {
		t.Fatalf("skills = %v, want the agent's actions", skills)
	}
	versions := map[sdk.ProtocolVersion]bool{}
	for _, i := range card.SupportedInterfaces {
		versions[i.ProtocolVersion] = true
		if i.URL != ts.URL+"/a2a/typed" || i.ProtocolBinding != sdk.TransportProtocolJSONRPC {
			t.Fatalf("interface %+v", i)
		}
	}
	if !versions["1.0"] || !versions["0.3"] {
		t.Fatalf("versions = %v, want 1.0 and 0.3", versions)
	}
	if len(card.SecuritySchemes) != 0 {
		t.Fatalf("a server without a token declares %v", card.SecuritySchemes)
	}
	// The v0.3 fields are there too, for v0.3 clients.
	resp, err := http.Get(ts.URL + "/a2a/typed/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var legacy struct {
		URL             string `json:"url"`
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(b, &legacy); err != nil || legacy.URL != ts.URL+"/a2a/typed" || legacy.ProtocolVersion != "0.3" {
		t.Fatalf("v0.3 fields: %+v %v", legacy, err)
	}
}

func TestCardDeclaresTheToken(t *testing.T) {
	_, ts := startA2A(t, server.Options{Token: "s3cret"}, a2a.Options{Token: true})
	// The card is public: no token needed.
	card, err := a2a.ResolveCard(context.Background(), ts.URL+"/a2a/echo", a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := card.SecuritySchemes[a2a.BearerScheme].(sdk.HTTPAuthSecurityScheme)
	if !ok || !strings.EqualFold(s.Scheme, "bearer") || len(card.SecurityRequirements) != 1 {
		t.Fatalf("security = %+v %+v", card.SecuritySchemes, card.SecurityRequirements)
	}
	// The endpoint is not.
	resp, err := http.Post(ts.URL+"/a2a/echo", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d without the token, want 401", resp.StatusCode)
	}
	c, _, err := a2a.NewClient(context.Background(), ts.URL+"/a2a/echo", a2a.ClientOptions{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	res, err := c.SendMessage(context.Background(), userMessage("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if task := res.(*sdk.Task); task.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("state %s", task.Status.State)
	}
}

func TestSendMessage(t *testing.T) {
	s, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "echo")
	res, err := c.SendMessage(context.Background(), userMessage("hello there"))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("result %T, want a task", res)
	}
	if task.Status.State != sdk.TaskStateCompleted || task.Status.Message == nil || task.Status.Message.Parts[0].Text() != "hello there" {
		t.Fatalf("task = %+v", task)
	}
	if len(task.Artifacts) != 1 || task.Artifacts[0].Name != a2a.ResultArtifact || task.Artifacts[0].Parts[0].Text() != "hello there" {
		t.Fatalf("artifacts = %+v", task.Artifacts)
	}
	// The task is a byref run, tagged, in the server's store (and so in
	// the inspector).
	sum, err := s.Store().Get(context.Background(), run.ID(task.ID))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tags[a2a.TagProtocol] != "a2a" || sum.Tags[server.TagAgent] != "echo" || sum.Session != run.SessionID(task.ContextID) {
		t.Fatalf("run = %+v", sum)
	}
	got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != sdk.TaskStateCompleted || len(got.History) != 2 || got.History[0].Role != sdk.MessageRoleUser {
		t.Fatalf("GetTask = %+v", got)
	}
	one := 1
	got, err = c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID, HistoryLength: &one})
	if err != nil || len(got.History) != 1 || got.History[0].Role != sdk.MessageRoleAgent {
		t.Fatalf("GetTask with historyLength 1 = %+v, %v", got, err)
	}
}

func TestTypedResultCarriesItsSchema(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "typed")
	res, err := c.SendMessage(context.Background(), userMessage("Paris"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if len(task.Artifacts) != 1 {
		t.Fatalf("artifacts = %+v", task.Artifacts)
	}
	a := task.Artifacts[0]
	b, _ := json.Marshal(a.Parts[0].Data())
	var w Weather
	if err := json.Unmarshal(b, &w); err != nil || w.City != "Paris" || w.Celsius != 21 {
		t.Fatalf("data part %s: %v", b, err)
	}
	if a.Parts[0].MediaType != "application/json" {
		t.Fatalf("media type %q", a.Parts[0].MediaType)
	}
	schema, _ := json.Marshal(a.Metadata["schema"])
	if !strings.Contains(string(schema), `"celsius"`) {
		t.Fatalf("schema = %s", schema)
	}
}

func TestLargeResultIsAnArtifactNotAMessage(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "big")
	res, err := c.SendMessage(context.Background(), userMessage("go"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts[0].Text()) != 200<<10 {
		t.Fatalf("the result artifact holds %d bytes", len(task.Artifacts[0].Parts[0].Text()))
	}
	for _, m := range append(task.History, task.Status.Message) {
		if m == nil {
			continue
		}
		for _, p := range m.Parts {
			if len(p.Text()) > 10<<10 {
				t.Fatalf("a message holds %d bytes of the result", len(p.Text()))
			}
		}
	}
}

func TestStream(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "echo")
	var kinds []string
	var final sdk.TaskState
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("streamed")) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *sdk.Task:
			kinds = append(kinds, "task:"+string(e.Status.State))
			if len(e.History) != 1 || e.History[0].Parts[0].Text() != "streamed" {
				t.Fatalf("the task sent first has the history %+v, want the user's message", e.History)
			}
		case *sdk.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+string(e.Status.State))
			final = e.Status.State
		case *sdk.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact:"+e.Artifact.Name)
		}
	}
	got := strings.Join(kinds, " ")
	// The task goes out once it holds the user's message: working.
	if !strings.HasPrefix(got, "task:TASK_STATE_WORKING ") || !strings.Contains(got, "artifact:result") || final != sdk.TaskStateCompleted {
		t.Fatalf("stream = %s", got)
	}
}

// TestProgressIsAStatusUpdate: what an action reports with
// agent.Progress reaches a streaming client as a working status update
// whose message is the progress.
func TestProgressIsAStatusUpdate(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "worker")
	found := false
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("Work.")) {
		if err != nil {
			t.Fatal(err)
		}
		if u, ok := ev.(*sdk.TaskStatusUpdateEvent); ok && u.Status.State == sdk.TaskStateWorking && u.Status.Message != nil &&
			len(u.Status.Message.Parts) == 1 && u.Status.Message.Parts[0].Text() == "half way there" && u.Status.Message.Metadata["byref.call"] != "" {
			found = true
		}
	}
	if !found {
		t.Fatal("no working status update carried the progress")
	}
}

func TestInputRequiredAndResume(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "awaiter")
	res, err := c.SendMessage(context.Background(), userMessage("talk to me"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateInputRequired || !strings.Contains(task.Status.Message.Parts[0].Text(), "What should I say?") {
		t.Fatalf("task = %+v", task.Status)
	}
	// The resume is a message on the same task, streamed.
	msg := sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))
	var last *sdk.TaskStatusUpdateEvent
	for ev, err := range c.SendStreamingMessage(context.Background(), &sdk.SendMessageRequest{Message: msg}) {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(*sdk.TaskStatusUpdateEvent); ok {
			last = e
		}
	}
	if last == nil || last.Status.State != sdk.TaskStateCompleted || last.TaskID != task.ID || !strings.Contains(last.Status.Message.Parts[0].Text(), `"preview":"hi"`) {
		t.Fatalf("last = %+v %q", last, last.Status.Message.Parts[0].Text())
	}
}

func TestAuthRequired(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "auth")
	res, err := c.SendMessage(context.Background(), userMessage("log in"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateAuthRequired || !strings.Contains(task.Status.Message.Parts[0].Text(), "https://auth.example/login") {
		t.Fatalf("task = %+v", task.Status)
	}
	res, err = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("done"))})
	if err != nil {
		t.Fatal(err)
	}
	if task := res.(*sdk.Task); task.Status.State != sdk.TaskStateCompleted || !strings.Contains(task.Status.Message.Parts[0].Text(), "signed in") {
		t.Fatalf("after authorizing: %+v", task.Status)
	}
}

func TestFollowUpInTheSameContext(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "history")
	res, err := c.SendMessage(context.Background(), userMessage("one"))
	if err != nil {
		t.Fatal(err)
	}
	first := res.(*sdk.Task)
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("two"))
	msg.ContextID = first.ContextID
	res, err = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	second := res.(*sdk.Task)
	if second.ID == first.ID || second.ContextID != first.ContextID {
		t.Fatalf("second task %s in context %s", second.ID, second.ContextID)
	}
	if got := second.Status.Message.Parts[0].Text(); got != "earlier: 1; two" {
		t.Fatalf("follow-up saw %q, want the first turn in its history", got)
	}
	// A message on the completed task itself is refused with the way on.
	_, err = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, first, sdk.NewTextPart("three"))})
	if !errors.Is(err, sdk.ErrUnsupportedOperation) || !strings.Contains(err.Error(), "without taskId") {
		t.Fatalf("message on a completed task: %v", err)
	}
}

func TestCancel(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "hang")
	res, err := c.SendMessage(context.Background(), &sdk.SendMessageRequest{
		Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("wait")),
		Config:  &sdk.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State.Terminal() {
		t.Fatalf("returned immediately as %s", task.Status.State)
	}
	got, err := c.CancelTask(context.Background(), &sdk.CancelTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != sdk.TaskStateCanceled {
		t.Fatalf("after cancel: %s", got.Status.State)
	}
	_, err = c.CancelTask(context.Background(), &sdk.CancelTaskRequest{ID: task.ID})
	if !errors.Is(err, sdk.ErrTaskNotCancelable) {
		t.Fatalf("second cancel: %v, want TaskNotCancelable", err)
	}
}

func TestSubscribeAgainAfterADisconnect(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "awaiter")
	ctx, cancel := context.WithCancel(context.Background())
	var task sdk.Task
	for ev, err := range c.SendStreamingMessage(ctx, userMessage("talk")) {
		if err != nil {
			t.Fatal(err)
		}
		if tk, ok := ev.(*sdk.Task); ok {
			task = *tk
			break // the client goes away after the first event
		}
	}
	cancel()
	if task.ID == "" {
		t.Fatal("no task event")
	}
	var states []sdk.TaskState
	for ev, err := range c.SubscribeToTask(context.Background(), &sdk.SubscribeToTaskRequest{ID: task.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *sdk.Task:
			states = append(states, e.Status.State)
		case *sdk.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
		}
	}
	if len(states) == 0 || states[len(states)-1] != sdk.TaskStateInputRequired {
		t.Fatalf("re-subscribed states = %v, want to end input-required", states)
	}
}

func TestSubscribeToACompletedTaskIsUnsupported(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "echo")
	res, err := c.SendMessage(context.Background(), userMessage("done"))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*sdk.Task).ID
	// v1.0: a JSON-RPC error before any stream, -32004 where the Go SDK's
	// own handler answers -32001.
	status, code, msg := rpc(t, ts.URL+"/a2a/echo", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+string(id)+`"}}`)
	if status != 200 || code != -32004 {
		t.Fatalf("v1.0: status %d, code %d (%s), want -32004", status, code, msg)
	}
	// v0.3: the error on the stream, which the SDK's client reads.
	legacy := legacyClient(t, ts.URL+"/a2a/echo")
	for _, err := range legacy.SubscribeToTask(context.Background(), &sdk.SubscribeToTaskRequest{ID: id}) {
		if !errors.Is(err, sdk.ErrUnsupportedOperation) {
			t.Fatalf("v0.3: %v, want UnsupportedOperation (-32004)", err)
		}
		return
	}
	t.Fatal("v0.3: no answer")
}

func TestUnknownTask(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "echo")
	if _, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("GetTask: %v", err)
	}
	if _, err := c.CancelTask(context.Background(), &sdk.CancelTaskRequest{ID: "no-such-task"}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("CancelTask: %v", err)
	}
	// A task of another agent is not this agent's.
	res, err := clientFor(t, ts.URL, "history").SendMessage(context.Background(), userMessage("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: res.(*sdk.Task).ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("GetTask of another agent's task: %v", err)
	}
}

func TestLegacyV03Exchange(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := legacyClient(t, ts.URL+"/a2a/awaiter")
	res, err := c.SendMessage(context.Background(), userMessage("old"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s", task.Status.State)
	}
	res, err = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(*sdk.Task); got.ID != task.ID || got.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("after the resume over v0.3: %s %s", got.ID, got.Status.State)
	}
}

func TestInspectorShowsA2ARuns(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	res, err := clientFor(t, ts.URL, "echo").SendMessage(context.Background(), userMessage("inspect me"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(ts.URL + "/ui/api/runs?tag=" + a2a.TagProtocol + "=a2a")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Runs []run.Summary `json:"runs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Runs) != 1 || string(list.Runs[0].ID) != string(res.(*sdk.Task).ID) {
		t.Fatalf("the inspector lists %+v", list.Runs)
	}
}
