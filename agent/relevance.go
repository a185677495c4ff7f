package agent

import (
	"slices"

	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// selectTools keeps at most k of the offered (non-built-in) tools: those
// whose references are in play (a parameter that only a variable the run
// made can fill, or that such a variable fits), then the best scored for
// the query. Built-ins are always kept. Order follows tools. With play
// false, no variable counts as in play: the choice is the query's alone,
// so that the same task gives the same tools (a run's first selection,
// which a restored run makes again).
func (st *State) selectTools(tools []schema.Tool, k int, query string, play bool) []schema.Tool {
	st.mu.Lock()
	defer st.mu.Unlock()
	var candidates []string
	for _, t := range tools {
		if r := st.s.m.byName[t.Name]; r != nil && r.builtin == nil {
			candidates = append(candidates, t.Name)
		}
	}
	if len(candidates) <= k {
		return tools
	}
	if st.s.index == nil || st.s.indexOf != st.s.actions {
		st.s.index, st.s.indexOf = newLexicalIndex(st.s.actions.All()), st.s.actions
	}
	inPlay := map[string]bool{}
	if play {
		inPlay = st.s.inPlay()
	}
	words := tokenize(query)
	type scored struct {
		name  string
		play  bool
		score float64
	}
	ranked := make([]scored, 0, len(candidates))
	for _, n := range candidates {
		ranked = append(ranked, scored{n, st.s.refsInPlay(st.s.m.byName[n], inPlay), st.s.index.score(n, words)})
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		if a.play != b.play {
			if a.play {
				return -1
			}
			return 1
		}
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	keep := map[string]bool{}
	for i, s := range ranked {
		if i >= k && !s.play {
			break
		}
		keep[s.name] = true
	}
	out := tools[:0:0]
	for _, t := range tools {
		if r := st.s.m.byName[t.Name]; r == nil || r.builtin != nil || keep[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// inPlay returns the variables the run's steps have made or changed (by
// their histories: a change by a step, not by the host; a variable restored
// from the log counts when a step had made it).
func (sc *scope) inPlay() map[string]bool {
	play := map[string]bool{}
	for _, n := range sc.vars.Names() {
		v, _ := sc.vars.Head(n)
		for _, c := range v.History {
			if c.By != "host" && (c.By != "restore" || c.Step != variable.HostStep) {
				play[n] = true
				break
			}
		}
	}
	return play
}

// refsInPlay reports whether a reference-only parameter of r is fitted by a
// variable in play.
func (sc *scope) refsInPlay(r *row, play map[string]bool) bool {
	for i, g := range r.params {
		if g == nil || r.act.Param(i).Raw != nil {
			continue
		}
		for _, v := range g.vars {
			if play[v] {
				return true
			}
		}
	}
	return false
}
