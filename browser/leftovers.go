package browser

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// killLeftovers kills the processes that still use dir as their profile
// directory. Chromium's helpers (zygote, network service) can outlive the
// main process for a moment and write into the directory after it is
// removed. It looks until it finds nothing a few times in a row. Where /proc
// does not exist it does nothing.
func killLeftovers(dir string) {
	deadline := time.Now().Add(2 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		pids := processesUsing("--user-data-dir=" + dir)
		if len(pids) == 0 {
			quiet++
			continue
		}
		quiet = 0
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
}

// processesUsing returns the processes other than this one whose command
// line has the argument prefix, or an argument prefix+"/…" (a path below
// it); never one that merely starts with it (…-123 is not …-1234).
func processesUsing(prefix string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	want, below := []byte(prefix), []byte(prefix+"/")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if bytes.Equal(arg, want) || bytes.HasPrefix(arg, below) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
