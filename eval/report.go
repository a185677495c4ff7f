package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// ReportVersion is the version of the JSON report this package writes.
const ReportVersion = 1

// Report is the outcome of [Run]: every case with its trials, pass@k and
// pass^k, and totals. Its JSON form ([Report.WriteJSON]) is what byref eval
// diff compares.
type Report struct {
	Version int    `json:"version"`
	Set     string `json:"set"`
	Model   string `json:"model"`
	// Repetitions is how many times each case ran; K the k of pass@k.
	Repetitions int `json:"repetitions"`
	K           int `json:"k"`
	// Started is when the run began; Duration how long it took.
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	// Cases are the cases in the set's order.
	Cases []CaseReport `json:"cases"`
	// Good counts the cases that are as they should be; Bad the rest.
	Good   int `json:"good"`
	Bad    int `json:"bad"`
	Tokens int `json:"tokens"`
	// Cost totals the trials' costs.
	Cost float64 `json:"cost"`
}

// CaseReport is one case's trials and what they add up to.
type CaseReport struct {
	Name           string `json:"name"`
	Description    string `json:"description,omitempty"`
	FailsOnPurpose string `json:"fails_on_purpose,omitempty"`
	// Passes counts the trials that met every expectation.
	Passes int `json:"passes"`
	// PassAtK is the chance that at least one of k trials passes, and
	// PassHatK that all k do (pass^k), estimated from the trials without
	// bias (Chen et al. 2021; Yao et al. 2024).
	PassAtK  float64 `json:"pass_at_k"`
	PassHatK float64 `json:"pass_hat_k"`
	// Verdict is "pass", "fail", "fails on purpose" or "passes, but should
	// fail".
	Verdict string `json:"verdict"`
	// OK reports that the case is as it should be: every trial passes, or
	// none for a case that fails on purpose.
	OK bool `json:"ok"`
	// Tokens, CacheReadTokens, Cost and Latency are the means over the
	// trials.
	Tokens          float64       `json:"tokens"`
	CacheReadTokens float64       `json:"cache_read_tokens"`
	Cost            float64       `json:"cost"`
	Latency         time.Duration `json:"latency"`
	Trials          []*Trial      `json:"trials"`
}

func newReport(set *Set, opts *Options, trials []*Trial, start time.Time, d time.Duration) *Report {
	r := &Report{Version: ReportVersion, Set: set.Name, Model: opts.ModelName, Repetitions: opts.Repetitions, K: opts.K,
		Started: start.UTC().Round(time.Millisecond), Duration: d}
	for i, c := range set.Cases {
		cr := CaseReport{Name: c.Name, Description: c.Description, FailsOnPurpose: c.FailsOnPurpose,
			Trials: trials[i*opts.Repetitions : (i+1)*opts.Repetitions]}
		var lat time.Duration
		errs := 0
		for _, t := range cr.Trials {
			if t.Passed {
				cr.Passes++
			}
			if t.Error != "" {
				errs++
			}
			cr.Tokens += float64(t.Tokens())
			cr.CacheReadTokens += float64(t.CacheReadTokens)
			cr.Cost += t.Cost
			lat += t.Latency
			r.Tokens += t.Tokens()
			r.Cost += t.Cost
		}
		n := len(cr.Trials)
		cr.Tokens /= float64(n)
		cr.CacheReadTokens /= float64(n)
		cr.Cost /= float64(n)
		cr.Latency = lat / time.Duration(n)
		cr.PassAtK, cr.PassHatK = PassAtK(n, cr.Passes, opts.K), PassHatK(n, cr.Passes, opts.K)
		// A trial that could not run (a cassette miss, a budget) shows
		// nothing, not even a failure on purpose.
		cr.OK = c.ok(cr.Passes, n) && (c.FailsOnPurpose == "" || errs == 0)
		switch {
		case errs > 0 && c.FailsOnPurpose != "":
			cr.Verdict = "fail"
		case c.FailsOnPurpose != "" && cr.OK:
			cr.Verdict = "fails on purpose"
		case c.FailsOnPurpose != "":
			cr.Verdict = "passes, but should fail"
		case cr.OK:
			cr.Verdict = "pass"
		default:
			cr.Verdict = "fail"
		}
		if cr.OK {
			r.Good++
		} else {
			r.Bad++
		}
		r.Cases = append(r.Cases, cr)
	}
	return r
}

// PassAtK estimates the chance that at least one of k trials passes, from
// c passes in n trials: 1 - C(n-c, k)/C(n, k).
func PassAtK(n, c, k int) float64 {
	if k <= 0 || n <= 0 || k > n {
		return 0
	}
	if n-c < k {
		return 1
	}
	return 1 - choose(n-c, k)/choose(n, k)
}

// PassHatK estimates the chance that k trials all pass, from c passes in
// n trials: C(c, k)/C(n, k).
func PassHatK(n, c, k int) float64 {
	if k <= 0 || n <= 0 || k > n || c < k {
		return 0
	}
	return choose(c, k) / choose(n, k)
}

func choose(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// OK reports whether every case is as it should be.
func (r *Report) OK() bool { return r.Bad == 0 }

// Case returns the named case's report.
func (r *Report) Case(name string) (*CaseReport, bool) {
	for i := range r.Cases {
		if r.Cases[i].Name == name {
			return &r.Cases[i], true
		}
	}
	return nil, false
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := marshalIndent(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: reading report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("eval: %s is not an eval report: %w", path, err)
	}
	if r.Version != ReportVersion {
		return nil, fmt.Errorf("eval: %s is a version %d report; this byref reads version %d", path, r.Version, ReportVersion)
	}
	return &r, nil
}

// WriteTable writes the report as a table for a terminal: one line per
// case, then the failures of the cases that are not as they should be.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tverdict\tpassed\tpass@%d\tpass^%d\ttokens\tcached\tcost\tlatency\n", r.K, r.K)
	for _, c := range r.Cases {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.2f\t%.2f\t%.0f\t%.0f\t$%.4f\t%s\n", c.Name, c.Verdict, c.Passes, len(c.Trials),
			c.PassAtK, c.PassHatK, c.Tokens, c.CacheReadTokens, c.Cost, roundDuration(c.Latency))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d of %d cases as they should be (%s on %s, %d repetitions, %d tokens, $%.4f, %s)\n",
		r.Good, len(r.Cases), r.Set, r.Model, r.Repetitions, r.Tokens, r.Cost, r.Duration.Round(time.Millisecond))
	skipped := map[string]bool{}
	for _, c := range r.Cases {
		for _, t := range c.Trials {
			for _, s := range t.Skipped {
				if !skipped[s] {
					skipped[s] = true
					fmt.Fprintf(w, "not checked: %s (%s)\n", s, c.Name)
				}
			}
		}
	}
	for _, c := range r.Cases {
		if c.OK {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s\n", c.Name, c.Verdict)
		if c.FailsOnPurpose != "" {
			fmt.Fprintf(w, "  it should fail: %s\n", c.FailsOnPurpose)
			continue
		}
		for _, t := range c.Trials {
			for _, f := range t.Failures {
				fmt.Fprintf(w, "  trial %d: %s\n    %s\n", t.Repetition, f.Expectation, strings.ReplaceAll(f.Diff, "\n", "\n    "))
			}
		}
	}
	return nil
}

// roundDuration rounds d for people: to the millisecond, or the
// microsecond below one.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
