package runtime

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// lexicalIndex scores actions against a conversation with BM25 over the
// words of their names, descriptions and parameter names. It is built once
// per action set and needs no network and no model.
type lexicalIndex struct {
	docs   map[string]indexDoc
	df     map[string]int
	avgLen float64
}

type indexDoc struct {
	tf  map[string]int
	len int
}

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func newLexicalIndex(actions []*action.Action) *lexicalIndex {
	ix := &lexicalIndex{docs: make(map[string]indexDoc, len(actions)), df: map[string]int{}}
	total := 0
	for _, a := range actions {
		text := a.Name() + " " + a.Description() + " " + a.ResultDescription()
		for i := 0; i < a.NumParams(); i++ {
			p := a.Param(i)
			text += " " + p.Name + " " + p.Description
		}
		words := tokenize(text)
		d := indexDoc{tf: map[string]int{}, len: len(words)}
		for _, w := range words {
			if d.tf[w] == 0 {
				ix.df[w]++
			}
			d.tf[w]++
		}
		ix.docs[a.Name()] = d
		total += d.len
	}
	if len(actions) > 0 {
		ix.avgLen = float64(total) / float64(len(actions))
	}
	return ix
}

// score returns the BM25 score of the named action for the query words.
func (ix *lexicalIndex) score(name string, query []string) float64 {
	d, ok := ix.docs[name]
	if !ok {
		return 0
	}
	n := float64(len(ix.docs))
	s := 0.0
	for _, q := range query {
		tf := float64(d.tf[q])
		if tf == 0 {
			continue
		}
		df := float64(ix.df[q])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		s += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(d.len)/ix.avgLen))
	}
	return s
}

var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "and": true, "or": true,
	"for": true, "is": true, "it": true, "on": true, "with": true, "by": true, "at": true, "be": true,
	"this": true, "that": true, "what": true, "me": true, "my": true, "you": true, "your": true,
	"var": true, "return": true, "null": true, "true": true, "false": true,
}

// tokenize lower-cases text and splits it into words (snake_case and
// camelCase split too), without stop words, with plurals folded.
func tokenize(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := string(cur)
		cur = cur[:0]
		if len(w) < 2 || stopWords[w] {
			return
		}
		if len(w) > 4 && strings.HasSuffix(w, "ies") {
			w = w[:len(w)-3] + "y"
		} else if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		words = append(words, w)
	}
	prevLower := false
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			prevLower = unicode.IsLower(r)
			cur = append(cur, unicode.ToLower(r))
		default:
			prevLower = false
			flush()
		}
	}
	flush()
	return words
}

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
		if r := st.m.byName[t.Name]; r != nil && r.builtin == nil {
			candidates = append(candidates, t.Name)
		}
	}
	if len(candidates) <= k {
		return tools
	}
	if st.index == nil || st.indexOf != st.actions {
		st.index, st.indexOf = newLexicalIndex(st.actions.All()), st.actions
	}
	inPlay := map[string]bool{}
	if play {
		inPlay = st.inPlay()
	}
	words := tokenize(query)
	type scored struct {
		name  string
		play  bool
		score float64
	}
	ranked := make([]scored, 0, len(candidates))
	for _, n := range candidates {
		ranked = append(ranked, scored{n, st.refsInPlay(st.m.byName[n], inPlay), st.index.score(n, words)})
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
		if r := st.m.byName[t.Name]; r == nil || r.builtin != nil || keep[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// inPlay returns the variables the run's steps have made or changed (by
// their histories: a change by a step, not by the host; a variable restored
// from the log counts when a step had made it); callers hold mu.
func (st *State) inPlay() map[string]bool {
	play := map[string]bool{}
	for _, n := range st.vars.Names() {
		v, _ := st.vars.Head(n)
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
// variable in play; callers hold mu.
func (st *State) refsInPlay(r *row, play map[string]bool) bool {
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
