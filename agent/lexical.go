package agent

import (
	"math"
	"strings"
	"unicode"

	"github.com/byref/byref/action"
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
