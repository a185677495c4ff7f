package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// rpc posts a JSON-RPC body to the agent's endpoint with the A2A-Version
// header (none when version is "") and returns the HTTP status and the
// error code (0 for none).
func rpc(t *testing.T, url, version, body string) (int, int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	if out.Error == nil {
		return resp.StatusCode, 0, string(b)
	}
	return resp.StatusCode, out.Error.Code, out.Error.Message
}

func TestBadInput(t *testing.T) {
	_, ts := startA2A(t, server.Options{MaxBody: 4096}, a2a.Options{})
	url := ts.URL + "/a2a/echo"
	for _, c := range []struct {
		name, version, body string
		status, code        int
	}{
		{"malformed JSON", "1.0", `{"jsonrpc":"2.0","id":1,"method":`, 200, -32700},
		{"not JSON-RPC 2.0", "1.0", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 200, -32600},
		{"unknown method", "1.0", `{"jsonrpc":"2.0","id":1,"method":"DoMagic","params":{}}`, 200, -32601},
		{"wrong params", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}`, 200, -32602},
		{"no message", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`, 200, -32602},
		{"empty message", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}`, 200, -32602},
		{"agent role", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}}`, 200, -32602},
		{"file part", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":"https://x.example/f.png"}]}}}`, 200, -32005},
		{"bad context id", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","contextId":"a b","parts":[{"text":"hi"}]}}}`, 200, -32602},
		{"push to loopback", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"taskPushNotificationConfig":{"url":"https://127.0.0.1:9/x"}}}}`, 200, -32602},
		{"push to a bad url", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"taskPushNotificationConfig":{"url":"gopher://x"}}}}`, 200, -32602},
		{"unknown task", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`, 200, -32001},
		{"resume of an unknown task", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","taskId":"nope","parts":[{"text":"hi"}]}}}`, 200, -32001},
		{"list tasks page size", "1.0", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":1000}}`, 200, -32602},
		{"oversized body", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + strings.Repeat("x", 5000) + `"}}`, 413, -32600},
		{"unsupported version", "9.9", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 200, -32009},
		{"no version is v0.3: a v1.0 method is unknown", "", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 200, -32601},
		{"no version is v0.3: its methods work", "", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`, 200, -32001},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, code, msg := rpc(t, url, c.version, c.body)
			if status != c.status || code != c.code {
				t.Fatalf("status %d, code %d (%s); want %d, %d", status, code, msg, c.status, c.code)
			}
		})
	}
	// The server is still healthy.
	if _, code, msg := rpc(t, url, "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`); code != 0 {
		t.Fatalf("after the bad input: %d %s", code, msg)
	}
}

func TestGuardsApply(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"cross-site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403},
		{"a form", map[string]string{"Content-Type": "text/plain"}, 415},
		{"a foreign host", map[string]string{"Content-Type": "application/json", "Host": "evil.example"}, 403},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/a2a/echo", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if h := c.header["Host"]; h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
}

func TestResumeRacingCancel(t *testing.T) {
	s, ts := startA2A(t, server.Options{}, a2a.Options{})
	c := clientFor(t, ts.URL, "awaiter")
	for range 10 {
		res, err := c.SendMessage(context.Background(), userMessage("race"))
		if err != nil {
			t.Fatal(err)
		}
		task := res.(*sdk.Task)
		var wg sync.WaitGroup
		var resumeErr, cancelErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, resumeErr = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))})
		}()
		go func() {
			defer wg.Done()
			_, cancelErr = c.CancelTask(context.Background(), &sdk.CancelTaskRequest{ID: task.ID})
		}()
		wg.Wait()
		for _, err := range []error{resumeErr, cancelErr} {
			if err != nil && !errors.Is(err, sdk.ErrUnsupportedOperation) && !errors.Is(err, sdk.ErrTaskNotCancelable) {
				t.Fatalf("resume: %v; cancel: %v", resumeErr, cancelErr)
			}
		}
		if resumeErr != nil && cancelErr != nil {
			t.Fatalf("both lost: resume: %v; cancel: %v", resumeErr, cancelErr)
		}
		// The run ends either way: nothing is lost or left hanging.
		end := endOf(t, s, task.ID)
		if end != run.StatusCanceled && end != run.StatusCompleted {
			t.Fatalf("ended %s", end)
		}
		if cancelErr == nil && end != run.StatusCanceled {
			t.Fatalf("the cancel succeeded but the run ended %s", end)
		}
	}
}

// endOf waits for the run's terminal status, reading its events.
func endOf(t *testing.T, s *server.Server, id sdk.TaskID) run.Status {
	t.Helper()
	for e, err := range s.Store().Events(context.Background(), run.ID(id), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
			return sc.To
		}
	}
	t.Fatal("the event stream ended before the run")
	return ""
}

func TestStalledStreamClientBlocksNothing(t *testing.T) {
	s, ts := startA2A(t, server.Options{}, a2a.Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/a2a/awaiter", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var line string
	for !strings.HasPrefix(line, "data:") {
		if line, err = br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	var first struct {
		Result struct {
			Task struct {
				ID sdk.TaskID `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(line), "data:")), &first); err != nil || first.Result.Task.ID == "" {
		t.Fatalf("first event %q: %v", line, err)
	}
	// The client reads no more; the run goes on and can be answered.
	c := clientFor(t, ts.URL, "awaiter")
	var task *sdk.Task
	for ev, err := range c.SubscribeToTask(context.Background(), &sdk.SubscribeToTaskRequest{ID: first.Result.Task.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		if tk, ok := ev.(*sdk.Task); ok {
			task = tk
		}
		if e, ok := ev.(*sdk.TaskStatusUpdateEvent); ok && e.Status.State == sdk.TaskStateInputRequired {
			break
		}
	}
	if _, err := c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))}); err != nil {
		t.Fatal(err)
	}
	if end := endOf(t, s, task.ID); end != run.StatusCompleted {
		t.Fatalf("ended %s", end)
	}
}
