package agent

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// group is one column of the compatibility matrix, shared by every parameter
// (or result) of the same type: the variables compatible with that type, in
// creation order. A group's version changes whenever its members do, which
// is how the schema cache knows what to rebuild.
type group struct {
	typ     reflect.Type
	result  bool // variables that can hold a value of typ, rather than be passed as one
	vars    []string
	version uint64
}

// row is what the matrix knows about one action.
type row struct {
	act    *action.Action
	params []*group // nil for parameters that take no references
	result *group   // nil when the action returns nothing
	tool   toolCache
	// builtin is the behaviour of a built-in action; nil for the host's.
	builtin builtin
	// strictRaw caches why the action's raw schemas break OpenAI's strict
	// rules, nil when they pass (strictKnown says it was computed).
	strictRaw   error
	strictKnown bool
	// args is made once for the action and shared by the rows of every
	// State cloned from this one.
	args *argsType
}

// toolCache holds an action's last built schema and the versions of the
// groups it was built from.
type toolCache struct {
	tool     schema.Tool
	strict   bool // tool passes schema.CheckOpenAIStrict
	versions []uint64
	plain    bool
	built    bool
}

// argsType is a struct type with one field per parameter of an action, to
// decode a call's raw arguments into.
type argsType struct {
	once sync.Once
	t    reflect.Type
	// result is the base name of the variables receiving the action's
	// results (resultName).
	result string
	// params are the action's parameters (Action.Param copies one).
	params []action.Parameter
}

// argsType returns a struct type with one field of each parameter's type,
// in order, or nil when there is none (reflect.StructOf refused one).
func (r *row) argsType() reflect.Type {
	r.init()
	return r.args.t
}

// resultBase returns the base name of the variables receiving the
// action's results (resultName), made once.
func (r *row) resultBase() string {
	r.init()
	return r.args.result
}

// param returns parameter i of the action, without copying it.
func (r *row) param(i int) *action.Parameter {
	r.init()
	return &r.args.params[i]
}

// parameters returns the action's parameters, without copying them.
func (r *row) parameters() []action.Parameter {
	r.init()
	return r.args.params
}

// init makes what a row's calls share: the arguments' struct type and the
// results' base name.
func (r *row) init() {
	r.args.once.Do(func() {
		r.args.result = resultName(r.act.Name())
		r.args.params = r.act.Params()
		fields := make([]reflect.StructField, r.act.NumParams())
		for i := range fields {
			fields[i] = reflect.StructField{Name: "P" + strconv.Itoa(i), Type: r.act.Param(i).Type}
		}
		defer func() { _ = recover() }()
		r.args.t = reflect.StructOf(fields)
	})
}

type typePair struct{ from, to reflect.Type }

// matrix is the compatibility matrix: for every action parameter, the
// variables that can be passed to it by reference. It is updated
// incrementally: a variable change touches each group once, an action change
// one row; type-pair answers are cached.
type matrix struct {
	params  map[reflect.Type]*group
	results map[reflect.Type]*group
	// groups lists every group of params and results.
	groups []*group
	// fitting caches, per variable type, the groups a variable of that
	// type belongs to (dropped when a group is added): a variable is in
	// every group its type fits, and in no other.
	fitting map[reflect.Type][]*group
	// lastType and lastGroups are the latest answer of groupsOf: a run's
	// results are mostly of one type, and the map hashes an interface.
	lastType   reflect.Type
	lastGroups []*group
	rows       []*row
	byName     map[string]*row
	pairs      map[typePair]bool
	clock      uint64
}

func newMatrix() *matrix {
	return &matrix{
		params:  map[reflect.Type]*group{},
		results: map[reflect.Type]*group{},
		byName:  map[string]*row{},
		pairs:   map[typePair]bool{},
	}
}

// assignable is reflect's AssignableTo, cached.
func (m *matrix) assignable(from, to reflect.Type) bool {
	k := typePair{from, to}
	ok, hit := m.pairs[k]
	if !hit {
		ok = from.AssignableTo(to)
		m.pairs[k] = ok
	}
	return ok
}

func (m *matrix) tick(g *group) {
	m.clock++
	g.version = m.clock
}

func (m *matrix) fits(g *group, t reflect.Type) bool {
	if g.result {
		return m.assignable(g.typ, t)
	}
	return m.assignable(t, g.typ)
}

// addVar puts a new (or retyped) variable of type t into every group it
// fits: one column of the matrix.
func (m *matrix) addVar(name string, t reflect.Type) {
	for _, g := range m.groupsOf(t) {
		g.vars = append(g.vars, name)
		m.tick(g)
	}
}

// groupsOf returns the groups a variable of type t belongs to, found once
// per type.
func (m *matrix) groupsOf(t reflect.Type) []*group {
	if t == m.lastType && t != nil {
		return m.lastGroups
	}
	gs, ok := m.fitting[t]
	if !ok {
		for _, g := range m.groups {
			if m.fits(g, t) {
				gs = append(gs, g)
			}
		}
		if m.fitting == nil {
			m.fitting = map[reflect.Type][]*group{}
		}
		m.fitting[t] = gs
	}
	m.lastType, m.lastGroups = t, gs
	return gs
}

func (m *matrix) join(g *group, name string, t reflect.Type) {
	if m.fits(g, t) {
		g.vars = append(g.vars, name)
		m.tick(g)
	}
}

// removeVar takes a variable of type t out of the groups it belongs to.
func (m *matrix) removeVar(name string, t reflect.Type) {
	for _, g := range m.groupsOf(t) {
		if i := slices.Index(g.vars, name); i >= 0 {
			g.vars = slices.Delete(g.vars, i, i+1)
			m.tick(g)
		}
	}
}

// groupFor returns the group of type t, creating it (and filling it from
// vars, in order) when it is new: the cost of a new action is its new types.
func (m *matrix) groupFor(t reflect.Type, result bool, vars []string, typeOf func(string) reflect.Type) *group {
	groups := m.params
	if result {
		groups = m.results
	}
	if g, ok := groups[t]; ok {
		return g
	}
	g := &group{typ: t, result: result}
	groups[t] = g
	m.groups = append(m.groups, g)
	clear(m.fitting)
	m.lastType, m.lastGroups = nil, nil
	for _, n := range vars {
		m.join(g, n, typeOf(n))
	}
	m.tick(g)
	return g
}

// addAction adds one row.
func (m *matrix) addAction(a *action.Action, builtin builtin, vars []string, typeOf func(string) reflect.Type) {
	r := &row{act: a, params: make([]*group, a.NumParams()), builtin: builtin, args: new(argsType)}
	for i := range r.params {
		p := a.Param(i)
		if p.Refs() {
			r.params[i] = m.groupFor(p.Type, false, vars, typeOf)
		}
	}
	if t := a.Result(); t != nil && a.Name() != action.TerminateName {
		r.result = m.groupFor(t, true, vars, typeOf)
	}
	m.rows = append(m.rows, r)
	m.byName[a.Name()] = r
}

// removeAction drops one row. Groups no other row uses stay: they are cheap
// and may serve a later action.
func (m *matrix) removeAction(name string) {
	r, ok := m.byName[name]
	if !ok {
		return
	}
	delete(m.byName, name)
	m.rows = slices.DeleteFunc(m.rows, func(x *row) bool { return x == r })
}

// unavailable returns why the action of row r cannot be offered, or "".
func (r *row) unavailable(plain bool) string {
	a := r.act
	var missing []string
	for i, g := range r.params {
		p := r.param(i)
		if p.Raw != nil {
			continue
		}
		if plain {
			missing = append(missing, "parameter "+p.Name+" ("+variable.TypeName(p.Type)+") can only be passed by reference, and references are hidden from the model")
			continue
		}
		if !p.Optional && (g == nil || len(g.vars) == 0) {
			missing = append(missing, "needs a "+variable.TypeName(p.Type)+" variable for parameter "+p.Name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return a.Name() + ": " + strings.Join(missing, "; ")
}

// clone returns a deep copy of the matrix: its own groups and rows (with
// their schema caches), sharing the actions and the type-pair answers'
// values.
func (m *matrix) clone() *matrix {
	c := &matrix{
		params:  make(map[reflect.Type]*group, len(m.params)),
		results: make(map[reflect.Type]*group, len(m.results)),
		rows:    make([]*row, len(m.rows)),
		byName:  make(map[string]*row, len(m.byName)),
		groups:  make([]*group, len(m.groups)),
		pairs:   maps.Clone(m.pairs),
		clock:   m.clock,
	}
	groups := make(map[*group]*group, len(m.params)+len(m.results))
	copyGroup := func(g *group) *group {
		if g == nil {
			return nil
		}
		if n, ok := groups[g]; ok {
			return n
		}
		n := &group{typ: g.typ, result: g.result, vars: slices.Clone(g.vars), version: g.version}
		groups[g] = n
		return n
	}
	for i, g := range m.groups {
		c.groups[i] = copyGroup(g)
	}
	for t, g := range m.params {
		c.params[t] = copyGroup(g)
	}
	for t, g := range m.results {
		c.results[t] = copyGroup(g)
	}
	for i, r := range m.rows {
		nr := *r
		nr.params = make([]*group, len(r.params))
		for j, g := range r.params {
			nr.params[j] = copyGroup(g)
		}
		nr.result = copyGroup(r.result)
		nr.tool.versions = slices.Clone(r.tool.versions)
		c.rows[i] = &nr
		c.byName[r.act.Name()] = &nr
	}
	return c
}
