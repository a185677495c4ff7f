package agent_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

// pool of actions over a few related types, for random changes.
func matrixActions() []*action.Action {
	mk := func(name string, fn any, params ...string) *action.Action {
		ps := make([]action.Param, len(params))
		for i, p := range params {
			ps[i] = action.Param{Name: p}
		}
		return action.MustNew(action.Spec{Name: name, Func: fn, Params: ps})
	}
	return []*action.Action{
		mk("a_str", func(s string) string { return s }, "s"),
		mk("a_int", func(n int, f float64) int { return n }, "n", "f"),
		mk("a_any", func(x any) any { return x }, "x"),
		mk("a_reader", func(r io.Reader) error { return nil }, "r"),
		mk("a_thing", func(t *Thing, s string) *Thing { return t }, "t", "s"),
		mk("a_slice", func(xs []string) []string { return xs }, "xs"),
		mk("a_stringer", func(s fmt.Stringer) string { return "" }, "s"),
		mk("a_gadget", func(g *Gadget) {}, "g"),
	}
}

type named string

func (n named) String() string { return string(n) }

// values of assorted types, some assignable to several parameters.
var matrixValues = []any{"text", 42, 1.5, &Thing{}, []string{"a"}, named("n"), &Gadget{}, struct{ A int }{1}, map[string]int{}, true}

// TestIncrementalMatrixEqualsRecomputation checks, after every step of
// random variable and action changes, that the incremental matrix and the
// availability equal those of a runtime built from scratch in that state.
func TestIncrementalMatrixEqualsRecomputation(t *testing.T) {
	pool := matrixActions()
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		st, err := newState(agent.Options{Actions: action.MustSet(pool[:3]...)})
		if err != nil {
			t.Fatal(err)
		}
		for op := 0; op < 60; op++ {
			switch k := rng.IntN(10); {
			case k < 5: // create or retype a variable
				name := fmt.Sprintf("v%d", rng.IntN(8))
				if err := st.Set(name, matrixValues[rng.IntN(len(matrixValues))]); err != nil {
					t.Fatal(err)
				}
			case k < 7:
				st.Delete(fmt.Sprintf("v%d", rng.IntN(8)))
			case k < 9:
				a := pool[rng.IntN(len(pool))]
				if _, ok := st.Actions().Get(a.Name()); !ok {
					if err := st.AddActions(a); err != nil {
						t.Fatal(err)
					}
				}
			default:
				st.RemoveActions(pool[rng.IntN(len(pool))].Name())
			}
			fresh := rebuild(t, st)
			if got, want := sorted(st.Matrix()), sorted(fresh.Matrix()); !equalMatrix(got, want) {
				t.Fatalf("seed %d op %d: incremental matrix\n%v\n!= recomputed\n%v", seed, op, got, want)
			}
			if got, want := names(st.Tools()), names(fresh.Tools()); !slices.Equal(got, want) {
				t.Fatalf("seed %d op %d: available %v, recomputed %v", seed, op, got, want)
			}
		}
	}
}

// rebuild makes a new runtime with st's variables and actions.
func rebuild(t *testing.T, st *agent.State) *agent.State {
	t.Helper()
	var specs []variable.Spec
	for _, v := range st.Variables() {
		specs = append(specs, variable.Spec{Name: v.Name, Value: v.Value, Type: v.Type})
	}
	fresh, err := newState(agent.Options{Actions: st.Actions(), Variables: specs})
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

func sorted(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range m {
		s := slices.Clone(v)
		slices.Sort(s)
		out[k] = s
	}
	return out
}

func equalMatrix(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestMatrixFollowsGoAssignability(t *testing.T) {
	st, err := newState(agent.Options{
		Actions: action.MustSet(matrixActions()...),
		Variables: []variable.Spec{
			{Name: "s", Value: "x"},
			{Name: "i", Value: 1},
			{Name: "f", Value: 1.0},
			{Name: "nm", Value: named("x")},
			{Name: "th", Value: &Thing{}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := st.Matrix()
	for key, want := range map[string][]string{
		"a_str$s":      {"s"},  // a named string type is not a string
		"a_int$n":      {"i"},  // an int is not a float64
		"a_int$f":      {"f"},  // nor the reverse
		"a_stringer$s": {"nm"}, // an interface takes its implementations
		"a_any$x":      {"s", "i", "f", "nm", "th"},
		"a_thing$t":    {"th"},
		"a_reader$r":   nil,
	} {
		if got := m[key]; !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}
