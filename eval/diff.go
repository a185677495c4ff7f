package eval

import (
	"fmt"
	"io"
)

// Change is how one case moved between two reports.
type Change struct {
	Case string `json:"case"`
	// Before and After are the case's verdicts and pass rates; "" when the
	// case is in one report only.
	Before, After         string
	BeforeRate, AfterRate float64
	// Tokens and Cost are the change of the case's mean tokens and cost.
	Tokens, Cost float64
}

// Diff is what got better and what got worse from one report to another.
type Diff struct {
	Better, Worse, Same []Change
	// Added and Removed are the cases in one report only.
	Added, Removed []string
}

// Compare compares report b with report a, case by case: a case got
// better when it became as it should be or its pass rate rose, worse when
// the opposite happened.
func Compare(a, b *Report) Diff {
	var d Diff
	for _, cb := range b.Cases {
		ca, ok := a.Case(cb.Name)
		if !ok {
			d.Added = append(d.Added, cb.Name)
			continue
		}
		ch := Change{Case: cb.Name, Before: ca.Verdict, After: cb.Verdict, BeforeRate: rateOf(*ca), AfterRate: rateOf(cb),
			Tokens: cb.Tokens - ca.Tokens, Cost: cb.Cost - ca.Cost}
		switch {
		case cb.OK && !ca.OK, cb.OK == ca.OK && ch.AfterRate > ch.BeforeRate && cb.FailsOnPurpose == "":
			d.Better = append(d.Better, ch)
		case !cb.OK && ca.OK, cb.OK == ca.OK && ch.AfterRate < ch.BeforeRate && cb.FailsOnPurpose == "":
			d.Worse = append(d.Worse, ch)
		default:
			d.Same = append(d.Same, ch)
		}
	}
	for _, ca := range a.Cases {
		if _, ok := b.Case(ca.Name); !ok {
			d.Removed = append(d.Removed, ca.Name)
		}
	}
	return d
}

func rateOf(c CaseReport) float64 { return float64(c.Passes) / float64(max(len(c.Trials), 1)) }

// Write writes the diff for a terminal.
func (d Diff) Write(w io.Writer) error {
	section := func(title string, list []Change) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, c := range list {
			fmt.Fprintf(w, "  %s: %s (%.0f%%) -> %s (%.0f%%), tokens %+.0f, cost %+.4f\n", c.Case, c.Before, c.BeforeRate*100, c.After, c.AfterRate*100, c.Tokens, c.Cost)
		}
	}
	section("better", d.Better)
	section("worse", d.Worse)
	for _, n := range d.Added {
		fmt.Fprintf(w, "new case: %s\n", n)
	}
	for _, n := range d.Removed {
		fmt.Fprintf(w, "case gone: %s\n", n)
	}
	_, err := fmt.Fprintf(w, "%d better, %d worse, %d unchanged, %d new, %d gone\n", len(d.Better), len(d.Worse), len(d.Same), len(d.Added), len(d.Removed))
	return err
}
