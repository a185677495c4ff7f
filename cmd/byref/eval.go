package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/cmd/byref/demotable"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/run"
)

// evalUsage is the help of byref eval.
const evalUsage = `byref eval run SET [flags]       run an eval set (a directory: set.json, cases/, cassettes/)
      --model provider:name        the model under test; none replays the cassettes (no key needed)
      --record                     record the model's exchanges as the cases' new cassettes
      --reps n                     repetitions of each case (default 1); --k for pass@k (default reps)
      --parallel n                 trials at once (default: CPUs)
      --timeout 5m, --tokens n     time and token budgets of the whole run
      --judge provider:name        the model that judges "judge" expectations (off by default)
      --price in,out[,read[,write]]
                                   dollars per million tokens (input, output, cache reads and
                                   writes), for costs and max_cost
      --out dir                    where the reports go (default: the user's cache directory,
                                   byref/eval/SET/TIME, or the system's temporary directory)
byref eval add RUN_ID --set SET [--name NAME] [--db file]
                                   turn a stored run into a case of SET, with its cassette
byref eval diff A.json B.json      what got better and what got worse from report A to B
`

// evalCmd is byref eval.
func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("say run, add or diff; byref eval help lists their flags")
	}
	switch args[0] {
	case "help", "-h", "--help":
		_, err := io.WriteString(stdout, evalUsage)
		return err
	case "run":
		return evalRun(ctx, args[1:], stdout, stderr)
	case "add":
		return evalAdd(ctx, args[1:], stdout)
	case "diff":
		return evalDiff(args[1:], stdout)
	}
	return usagef("unknown eval command %q; say run, add or diff (byref eval help lists their flags)", args[0])
}

// evalAgent returns the agent a set is for: the demo's, or byref run's.
func evalAgent(name string) (agent.Options, error) {
	switch name {
	case "", "demo":
		return demotable.Agent(), nil
	case "plain":
		return agent.Options{}, nil
	}
	return agent.Options{}, fmt.Errorf("the set is for agent %q; byref eval knows \"demo\" and \"plain\": evaluate your own agent from Go (eval.Run, evaltest.Run)", name)
}

// loadSet loads a set with its agent and types.
func loadSet(dir string) (*eval.Set, error) {
	set, err := eval.Load(dir)
	if err != nil {
		return nil, err
	}
	if set.Agent, err = evalAgent(set.AgentName); err != nil {
		return nil, err
	}
	set.Types = demotable.Types()
	return set, nil
}

func evalRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval run")
	modelSpec := fs.String("model", "", "")
	record := fs.Bool("record", false, "")
	reps := fs.Int("reps", 1, "")
	k := fs.Int("k", 0, "")
	parallel := fs.Int("parallel", 0, "")
	timeout := fs.Duration("timeout", 0, "")
	tokens := fs.Int64("tokens", 0, "")
	judgeSpec := fs.String("judge", "", "")
	priceSpec := fs.String("price", "", "")
	out := fs.String("out", "", "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("say which set: byref eval run SET (a directory with cases/)")
	}
	set, err := loadSet(pos[0])
	if err != nil {
		return err
	}
	opts := eval.Options{Repetitions: *reps, K: *k, Parallel: *parallel, Timeout: *timeout, TokenBudget: *tokens, Record: *record}
	if *modelSpec != "" {
		if opts.Model, err = openModel(*modelSpec); err != nil {
			return err
		}
		opts.ModelName = *modelSpec
	} else if *record {
		return usagef("--record needs --model, the model to record")
	}
	if *judgeSpec != "" {
		if opts.Judge, err = openModel(*judgeSpec); err != nil {
			return err
		}
	}
	if opts.Price, err = parsePrice(*priceSpec); err != nil {
		return err
	}
	bar := newProgressBar(stderr)
	opts.Progress = bar.update
	r, err := eval.Run(ctx, set, opts)
	bar.finish()
	if err != nil {
		return err
	}
	if *record {
		for _, c := range set.Cases {
			if err := eval.SaveCase(set.Dir, c); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "recorded the cassettes of %s in %s\n", count(len(set.Cases), "case"), filepath.Join(set.Dir, "cassettes"))
	}
	dir := *out
	if dir == "" {
		dir = defaultReportDir(set.Name, r.Started)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	jsonPath, htmlPath := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.html")
	if err := writeReport(jsonPath, r.WriteJSON); err != nil {
		return err
	}
	if err := writeReport(htmlPath, r.WriteHTML); err != nil {
		return err
	}
	if err := r.WriteTable(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreports: %s\n         %s\n", jsonPath, htmlPath)
	if !r.OK() {
		return fmt.Errorf("%d of %d cases are not as they should be", r.Bad, len(r.Cases))
	}
	return nil
}

// defaultReportDir is where the reports of a run of the named set go when
// --out names no directory: the user's cache directory (or, without one,
// the system's temporary directory), never the set's folder, which is
// often in the source tree.
func defaultReportDir(set string, started time.Time) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "byref", "eval", filepath.Base(filepath.Clean(set)), started.Format("20060102-150405"))
}

// writeReport creates the file at path and has write fill it.
func writeReport(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parsePrice reads "in,out[,cache_read[,cache_write]]" dollars per million
// tokens.
func parsePrice(s string) (eval.Price, error) {
	if s == "" {
		return eval.Price{}, nil
	}
	parts := strings.Split(s, ",")
	var v [4]float64
	if len(parts) < 2 || len(parts) > 4 {
		return eval.Price{}, usagef("--price is in,out[,cache_read[,cache_write]] in dollars per million tokens, e.g. --price 3,15,0.3,3.75")
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 {
			return eval.Price{}, usagef("--price: %q is not a price; say in,out[,cache_read[,cache_write]] in dollars per million tokens", p)
		}
		v[i] = f
	}
	return eval.Price{Input: v[0], Output: v[1], CacheRead: v[2], CacheWrite: v[3]}, nil
}

// progressBar draws the trials done on one line that it rewrites, on a
// terminal; elsewhere (a log, a pipe, CI) it writes one line when the
// trials are done, not a carriage return per trial.
type progressBar struct {
	w        io.Writer
	terminal bool
	started  time.Time
	failed   int
	done     int
	total    int
	drawn    bool
}

func newProgressBar(w io.Writer) *progressBar {
	b := &progressBar{w: w, started: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			b.terminal = true
		}
	}
	return b
}

func (b *progressBar) update(done, total int, t *eval.Trial) {
	if !t.Passed {
		b.failed++
	}
	b.done, b.total, b.drawn = done, total, true
	if !b.terminal {
		return
	}
	const width = 30
	n := width * done / total
	fmt.Fprintf(b.w, "\r[%s%s] %s ", strings.Repeat("#", n), strings.Repeat(".", width-n), b.counts())
}

// counts says how many trials are done and failed, and for how long.
func (b *progressBar) counts() string {
	return fmt.Sprintf("%d/%d trials, %d failed, %s", b.done, b.total, b.failed, time.Since(b.started).Round(100*time.Millisecond))
}

func (b *progressBar) finish() {
	switch {
	case !b.drawn:
	case b.terminal:
		fmt.Fprintln(b.w)
	default:
		fmt.Fprintln(b.w, b.counts())
	}
}

func evalAdd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("eval add")
	setDir := fs.String("set", "", "")
	name := fs.String("name", "", "")
	db := fs.String("db", defaultDB(), "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *setDir == "" {
		return usagef("say which run and which set: byref eval add RUN_ID --set DIR")
	}
	store, err := openExisting(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	id, events, err := readRun(ctx, store, pos[0], *db)
	if err != nil {
		return err
	}
	set, err := eval.Load(*setDir)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, eval.ErrNoCases):
		// A new set: it is for the agent that made the run.
		set = &eval.Set{Name: filepath.Base(*setDir), Dir: *setDir, AgentName: "plain"}
		if runName(events) == demoName {
			set.AgentName = "demo"
		}
		if err := set.Save(*setDir); err != nil {
			return err
		}
	default:
		return err
	}
	if set.Agent, err = evalAgent(set.AgentName); err != nil {
		return err
	}
	set.Types = demotable.Types()
	caseName := *name
	if caseName == "" {
		caseName = "run-" + string(id)[:min(8, len(id))]
	}
	c, err := eval.FromRun(ctx, events, caseName, set)
	if err != nil {
		return err
	}
	if err := eval.SaveCase(*setDir, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "case %s: %s\n  %d expectations, a cassette of %d exchanges (the log keeps the model's answers; the requests were recorded by replaying them)\n",
		c.Name, filepath.Join(*setDir, "cases", c.Name+".json"), len(c.Expect), len(c.Cassette.Exchanges))
	return nil
}

func evalDiff(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return usagef("say which reports: byref eval diff A.json B.json")
	}
	a, err := eval.ReadReport(args[0])
	if err != nil {
		return err
	}
	b, err := eval.ReadReport(args[1])
	if err != nil {
		return err
	}
	return eval.Compare(a, b).Write(stdout)
}

// runName returns the name a run was created with.
func runName(events []run.Event) string {
	if len(events) > 0 {
		if c, ok := events[0].Payload.(run.RunCreated); ok {
			return c.Name
		}
	}
	return ""
}
