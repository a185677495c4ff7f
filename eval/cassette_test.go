package eval_test

import (
	"context"
	"errors"
	"github.com/byref/byref/action"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
)

// TestCassetteRecordReplayMiss records a run, replays it without the model,
// and checks that a changed task is a miss with a diff, not an answer.
func TestCassetteRecordReplayMiss(t *testing.T) {
	set := &eval.Set{Name: "rec", Agent: testAgent(), Cases: []*eval.Case{{
		Name: "count", Task: "How many words are in the minutes?",
		Expect: []eval.Expectation{eval.Equal(13), eval.GotRef("word_count", "doc", "doc")},
	}}}
	r, err := eval.Run(context.Background(), set, eval.Options{Model: goodModel(), ModelName: "scripted", Record: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("recording failed: %+v", r.Cases[0].Trials[0].Failures)
	}
	dir := t.TempDir()
	if err := set.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := loaded.Cases[0]
	if c.Cassette == nil || len(c.Cassette.Exchanges) != 2 {
		t.Fatalf("cassette: %+v", c.Cassette)
	}
	loaded.Agent = testAgent()
	r, err = eval.Run(context.Background(), loaded, eval.Options{Repetitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cr := r.Cases[0]; !cr.OK || cr.Passes != 3 {
		t.Fatalf("replay: %d passes, %+v", cr.Passes, cr.Trials[0].Failures)
	}

	c.Task = "How many words are in the agenda?"
	r, err = eval.Run(context.Background(), loaded, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Cases[0].Trials[0]
	if tr.Passed || !strings.Contains(tr.Error, "not in the cassette") {
		t.Fatalf("a changed request was answered: %+v", tr)
	}
	diff := tr.Failures[0].Diff
	if !strings.Contains(diff, "- user: How many words are in the minutes?") || !strings.Contains(diff, "+ user: How many words are in the agenda?") {
		t.Fatalf("the miss has no diff of the task: %s", diff)
	}

	if len(tr.Failures) != 1 || len(tr.Skipped) != 1 {
		t.Fatalf("a miss should be the only failure, the expectations skipped: %+v", tr)
	}
	// A miss is no failure on purpose: the case is not as it should be.
	c.FailsOnPurpose = "it expects 13"
	r, err = eval.Run(context.Background(), loaded, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cr := r.Cases[0]; cr.OK || cr.Verdict != "fail" {
		t.Fatalf("a case that fails on purpose passed on a cassette miss: %s", cr.Verdict)
	}

	// A player refuses what it has not seen, with the typed error.
	_, err = c.Cassette.Player().Generate(context.Background(), requestOf("something else"))
	var miss *eval.MissError
	if !errors.As(err, &miss) || !errors.Is(err, eval.ErrCassetteMiss) {
		t.Fatalf("err = %v", err)
	}
	// A changed action is named in the miss.
	c.Task = "How many words are in the minutes?"
	loaded.Agent.Actions = action.MustSet(
		action.MustNew(action.Spec{Name: "word_count", Description: "Count the words of a text.", Func: wordCount, Params: []action.Param{{Name: "doc"}}}),
		action.MustNew(action.Spec{Name: "send_email", Description: "Send an email.", Func: sendEmail, Params: []action.Param{{Name: "to"}, {Name: "body"}}}),
	)
	c.FailsOnPurpose = ""
	r, err = eval.Run(context.Background(), loaded, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Cases[0].Trials[0].Failures[0].Diff; !strings.Contains(d, "tool word_count changed (description or schema)") || strings.Contains(d, "send_email") {
		t.Fatalf("the miss does not name the changed tool: %s", d)
	}

	if _, err := eval.ReadCassette(filepath.Join(dir, "cassettes", "nope.json")); err == nil {
		t.Fatal("reading a missing cassette worked")
	}
}

// TestNoCassette: a case with neither a model nor a cassette fails, saying
// how to record one.
func TestNoCassette(t *testing.T) {
	set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{{Name: "x", Task: "t", Expect: []eval.Expectation{eval.Equal(1)}}}}
	r, err := eval.Run(context.Background(), set, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr := r.Cases[0].Trials[0]; tr.Passed || !strings.Contains(tr.Error, "--record") {
		t.Fatalf("%+v", tr)
	}
}

// TestRecorderStreams: a Recorder passes a streaming model's chunks on and
// records the whole response.
func TestRecorderStreams(t *testing.T) {
	rec := eval.Record(llm.NewScripted(llm.Text("two words")), "scripted")
	var chunks []string
	resp, err := llm.Stream(context.Background(), rec, requestOf("hi"), func(c llm.Chunk) error {
		chunks = append(chunks, c.Text)
		return nil
	})
	if err != nil || resp.Text != "two words" || len(chunks) != 2 {
		t.Fatalf("%q %v %q", resp.Text, err, chunks)
	}
	c := rec.Cassette()
	if len(c.Exchanges) != 1 || c.Exchanges[0].Response.Text != "two words" {
		t.Fatalf("%+v", c.Exchanges)
	}
	got, err := c.Player().Generate(context.Background(), requestOf("hi"))
	if err != nil || got.Text != "two words" {
		t.Fatalf("%q %v", got.Text, err)
	}
}
