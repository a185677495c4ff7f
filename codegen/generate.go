package codegen

import (
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Import paths generated code uses.
const (
	replayPath = "github.com/byref/byref/codegen/replay"
	actionPath = "github.com/byref/byref/action"
)

// Options configures Generate. The zero value generates package main with
// no main function.
type Options struct {
	// Package is the generated file's package name. Empty means "main".
	Package string
	// Main adds a main function that calls ReplayVariables with the
	// starting values written as literals (secrets are read from the
	// environment variable BYREF_<NAME>, upper-cased) and prints
	// {"result": …, "variables": …} as one line of JSON. When the run used
	// types declared in package main (and Package is main), the file goes
	// next to the user's main package, which has its own main: the function
	// is then ReplayMain, for that main to call.
	Main bool
	// ActionSet is the package-level function main calls to fill Actions,
	// the functions of the actions replay code cannot call by import path
	// (closures and methods), e.g. myapp.Actions. Nil, with ActionSetFunc
	// empty, leaves main with empty Actions and a comment naming the
	// fields to fill; the replay refuses nil fields with an error naming
	// the fix.
	ActionSet func() *action.Set
	// ActionSetFunc names that function by import path and name
	// ("example.com/shop.Actions", "main.actions"), for callers that
	// cannot hold it: byref replay --actions. ActionSet wins when both
	// are set.
	ActionSetFunc string
}

// ErrGenerate is the condition of a recording Generate cannot turn into Go:
// an action whose Go identity the log lacks, a type replay code cannot
// name, a snippet that does not parse. Errors of Generate wrap it.
var ErrGenerate = errors.New("codegen: cannot generate replay code")

// Generate turns a recorded run into a Go source file, formatted with
// go/format. The file declares
//
//	type Variables struct{ … }  // every variable the replay leaves, by name
//	func Replay(ctx context.Context, [actions Actions,] <starting variables>) (R, error)
//	func ReplayVariables(…same…) (R, Variables, error)
//
// where R is the type of the variable the run returned as its result, or
// json.RawMessage for a raw result (nil when the run recorded none). The
// actions parameter is there only when some action is a closure or a
// method, which cannot be called through an import path; see the package
// documentation.
func Generate(rec *Recording, opts Options) ([]byte, error) {
	g, err := newGen(rec, opts, false)
	if err != nil {
		return nil, err
	}
	src, err := g.file()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	out, err := format.Source(src)
	if err != nil {
		return src, fmt.Errorf("%w: the generated source does not parse (a bug in codegen, or a snippet Go cannot compile): %w", ErrGenerate, err)
	}
	return out, nil
}

// GenerateSnippet turns a recorded run into one Go snippet for package
// interp: imports first, then every step as statements, with actions
// called by their names (pass them as interp.Input.Funcs, as the runtime
// does) and the starting variables expected as interp.Input.Vars. A failed
// action panics with the step's number. It suits runs whose values are of
// standard types; host types need their packages in interp.Options.Symbols.
func GenerateSnippet(rec *Recording) (string, error) {
	g, err := newGen(rec, Options{}, true)
	if err != nil {
		return "", err
	}
	if err := g.steps(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	var b strings.Builder
	paths := make([]string, 0, len(g.imp.byPath))
	for path := range g.imp.byPath {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if name := g.imp.byPath[path]; name == defaultName(path) {
			fmt.Fprintf(&b, "import %q\n", path)
		} else {
			fmt.Fprintf(&b, "import %s %q\n", name, path)
		}
	}
	for _, d := range g.decls {
		b.WriteString(d + "\n")
	}
	b.WriteString(g.body.String())
	return b.String(), nil
}

// gen holds the state of one generation.
type gen struct {
	rec     *Recording
	cat     *catalog
	opts    Options
	snippet bool // GenerateSnippet's form

	names *namer
	imp   *imports
	body  strings.Builder
	decls []string

	vars     map[string]*Variable
	vtypes   map[string]*gotype // variable name -> its parsed type
	acts     map[string]*actionInfo
	declared map[string]bool
	parsed   map[int]*parsedSnippet // by index in rec.Steps

	ctx, err, actions string
	errDeclared       bool
	funcs             map[string]funcRef // by action name
	lookups           []string           // action names looked up, in order
	lookupVar         map[string]string  // action name -> its field of actions
	fields            map[string]string  // action name -> field of Actions
	snippetActions    []string           // actions snippets call by name

	resultType *gotype
	resultExpr string
	lastStep   int
	usesMain   bool // types of package main are named: the file goes next to it
}

// inMain reports whether the generated file is in package main.
func (g *gen) inMain() bool { return g.opts.Package == "" || g.opts.Package == "main" }

func newGen(rec *Recording, opts Options, snippet bool) (*gen, error) {
	if rec == nil {
		return nil, fmt.Errorf("%w: the recording is nil", ErrGenerate)
	}
	if err := checkRecording(rec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	cat := &catalog{named: map[string]run.NamedType{rawMessage: {Name: rawMessage, Underlying: "[]uint8", Unmarshals: true}}, parsed: map[string]*gotype{}}
	for name, nt := range rec.Types {
		cat.named[name] = nt
	}
	g := &gen{rec: rec, cat: cat, opts: opts, snippet: snippet, names: newNamer(), vars: map[string]*Variable{}, vtypes: map[string]*gotype{},
		acts: map[string]*actionInfo{}, declared: map[string]bool{}, parsed: map[int]*parsedSnippet{}, funcs: map[string]funcRef{}, lookupVar: map[string]string{}, fields: map[string]string{}}
	g.imp = &imports{byPath: map[string]string{}, names: g.names}
	g.names.reserve("Replay", "ReplayVariables", "Variables", "main", "init", "_")
	types := map[string]reflect.Type{} // for the snippets' analysis: names, types unknown
	for i := range rec.Variables {
		v := &rec.Variables[i]
		g.vars[v.Name] = v
		g.names.reserve(v.Name)
		types[v.Name] = nil
		if t, err := parseType(v.Type); err == nil {
			g.vtypes[v.Name] = t
		}
	}
	actionNames := slices.Sorted(maps.Keys(rec.Actions))
	g.names.reserve(actionNames...)
	g.names.reserve(action.TerminateName, action.AskUserName, runGoName)

	// Snippets first: their identifiers and import names are fixed.
	if err := g.parseSnippets(types, actionNames); err != nil {
		return nil, err
	}
	g.ctx, g.err, g.actions = g.names.fresh("ctx"), g.names.fresh("err"), g.names.fresh("actions")

	// Where each action called lives.
	for _, in := range rec.Steps {
		if in.Kind == KindCall && in.OK() && in.Denied == "" && in.Action != action.TerminateName && in.Action != action.AskUserName && !in.Client && (in.Child == nil || in.Child.Result == nil) {
			if err := g.locateAction(in.Action); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range g.snippetActions {
		if err := g.locateAction(name); err != nil {
			return nil, err
		}
	}
	if err := g.result(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	return g, nil
}

// parseSnippets parses the run's snippets, reserves their identifiers
// and fixes their imports' names; types names the run's variables.
func (g *gen) parseSnippets(types map[string]reflect.Type, actionNames []string) error {
	snippetNames := map[string]string{} // import name -> path
	used := map[string]bool{}
	for i, in := range g.rec.Steps {
		if in.Kind != KindSnippet || !in.OK() || in.Denied != "" {
			continue
		}
		own := ""
		if g.inMain() && !g.snippet {
			own = "main"
		}
		p, err := parseSnippet(in.Code, types, g.rec.Actions, own)
		if err != nil {
			return fmt.Errorf("%w: step %d: %w", ErrGenerate, in.Step, err)
		}
		g.parsed[i] = p
		for id := range p.idents {
			if !p.qualifiers[id] {
				// A package name the snippet qualifies with (shop.Customer)
				// is left free, so the file imports that package under
				// the same name (it would become shop2).
				g.names.reserve(id)
			}
		}
		// A func or type declaration goes to file level, where the run's
		// variables, the snippet's own top-level variables and the
		// actions (locals of Replay) are out of reach.
		for _, d := range p.declFree {
			for _, n := range d.free {
				_, isVar := types[n]
				_, isAction := g.rec.Actions[n]
				if isVar || isAction || slices.Contains(p.defined, n) {
					what := "the run's variable"
					switch {
					case isAction:
						what = "the action"
					case slices.Contains(p.defined, n):
						what = "the snippet's top-level variable"
					}
					return fmt.Errorf("%w: step %d: the snippet's declaration %s uses %s %s, which replay code declares inside Replay and a file-level declaration cannot reach; pass it to %s as a parameter", ErrGenerate, in.Step, d.name, what, n, d.name)
				}
			}
		}
		if !g.snippet {
			if err := g.addHostImports(in.Step, p, types); err != nil {
				return err
			}
		}
		for _, im := range p.imports {
			if old, ok := snippetNames[im.Name]; ok && old != im.Path {
				return fmt.Errorf("%w: step %d imports %s as %s, but an earlier snippet imports %s under that name; rename one import", ErrGenerate, in.Step, im.Path, im.Name, old)
			}
			snippetNames[im.Name] = im.Path
		}
		for _, a := range actionNames {
			if p.idents[a] && !used[a] {
				used[a] = true
				g.snippetActions = append(g.snippetActions, a)
			}
		}
	}
	for name, path := range snippetNames {
		if name != "_" {
			g.imp.fixed(path, name)
		}
	}
	return nil
}

// locateAction finds where the named action's function lives, and gives
// the ones replay code cannot name a field of the Actions struct.
func (g *gen) locateAction(name string) error {
	if _, ok := g.funcs[name]; ok {
		return nil
	}
	a, err := g.action(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrGenerate, err)
	}
	ref, local := locate(a.id.Func).inPackage(g.inMain() && !g.snippet)
	g.usesMain = g.usesMain || local
	g.funcs[name] = ref
	if ref.Why != "" && !g.snippet {
		g.lookups = append(g.lookups, name)
		field := camel(name, true)
		for taken := true; taken; {
			taken = false
			for _, f := range g.fields {
				if f == field {
					field, taken = field+"_", true
				}
			}
		}
		g.fields[name] = field
		g.lookupVar[name] = g.actions + "." + field
	}
	return nil
}

// checkRecording checks the names a recording would write into code: its
// variables, the variables calls return into and the references they pass
// must be valid variable names (failed and denied steps are only comments).
// A recording can be built by hand, or from a log out of any store.
func checkRecording(rec *Recording) error {
	for _, v := range rec.Variables {
		if err := variable.ValidName(v.Name); err != nil {
			return fmt.Errorf("variable %q: %w", v.Name, err)
		}
	}
	for _, in := range rec.Steps {
		if !in.OK() || in.Denied != "" {
			continue // left out, as a comment
		}
		if in.Return != "" {
			if err := variable.ValidName(in.Return); err != nil {
				return fmt.Errorf("step %d returns into %q: %w", in.Step, in.Return, err)
			}
		}
		for _, a := range in.Args {
			if a.Ref != "" {
				if err := variable.ValidName(a.Ref); err != nil {
					return fmt.Errorf("step %d passes %q as %s: %w", in.Step, a.Ref, a.Param, err)
				}
			}
		}
		for _, n := range append(slices.Clone(in.Created), in.Modified...) {
			if err := variable.ValidName(n); err != nil {
				return fmt.Errorf("step %d changes variable %q: %w", in.Step, n, err)
			}
		}
	}
	return nil
}

// result works out the type and expression of the run's result, from its
// last successful terminate call.
func (g *gen) result() error {
	g.resultType = rawMessageType()
	raw := g.rec.Result
	for _, in := range g.rec.Steps {
		if in.Kind != KindCall || in.Action != action.TerminateName || !in.OK() {
			continue
		}
		g.resultExpr = ""
		for _, a := range in.Args {
			if a.Param == "result" && a.Ref != "" {
				if t := g.vtypes[a.Ref]; t != nil {
					g.resultType, g.resultExpr = t, a.Ref
				}
			}
			if a.Param == "result" && a.Raw != nil && raw == nil {
				raw = a.Raw
			}
		}
	}
	if g.resultExpr == "" {
		g.resultType = rawMessageType()
		g.resultExpr = "nil"
		if raw != nil && string(raw) != "null" {
			g.resultExpr = g.imp.use("encoding/json", "json") + ".RawMessage(" + quote(string(raw)) + ")"
		}
	}
	return nil
}

// file writes the whole source file.
func (g *gen) file() ([]byte, error) {
	if err := g.steps(); err != nil {
		return nil, err
	}
	pkg := g.opts.Package
	if pkg == "" {
		pkg = "main"
	}
	ctxPkg := g.imp.use("context", "context")
	rt, err := g.typeExpr(g.resultType)
	if err != nil {
		return nil, fmt.Errorf("the result: %w", err)
	}
	// Parameters.
	var params, args []string
	params = append(params, g.ctx+" "+ctxPkg+".Context")
	args = append(args, g.ctx)
	if len(g.lookups) > 0 {
		params = append(params, g.actions+" Actions")
		args = append(args, g.actions)
	}
	var starts []*Variable
	for i := range g.rec.Variables {
		v := &g.rec.Variables[i]
		if !v.Start {
			continue
		}
		t := g.vtypes[v.Name]
		if t == nil {
			return nil, fmt.Errorf("starting variable %s: its recorded type %q does not parse", v.Name, v.Type)
		}
		ts, err := g.typeExpr(t)
		if err != nil {
			return nil, fmt.Errorf("starting variable %s: %w", v.Name, err)
		}
		starts = append(starts, v)
		params = append(params, v.Name+" "+ts)
		args = append(args, v.Name)
	}
	// The Variables struct.
	fields, inits, left, err := g.variableFields()
	if err != nil {
		return nil, err
	}

	var b strings.Builder
	run := " recorded"
	if g.rec.RunID != "" {
		run = " " + commentLine(string(g.rec.RunID))
	}
	fmt.Fprintf(&b, "// Replay code generated by byref from the run%s.\n// Review it, edit it, run it: no model is involved.\n\n", run)
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	imports := &b
	var rest strings.Builder
	w := &rest
	fmt.Fprintf(w, "// Variables holds the run's variables as the replay leaves them.\n")
	if len(left) > 0 {
		fmt.Fprintf(w, "// Not replayed (set by the runtime, not by a step): %s.\n", strings.Join(left, ", "))
	}
	fmt.Fprintf(w, "type Variables struct {\n%s\n}\n\n", strings.Join(fields, "\n"))
	if err := g.actionsStruct(w); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "// Replay performs the run%s again, step by step, and returns its result.\n", run)
	if len(g.lookups) > 0 {
		fmt.Fprintf(w, "// %s holds the actions %s, which cannot be called through an\n// import path.\n", g.actions, strings.Join(g.lookups, ", "))
	}
	fmt.Fprintf(w, "func Replay(%s) (%s, error) {\n", strings.Join(params, ", "), rt)
	fmt.Fprintf(w, "result, _, err := ReplayVariables(%s)\nreturn result, err\n}\n\n", strings.Join(args, ", "))
	fmt.Fprintf(w, "// ReplayVariables is Replay that also returns the variables.\n")
	fmt.Fprintf(w, "func ReplayVariables(%s) (%s, Variables, error) {\n", strings.Join(params, ", "), rt)
	zero, err := g.zero(g.resultType)
	if err != nil {
		return nil, err
	}
	for _, name := range g.lookups {
		fmt.Fprintf(w, "if %s == nil {\nreturn %s, Variables{}, %s.Errorf(%q)\n}\n", g.lookupVar[name], zero, g.imp.use("fmt", "fmt"),
			g.lookupVar[name]+" is nil; set it to the function of the action "+name)
	}
	if err := g.snippetFuncs(w); err != nil {
		return nil, err
	}
	w.WriteString(g.body.String())
	fmt.Fprintf(w, "return %s, Variables{%s}, nil\n}\n", g.resultExpr, strings.Join(inits, ", "))
	for _, d := range g.decls {
		w.WriteString("\n" + d + "\n")
	}
	if g.opts.Main {
		if err := g.mainFunc(w, starts, rt); err != nil {
			return nil, err
		}
	}
	// The import block is known only now.
	imports.WriteString(g.imp.spec() + "\n")
	b.WriteString(rest.String())
	return []byte(b.String()), nil
}

// variableFields are the fields of the Variables struct, their
// initialisers in Replay's return, and the variables left out (no step sets
// them).
func (g *gen) variableFields() (fields, inits, left []string, err error) {
	fieldNames := newNamer()
	for _, v := range g.rec.Variables {
		if !g.declared[v.Name] {
			left = append(left, v.Name)
			continue
		}
		t := g.vtypes[v.Name]
		ts, err := g.typeExpr(t)
		if err != nil || t == nil {
			ts = "any"
		}
		f := fieldNames.fresh(camel(v.Name, true))
		tag := v.Name
		comment := ""
		switch {
		case v.Secret:
			tag, comment = "-", " // secret: never encoded"
		case t != nil && !g.cat.representable(t, map[string]bool{}):
			tag, comment = "-", " // not JSON-representable"
		}
		tagText := fmt.Sprintf("json:%q", tag)
		if strings.Contains(tagText, "`") {
			return nil, nil, nil, fmt.Errorf("variable %q cannot be a struct tag in backquotes", v.Name)
		}
		fields = append(fields, fmt.Sprintf("%s %s `%s`%s", f, ts, tagText, comment))
		inits = append(inits, f+": "+v.Name)
	}
	return fields, inits, left, nil
}

// actionsStruct writes the Actions struct, when replay code needs one.
func (g *gen) actionsStruct(w *strings.Builder) error {
	if len(g.lookups) > 0 {
		fmt.Fprintf(w, "// Actions holds the functions of the run's actions that replay code\n// cannot call through an import path (closures, methods): a field per\n// action, with the function's exact signature.\ntype Actions struct {\n")
		for _, name := range g.lookups {
			ft, err := g.typeExpr(g.acts[name].typ)
			if err != nil {
				return fmt.Errorf("action %s: %w", name, err)
			}
			fmt.Fprintf(w, "// %s is the action %s: %s.\n%s %s\n", g.fields[name], name, commentLine(g.funcs[name].Why), g.fields[name], ft)
		}
		w.WriteString("}\n\n")
	}
	return nil
}

// snippetFuncs declares the actions snippets call by name, with the
// signatures snippets see: no context, and the fields of a struct-argument
// action one by one.
func (g *gen) snippetFuncs(w *strings.Builder) error {
	for _, name := range g.snippetActions {
		a := g.acts[name]
		ref := g.funcs[name]
		callee := g.lookupVar[name]
		if callee == "" {
			callee = g.callee(ref)
		}
		fmt.Fprintf(w, "// Snippets call %s by name.\n", name)
		if !a.takesCtx && a.argsStruct == nil {
			fmt.Fprintf(w, "%s := %s\n", name, callee)
			continue
		}
		var res []string
		for _, r := range a.typ.out {
			s, err := g.typeExpr(r)
			if err != nil {
				return fmt.Errorf("action %s: %w", name, err)
			}
			res = append(res, s)
		}
		results := ""
		switch len(res) {
		case 1:
			results = " " + res[0]
		case 2:
			results = " (" + strings.Join(res, ", ") + ")"
		}
		// Parameter names: the action's, kept clear of the file's names.
		local := newNamer()
		for n := range g.names.taken {
			local.reserve(n)
		}
		var ps, as []string
		for i, pt := range a.params {
			n := fmt.Sprintf("p%d", i)
			if i < len(a.id.Params) && token.IsIdentifier(a.id.Params[i]) {
				n = a.id.Params[i] + "_"
			}
			n = local.fresh(n)
			t, err := g.typeExpr(pt)
			if err != nil {
				return fmt.Errorf("action %s: %w", name, err)
			}
			ps = append(ps, n+" "+t)
			as = append(as, n)
		}
		pre, args, err := g.pack(a, name, as, local)
		if err != nil {
			return err
		}
		if a.takesCtx {
			args = append([]string{g.ctx}, args...)
		}
		ret := "return "
		if len(res) == 0 {
			ret = ""
		}
		fmt.Fprintf(w, "%s := func(%s)%s {\n%s%s%s(%s)\n}\n", name, strings.Join(ps, ", "), results, pre, ret, callee, strings.Join(args, ", "))
	}
	return nil
}

// pack turns the arguments of a struct-argument action, one per field
// ("" for a field left at its zero value), into the struct its function
// takes: a composite literal, or a variable whose promoted fields are set
// one by one (pre, the statements to write before the call). Other
// actions' arguments are returned as they are.
func (g *gen) pack(a *actionInfo, action string, args []string, names *namer) (pre string, out []string, err error) {
	if a.argsStruct == nil {
		return "", args, nil
	}
	ts, err := g.typeExpr(a.argsStruct)
	if err != nil {
		return "", nil, fmt.Errorf("action %s: %w", action, err)
	}
	var fields, paths []string
	for i, e := range args {
		if e == "" {
			continue
		}
		f := a.fields[i].Field
		for _, part := range strings.Split(f, ".") {
			if !token.IsIdentifier(part) {
				return "", nil, fmt.Errorf("action %s: the recorded field %q is not a Go field name", action, f)
			}
		}
		if strings.Contains(f, ".") {
			paths = append(paths, f+" = "+e)
		} else {
			fields = append(fields, f+": "+e)
		}
	}
	lit := ts + "{" + strings.Join(fields, ", ") + "}"
	if len(paths) == 0 {
		return "", []string{lit}, nil
	}
	v := names.fresh(camel(action, false) + "Args")
	pre = v + " := " + lit + "\n"
	for _, p := range paths {
		pre += v + "." + p + "\n"
	}
	return pre, []string{v}, nil
}

// mainFunc writes main.
func (g *gen) mainFunc(w *strings.Builder, starts []*Variable, rt string) error {
	fmtPkg, osPkg := g.imp.use("fmt", "fmt"), g.imp.use("os", "os")
	res, vars, out := g.names.fresh("result"), g.names.fresh("vars"), g.names.fresh("out")
	var setRef funcRef
	sym := g.opts.ActionSetFunc
	if g.opts.ActionSet != nil {
		sym = run.FuncSymbol(g.opts.ActionSet)
	} else if sym != "" && !validFuncName(sym) {
		return fmt.Errorf("Options.ActionSetFunc %q is not an import path and a function name, as in example.com/shop.Actions", sym)
	}
	hasSet := sym != ""
	if len(g.lookups) > 0 && hasSet {
		var local bool
		setRef, local = locate(sym).inPackage(g.inMain())
		g.usesMain = g.usesMain || local
		if setRef.Why != "" {
			return fmt.Errorf("the action set function: main must call it by import path, but %s", setRef.Why)
		}
	}
	if g.mainName() == "ReplayMain" {
		// The user's package main has its own main.
		fmt.Fprintf(w, "\n// ReplayMain is this replay's main: the run used types of your package\n// main, so this file goes next to your main.go; call ReplayMain from your\n// main function.\nfunc ReplayMain() {\n%s := %s.Background()\n", g.ctx, g.imp.use("context", "context"))
	} else {
		fmt.Fprintf(w, "\nfunc main() {\n%s := %s.Background()\n", g.ctx, g.imp.use("context", "context"))
	}
	args := []string{g.ctx}
	exit := func() {
		fmt.Fprintf(w, "if %s != nil {\n%s.Fprintln(%s.Stderr, %s)\n%s.Exit(1)\n}\n", g.err, fmtPkg, osPkg, g.err, osPkg)
	}
	if len(g.lookups) > 0 {
		args = append(args, g.actions)
		if hasSet {
			set := g.names.fresh("set")
			fmt.Fprintf(w, "%s := %s()\nvar %s Actions\n", set, g.callee(setRef), g.actions)
			for _, name := range g.lookups {
				ft, err := g.typeExpr(g.acts[name].typ)
				if err != nil {
					return fmt.Errorf("action %s: %w", name, err)
				}
				f := g.names.fresh(camel(name, false) + "Func")
				fmt.Fprintf(w, "%s, %s := %s.Func[%s](%s, %q)\n", f, g.err, g.imp.use(replayPath, "replay"), ft, set, name)
				exit()
				fmt.Fprintf(w, "%s.%s = %s\n", g.actions, g.fields[name], f)
			}
		} else {
			fmt.Fprintf(w, "// Fill %s with the functions of the run's actions, which replay\n// code cannot call through an import path:\n", g.actions)
			for _, name := range g.lookups {
				fmt.Fprintf(w, "//   %s: the action %s (%s),\n", g.fields[name], name, commentLine(g.funcs[name].Why))
			}
			fmt.Fprintf(w, "// for example from the action set: replay.Func[T](set, name).\nvar %s Actions\n", g.actions)
		}
	}
	for _, v := range starts {
		args = append(args, v.Name)
		t := g.vtypes[v.Name]
		ts, _ := g.typeExpr(t)
		switch {
		case v.Secret:
			fmt.Fprintf(w, "// %s is secret: its value is read from the environment, never written here.\n", v.Name)
			fmt.Fprintf(w, "%s, %s := %s.Env[%s](%q)\n", v.Name, g.err, g.imp.use(replayPath, "replay"), ts, envName(v.Name))
			exit()
		case v.Value != nil:
			lit, err := g.jsonValue(v.Value, t, false)
			if err != nil {
				return fmt.Errorf("starting variable %s: %w", v.Name, err)
			}
			fmt.Fprintf(w, "%s := %s\n", v.Name, lit)
		case v.Handle:
			why := fmt.Sprintf("%s is a live handle (%s) the log does not record; supply it in %s, or call ReplayVariables with it", v.Name, ts, g.mainName())
			fmt.Fprintf(w, "// TODO: %s is a live handle (%s), which the log does not record:\n// open it here as your program does, or call ReplayVariables with it.\nvar %s %s\n", v.Name, ts, v.Name, ts)
			if t != nil && (t.kind == kPointer || t.kind == kMap || t.kind == kChan || t.kind == kFunc) {
				fmt.Fprintf(w, "if %s == nil {\n%s.Fprintln(%s.Stderr, %q)\n%s.Exit(1)\n}\n", v.Name, fmtPkg, osPkg, "replay: "+why, osPkg)
			}
		default:
			fmt.Fprintf(w, "// TODO: the run's starting value of %s was not recorded (%s); set it here.\nvar %s %s\n", v.Name, g.whyNoValue(v, t), v.Name, ts)
		}
	}
	fmt.Fprintf(w, "%s, %s, %s := ReplayVariables(%s)\n", res, vars, g.err, strings.Join(args, ", "))
	exit()
	fmt.Fprintf(w, "%s, %s := %s.Marshal(struct {\nResult %s `json:\"result\"`\nVariables Variables `json:\"variables\"`\n}{%s, %s})\n", out, g.err, g.imp.use("encoding/json", "json"), rt, res, vars)
	exit()
	fmt.Fprintf(w, "%s.Println(string(%s))\n}\n", fmtPkg, out)
	return nil
}

// whyNoValue says why the log holds no starting value of v, of type t.
func (g *gen) whyNoValue(v *Variable, t *gotype) string {
	switch {
	case v.Tainted:
		return "it was derived from a secret"
	case t != nil && !g.cat.representable(t, map[string]bool{}):
		return "it is not JSON-representable"
	}
	return "it was too large to record"
}

// mainName is the function mainFunc writes.
func (g *gen) mainName() string {
	if g.usesMain {
		return "ReplayMain"
	}
	return "main"
}

// envName is the environment variable a main reads a secret from.
func envName(name string) string { return "BYREF_" + strings.ToUpper(name) }

// camel turns a variable or action name into a Go-style identifier:
// api_key → apiKey (exported: APIKey is not attempted; ApiKey).
func camel(name string, exported bool) string {
	var b strings.Builder
	up := exported
	for _, r := range name {
		if r == '_' {
			up = b.Len() > 0 || exported
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" {
		s = "V"
	}
	if !exported {
		rs := []rune(s)
		rs[0] = unicode.ToLower(rs[0])
		s = string(rs)
	}
	return s
}

// rawMessage is json.RawMessage in the log's form: the type of a raw
// result.
const rawMessage = "encoding/json.RawMessage"

func rawMessageType() *gotype {
	return &gotype{kind: kNamed, path: "encoding/json", name: "RawMessage"}
}

// actionInfo is an action's Go identity, parsed.
type actionInfo struct {
	id       run.GoAction
	typ      *gotype   // the function's type
	params   []*gotype // the parameters after a leading context
	takesCtx bool
	// argsStruct is the struct a struct-argument action's function takes,
	// whose fields (fields) the parameters fill; nil for other actions.
	argsStruct *gotype
	fields     []run.ArgField
	// result is the function's result, nil when it has none;
	// returnsErr reports a last result of type error.
	result     *gotype
	returnsErr bool
}

// action returns the parsed Go identity of the named action.
func (g *gen) action(name string) (*actionInfo, error) {
	if a, ok := g.acts[name]; ok {
		return a, nil
	}
	if !token.IsIdentifier(name) || token.IsKeyword(name) {
		return nil, fmt.Errorf("the log names an action %q, which is not a Go identifier as action names are", name)
	}
	id, ok := g.rec.Actions[name]
	if !ok {
		return nil, fmt.Errorf("the run calls action %q, but its log does not record the action's Go identity (a log written before byref recorded them); run it again to replay it", name)
	}
	t, err := parseType(id.Type)
	if err != nil {
		return nil, fmt.Errorf("action %s: %w", name, err)
	}
	if t.kind != kFunc {
		return nil, fmt.Errorf("action %s: its recorded type %s is not a function", name, id.Type)
	}
	a := &actionInfo{id: id, typ: t, params: t.in}
	if len(t.in) > 0 && t.in[0].isContext() {
		a.takesCtx, a.params = true, t.in[1:]
	}
	if len(id.Fields) > 0 {
		// The function takes one struct; the parameters are its fields.
		if len(a.params) != 1 {
			return nil, fmt.Errorf("action %s: its recorded fields need a function of one struct, not %s", name, id.Type)
		}
		a.argsStruct, a.fields, a.params = a.params[0], id.Fields, nil
		for _, f := range id.Fields {
			ft, err := parseType(f.Type)
			if err != nil {
				return nil, fmt.Errorf("action %s: field %s: %w", name, f.Field, err)
			}
			a.params = append(a.params, ft)
		}
	}
	switch len(t.out) {
	case 1:
		if t.out[0].kind == kError {
			a.returnsErr = true
		} else {
			a.result = t.out[0]
		}
	case 2:
		a.result, a.returnsErr = t.out[0], true
	}
	g.acts[name] = a
	return a, nil
}

// validFuncName reports whether s is an import path, a dot and an
// identifier: text that can be written into code as a package-level
// function's name.
func validFuncName(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || !token.IsIdentifier(s[dot+1:]) {
		return false
	}
	for _, r := range s[:dot] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~+-/", r)) {
			return false
		}
	}
	return !strings.Contains(s[:dot], "..") && !strings.HasPrefix(s, "/")
}
