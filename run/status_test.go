package run

import (
	"errors"
	"strings"
	"testing"
)

func TestTransitionEveryPair(t *testing.T) {
	const (
		cr = StatusCreated
		ru = StatusRunning
		aw = StatusAwaiting
		co = StatusCompleted
		fa = StatusFailed
		ci = StatusCancelling
		ca = StatusCanceled
	)
	legal := map[[2]Status]bool{
		{cr, ru}: true, {cr, fa}: true, {cr, ci}: true,
		{ru, aw}: true, {ru, co}: true, {ru, fa}: true, {ru, ci}: true,
		{aw, ru}: true, {aw, fa}: true, {aw, ci}: true,
		{co, ru}: true,
		{ci, ca}: true,
	}
	all := append(Statuses(), "", "paused")
	n := 0
	for _, from := range all {
		for _, to := range all {
			want := legal[[2]Status{from, to}]
			if got := CanTransition(from, to); got != want {
				t.Errorf("CanTransition(%q, %q) = %v, want %v", from, to, got, want)
			}
			err := Transition(from, to)
			if want {
				if err != nil {
					t.Errorf("Transition(%q, %q) = %v, want nil", from, to, err)
				}
				n++
				continue
			}
			var te *TransitionError
			if !errors.As(err, &te) || te.From != from || te.To != to {
				t.Errorf("Transition(%q, %q) = %v, want *TransitionError", from, to, err)
			}
			if !errors.Is(err, ErrIllegalTransition) {
				t.Errorf("Transition(%q, %q) does not unwrap to ErrIllegalTransition", from, to)
			}
		}
	}
	if n != len(legal) {
		t.Errorf("%d legal pairs seen, table has %d", n, len(legal))
	}
}

func TestTransitionErrorNamesLegalTargets(t *testing.T) {
	for _, tt := range []struct {
		from, to Status
		want     string
	}{
		{StatusCreated, StatusCompleted, "from created a run can move to: running, failed, cancelling"},
		{StatusCanceled, StatusRunning, "canceled is final"},
		{"paused", StatusRunning, `unknown status "paused"`},
	} {
		err := Transition(tt.from, tt.to)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Transition(%s, %s) = %v, want it to contain %q", tt.from, tt.to, err, tt.want)
		}
	}
}

func TestStatusPredicates(t *testing.T) {
	for _, tt := range []struct {
		s                      Status
		valid, terminal, final bool
	}{
		{StatusCreated, true, false, false},
		{StatusRunning, true, false, false},
		{StatusAwaiting, true, false, false},
		{StatusCompleted, true, true, false},
		{StatusFailed, true, true, true},
		{StatusCancelling, true, false, false},
		{StatusCanceled, true, true, true},
		{"", false, false, false},
		{"done", false, false, false},
	} {
		if tt.s.Valid() != tt.valid || tt.s.Terminal() != tt.terminal || tt.s.Final() != tt.final {
			t.Errorf("%q: Valid=%v Terminal=%v Final=%v, want %v %v %v", tt.s,
				tt.s.Valid(), tt.s.Terminal(), tt.s.Final(), tt.valid, tt.terminal, tt.final)
		}
	}
}

func TestPhaseValid(t *testing.T) {
	for _, p := range []Phase{PhasePrompted, PhasePlanning, PhaseExecuting, PhaseSynthesizing} {
		if !p.Valid() {
			t.Errorf("%q.Valid() = false", p)
		}
	}
	if Phase("executing_tools").Valid() || Phase("").Valid() {
		t.Error("unknown phase reported valid")
	}
}
