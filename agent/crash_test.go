package agent_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/variable"

	_ "modernc.org/sqlite"
)

// crashChildEnv, set to a database path, makes the test binary a process
// that runs agents on that database until it is killed.
const crashChildEnv = "BYREF_RUNTIME_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	os.Exit(m.Run())
}

// crashModel looks up the weather, asks the user which unit to use, looks
// it up again in that unit and terminates: a function of the conversation,
// so that a restored run continues where it stopped.
func crashModel() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == llm.RoleUser:
			return llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`), nil
		case last.ToolName == "get_weather" && !strings.Contains(last.Text, "weather_2"):
			return llm.CallTool("ask_user", `{"question":"Which unit, c or f?","return":null}`), nil
		case last.ToolName == "ask_user":
			return llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"f","return":null}`), nil
		default:
			return llm.CallTool("terminate", `{"success":true,"result":"<<var:weather_2>>"}`), nil
		}
	})
}

// ackStore reports every append whose Append returned, on stdout.
type ackStore struct {
	run.Store
	mu sync.Mutex
}

func (s *ackStore) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	n, err := s.Store.Append(ctx, id, last, events...)
	if err == nil {
		s.mu.Lock()
		fmt.Printf("acked %s %d\n", id, n)
		s.mu.Unlock()
	}
	return n, err
}

// crashChild starts runs, a few at a time, forever; each stops awaiting
// its user's answer.
func crashChild(path string) {
	s, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	store := &ackStore{Store: s}
	for i := 0; ; i++ {
		var wg sync.WaitGroup
		for j := 0; j < 4; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rt, err := agent.New(agent.Options{Actions: action.MustSet(weatherAction), Model: crashModel(), Store: store,
					Variables: []variable.Spec{{Name: "city", Value: fmt.Sprintf("city%d_%d", i, j)}}})
				if err != nil {
					fmt.Println("error", err)
					os.Exit(1)
				}
				h, err := rt.Start(context.Background(), agent.RunOptions{Task: "weather"})
				if err != nil {
					fmt.Println("error", err)
					os.Exit(1)
				}
				for e := range h.Events(context.Background(), 1) {
					if _, ok := e.Payload.(run.AwaitRequested); ok {
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestCrashRecovery kills a process running agents on a SQLite file with
// SIGKILL at random moments, 20 times. After each kill the database opens
// and passes PRAGMA integrity_check, every event whose append had returned
// is there, runs left running are marked interrupted, and awaiting runs are
// restored, resumed and finish.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	path := filepath.Join(t.TempDir(), "runs.db")
	ctx := context.Background()
	restored, interrupted := 0, 0
	for i := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := map[run.ID]int64{}
		killAt := 20 + rand.IntN(120)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			var id string
			var seq int64
			if _, err := fmt.Sscanf(line, "acked %s %d", &id, &seq); err != nil {
				t.Fatalf("child %d: %s", i, line)
			}
			acked[run.ID(id)] = max(acked[run.ID(id)], seq)
			if killAt--; killAt < 0 {
				time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()

		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		var check string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("after kill %d: integrity_check = %q, %v", i, check, err)
		}
		db.Close()

		store, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		for id, seq := range acked {
			if evs, err := store.Read(ctx, id, seq, 1); err != nil || len(evs) != 1 {
				t.Fatalf("after kill %d: event %d of %s was acknowledged but is not stored (%v)", i, seq, id, err)
			}
		}
		awaiting, gone, err := agent.Recover(ctx, store)
		if err != nil {
			t.Fatal(err)
		}
		interrupted += len(gone)
		for _, id := range gone {
			if s, _ := store.Get(ctx, id); s.Status != run.StatusFailed || !strings.HasPrefix(s.Reason, "interrupted") {
				t.Fatalf("run %s left running is %s (%s)", id, s.Status, s.Reason)
			}
		}
		for _, id := range awaiting {
			rt, err := agent.New(agent.Options{Store: store, Actions: action.MustSet(weatherAction), Model: crashModel()})
			if err != nil {
				t.Fatal(err)
			}
			h, err := rt.Restore(ctx, id, agent.RestoreOptions{})
			if err != nil {
				t.Fatalf("restoring %s: %v", id, err)
			}
			req, ok := h.Pending()
			if !ok || req.Await != run.AwaitQuestion {
				t.Fatalf("restored %s awaits %+v", id, req)
			}
			if err := h.Resume(ctx, req.ID, run.Answer{Text: "f"}); err != nil {
				t.Fatal(err)
			}
			o, _ := h.Wait(ctx)
			if o.Status != run.StatusCompleted || !strings.Contains(string(o.Result), "21°F in city") {
				t.Fatalf("restored run %s ended %+v", id, o)
			}
			restored++
		}
		store.Close()
	}
	t.Logf("20 kills: %d runs restored and finished, %d marked interrupted", restored, interrupted)
	if restored == 0 {
		t.Fatal("no run was ever restored")
	}
}

func TestRestoreRefusesRunsWithLiveVariables(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "runs.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	model := llm.NewScripted(llm.CallTool("ask_user", `{"question":"?","return":null}`))
	rt, _ := agent.New(agent.Options{Model: model, Store: store, Variables: []variable.Spec{
		{Name: "thing", Value: &Thing{Name: "box"}},
		{Name: "ch", Value: make(chan int)},
		{Name: "n", Value: 7},
	}})
	h, _ := rt.Start(ctx, agent.RunOptions{Task: "t"})
	waitFor(t, h, 1)
	rt2, _ := agent.New(agent.Options{Model: model, Store: store})
	_, err = rt2.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "thing (*agent_test.Thing), ch (chan int)") {
		t.Fatalf("err = %v", err)
	}
	if s, _ := store.Get(ctx, h.ID()); s.Status != run.StatusFailed || !strings.Contains(s.Reason, "interrupted") || !strings.Contains(s.Reason, "thing") {
		t.Fatalf("summary = %+v", s)
	}
	h.Cancel(ctx) // the first process's loop, still waiting
}
