package archtest

import (
	"go/ast"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods a runtime type may have: past it, a type
// is several roles sharing fields (split it as database/sql splits DB,
// Conn and Tx, each with its own fields and lock).
const maxMethods = 40

// maxHeldLocks is the most "callers hold" comments runtime may have: a
// lock's rule belongs in the type that owns the fields it guards, not in
// a comment on each method that must be called with it held.
const maxHeldLocks = 5

// TestRuntimeTypesStaySmall counts the methods of each runtime type and
// the "callers hold" comments of its files.
func TestRuntimeTypesStaySmall(t *testing.T) {
	_, files := runtimeFiles(t)
	methods := map[string]int{}
	held := 0
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil {
				methods[receiverName(fn)]++
			}
		}
		for _, g := range f.Comments {
			held += strings.Count(strings.ToLower(strings.Join(strings.Fields(g.Text()), " ")), "callers hold")
		}
	}
	var names []string
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if methods[n] > maxMethods {
			t.Errorf("agent.%s has %d methods, more than %d: split it along its roles, each with its own fields and lock", n, methods[n], maxMethods)
		}
	}
	if held > maxHeldLocks {
		t.Errorf("runtime has %d \"callers hold\" comments, more than %d: give the fields a type that owns them and their lock", held, maxHeldLocks)
	}
}
