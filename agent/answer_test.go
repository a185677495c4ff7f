package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// refund needs a person's approval before it runs.
var refund = action.MustNew(action.Spec{Name: "refund", Description: "Refund an order.", NeedsApproval: true,
	Func: func(order string) string { return "refunded " + order }, Params: []action.Param{{Name: "order"}}})

// refundModel asks for the refund of order A-1, then gives its result.
func refundModel() *llm.Scripted {
	return llm.NewScripted(
		llm.CallTool("refund", `{"order":"A-1","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:refund_result>>"}`),
	)
}

// The quick start of an approval: the agent's Answer approves in Go, and
// Run returns the run's end.
func ExampleOptions_answer() {
	a, _ := agent.New(agent.Options{
		Actions: action.MustSet(refund),
		Model:   refundModel(),
		Answer: func(ctx context.Context, req run.AwaitRequested) (run.Answer, bool) {
			fmt.Println("approve?", req.Call.Name, req.Call.Arguments)
			return run.Answer{Decision: run.Approved}, true
		},
	})
	out, _ := a.Run(context.Background(), agent.RunOptions{Task: "Refund order A-1."})
	fmt.Println(out.Status, string(out.Result))
	// Output:
	// approve? refund {"order":"A-1","return":null}
	// completed "refunded A-1"
}

// Without Answer, Run returns when the run awaits, with the await in the
// Outcome; Resume answers it and waits for the end.
func ExampleAgent_Resume() {
	a, _ := agent.New(agent.Options{Actions: action.MustSet(refund), Model: refundModel()})
	ctx := context.Background()
	out, _ := a.Run(ctx, agent.RunOptions{Task: "Refund order A-1."})
	for out.Status == run.StatusAwaiting {
		fmt.Println(out.Await.Await, out.Await.Call.Name)
		out, _ = a.Resume(ctx, out.RunID, out.Await.ID, run.Answer{Decision: run.Approved})
	}
	fmt.Println(out.Status, string(out.Result))
	// Output:
	// approval refund
	// completed "refunded A-1"
}

// TestQuickStartApprovalIsShort holds the quick start of an approval (the
// example above, from its func line to its last statement) to at most 25
// lines.
func TestQuickStartApprovalIsShort(t *testing.T) {
	b, err := os.ReadFile("answer_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	start := strings.Index(src, "func ExampleOptions_answer() {")
	end := strings.Index(src[start:], "\t// Output:")
	if start < 0 || end < 0 {
		t.Fatal("no ExampleOptions_answer")
	}
	if n := strings.Count(src[start:start+end], "\n"); n > 25 {
		t.Errorf("the quick start of an approval takes %d lines; keep it to 25", n)
	}
}

// TestAnswerDeclines: an Answer that leaves a question to the caller
// makes Run return it; the approval it gives is given.
func TestAnswerDeclines(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("refund", `{"order":"A-1","return":null}`),
		llm.CallTool("ask_user", `{"question":"Anything else?","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:ask_user_result>>"}`),
	)
	var asked []run.AwaitKind
	a, err := agent.New(agent.Options{Actions: action.MustSet(refund), Model: model,
		Answer: func(ctx context.Context, req run.AwaitRequested) (run.Answer, bool) {
			asked = append(asked, req.Await)
			return run.Answer{Decision: run.Approved}, req.Await == run.AwaitApproval
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := a.Run(ctx, agent.RunOptions{Task: "Refund A-1, then ask."})
	if err != nil || out.Status != run.StatusAwaiting || out.Await == nil || out.Await.Await != run.AwaitQuestion || out.Await.Message != "Anything else?" || out.RunID == "" {
		t.Fatalf("Run = %+v, %v; want the question left to the caller", out, err)
	}
	out, err = a.Resume(ctx, out.RunID, "", run.Answer{Text: "no"})
	if err != nil || out.Status != run.StatusCompleted || string(out.Result) != `"no"` {
		t.Fatalf("Resume = %+v, %v", out, err)
	}
	if fmt.Sprint(asked) != "[approval question]" {
		t.Errorf("Answer was asked %v", asked)
	}
}

// TestRunDeadlineNamesTheRun: a caller's deadline that ends Run before
// the run ends returns the run's ID and status with the error.
func TestRunDeadlineNamesTheRun(t *testing.T) {
	started := make(chan struct{})
	a, err := agent.New(agent.Options{Model: hangingModel{started: started}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-started; cancel(errors.New("the caller gave up")) }()
	out, err := a.Run(ctx, agent.RunOptions{Task: "Wait."})
	if err == nil || out.RunID == "" || out.Status != run.StatusRunning || !strings.Contains(err.Error(), "run "+string(out.RunID)+" is still running: the caller gave up") {
		t.Fatalf("Run = %+v, %v", out, err)
	}
}

// hangingModel answers no request until its context is done.
type hangingModel struct{ started chan struct{} }

func (m hangingModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	close(m.started)
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

// Customer is a variable a call approved by a person is given.
type Customer struct{ Email string }

// TestApprovalMessageShowsResolvedValues: what an approval asks names the
// value each reference resolved to, not only <<var:top>>.
func TestApprovalMessageShowsResolvedValues(t *testing.T) {
	mail := action.MustNew(action.Spec{Name: "mail", Description: "Mail a customer.", NeedsApproval: true,
		Func: func(to Customer) string { return "mailed " + to.Email }, Params: []action.Param{{Name: "to", Whole: true}}})
	model := llm.NewScripted(
		llm.CallTool("mail", `{"to":"<<var:top>>","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:mail_result>>"}`),
	)
	var msg string
	a, err := agent.New(agent.Options{Actions: action.MustSet(mail), Model: model,
		Variables: []variable.Spec{{Name: "top", Value: Customer{Email: "ann@example.com"}}},
		Answer: func(ctx context.Context, req run.AwaitRequested) (run.Answer, bool) {
			msg = req.Message
			return run.Answer{Decision: run.Approved}, true
		}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), agent.RunOptions{Task: "Mail the top customer."})
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	want := "Approve the call of mail with {\"to\":\"<<var:top>>\",\"return\":null}?\n  to = <<var:top>> (agent_test.Customer): Customer{Email: \"ann@example.com\"}"
	if msg != want {
		t.Errorf("the approval asks\n%s\nwant\n%s", msg, want)
	}
}
