package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

// crashChildEnv, when set to a database path, makes the test binary an
// appender that the crash test kills.
const crashChildEnv = "BYREF_SQLITE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path, run.ID(os.Getenv(crashChildEnv+"_RUN")))
		return
	}
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// crashChild appends batches of 5 events to a new run forever, printing the
// last sequence number after each Append returns.
func crashChild(path string, id run.ID) {
	ctx := context.Background()
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if _, _, err := s.Create(ctx, run.Event{RunID: id, Payload: run.RunCreated{Name: "crash"}}); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	last, err := s.Append(ctx, id, 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}})
	for i := 0; err == nil; i++ {
		fmt.Println("acked", last)
		batch := make([]run.Event, 5)
		for j := range batch {
			batch[j] = run.Event{Payload: run.AssistantMessage{Step: i, Text: strings.Repeat("x", 200)}}
		}
		last, err = s.Append(ctx, id, last, batch...)
	}
	fmt.Println("error", err)
	os.Exit(1)
}

// TestCrashKeepsAckedAppends kills an appending child process with SIGKILL
// at random moments; after each kill the database must open, pass
// PRAGMA integrity_check, and hold every event whose Append had returned,
// with no gap and no partial batch.
func TestCrashKeepsAckedAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	for i := range 20 {
		id := run.ID(fmt.Sprintf("run_crash_%d", i))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashChildEnv+"_RUN="+string(id))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := int64(0)
		killAt := rand.IntN(40)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "error") {
				t.Fatalf("child %d: %s", i, line)
			}
			n, err := strconv.ParseInt(strings.TrimPrefix(line, "acked "), 10, 64)
			if err != nil {
				t.Fatalf("child %d wrote %q", i, line)
			}
			acked = n
			if killAt--; killAt < 0 {
				time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond) // land mid-transaction
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()

		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		var check string
		if err := s.r.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("after kill %d: integrity_check = %q, %v", i, check, err)
		}
		events, err := s.Read(context.Background(), id, 1, 0)
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		if int64(len(events)) < acked || (len(events)-2)%5 != 0 {
			t.Fatalf("after kill %d: %d events stored, %d acked; batches are of 5 after 2", i, len(events), acked)
		}
		for j, e := range events {
			if e.Seq != int64(j+1) {
				t.Fatalf("after kill %d: event %d has seq %d", i, j, e.Seq)
			}
		}
		sum, err := s.Get(context.Background(), id)
		if err != nil || sum.LastSeq != int64(len(events)) {
			t.Fatalf("after kill %d: summary %+v, %v; %d events", i, sum, err, len(events))
		}
		s.Close()
	}
}
