package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"io"
	"io/fs"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
	sandboxos "github.com/byref/byref/interp/internal/os"
)

// Exports is a table of host symbols in yaegi's form: import path plus "/"
// plus package name ("example.com/app/app") to symbol name to value. Types
// are registered as nil pointers ((*T)(nil)), variables as addressable
// values, functions and constants as values; `yaegi extract` generates it.
type Exports = map[string]map[string]reflect.Value

// Options configures an [Interpreter]. The zero value is valid: every field
// documents its default.
type Options struct {
	// Timeout bounds each Eval when ctx has no earlier deadline. Zero means 10s.
	Timeout time.Duration
	// MaxOutput is how many bytes of stdout, and of stderr, are kept per
	// Eval; the rest is dropped with a marker. A snippet that writes more than
	// 16 times this is stopped with ErrOutputLimit.
	// Zero means 64 KiB.
	MaxOutput int
	// RebuildEvery replaces the yaegi interpreter after this many successful
	// Evals, because yaegi slows down as it accumulates compiled code.
	// Variables live in the caller and declarations are replayed, so a
	// rebuild is invisible to snippets. Zero means 100 (see TestGrowth).
	RebuildEvery int
	// Symbols are host packages' symbols, so snippets can import them and
	// call their functions (import "example.com/app"; app.Parse(...)). The
	// host's types that appear in variables and actions need none: they
	// are registered as the Evals see them (see the package doc).
	Symbols []Exports
	// MaxCallDepth bounds nested calls of interpreted functions; deeper
	// recursion panics with ErrCallDepth instead of overflowing the Go stack,
	// which would kill the process. Zero means 1,000: yaegi unwinds a panic
	// in time quadratic in the depth (3.8s at 10,000, 45ms at 1,000).
	MaxCallDepth int
	// MaxAlloc bounds the bytes one make, strings.Repeat or bytes.Repeat may
	// allocate; larger requests panic with ErrAllocLimit (a single allocation
	// beyond physical memory is a fatal error in Go). Zero means 256 MiB.
	MaxAlloc int64
	// MaxHeapGrowth stops a snippet with ErrMemoryLimit when the process heap
	// grows by more than this while it runs (polled every 10ms; process-wide,
	// so concurrent host allocations count too). Zero means 1 GiB; negative
	// disables the watch.
	MaxHeapGrowth int64
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 64 << 10
	}
	if o.RebuildEvery <= 0 {
		o.RebuildEvery = 100
	}
	if o.MaxCallDepth <= 0 {
		o.MaxCallDepth = 1000
	}
	if o.MaxAlloc <= 0 {
		o.MaxAlloc = 256 << 20
	}
	if o.MaxHeapGrowth == 0 {
		o.MaxHeapGrowth = 1 << 30
	}
	return o
}

// Var is a run variable handed to a snippet. Value holds the variable's real
// Go type (a host struct, a []Row, a *browser.Browser...); the snippet sees it
// as a plain identifier Name of that type.
type Var struct {
	Name  string
	Value reflect.Value
}

// Input is one snippet and what it can see.
type Input struct {
	// Code is the snippet: optional package clause and imports first, then
	// statements, and func and type declarations anywhere at top level. It
	// goes through [NormalizeCode] first.
	Code string
	// Vars are the run variables, visible as plain identifiers.
	Vars []Var
	// Funcs are host functions callable by name, such as actions built with
	// reflect.MakeFunc. They are not variables: they are not read back.
	Funcs map[string]reflect.Value
	// Stdout, when set, also gets what the snippet prints, as it prints it
	// (Result.Stdout still holds it, bounded): a watcher's live view. It
	// is written from the snippet's goroutine and must not block.
	Stdout io.Writer
}

// Result is what a successful Eval produced. On error only Stdout and Stderr
// are set.
type Result struct {
	Stdout, Stderr string
	// Values holds the final value of every input variable and of every new
	// top-level variable, each with its variable's type.
	Values map[string]reflect.Value
	// Created names the new top-level variables, in declaration order.
	// Variables whose type is or contains a func or chan (struct fields,
	// elements, pointers) are left out (they would only work inside this
	// interpreter); declare helpers with func declarations. So are those
	// holding a value of a snippet-declared type behind an interface
	// other than error; errors of snippet types are kept as
	// [SnippetError] values.
	Created []string
	// Assigned names input variables the snippet writes, as [Analyze]
	// defines it.
	Assigned []string
	// Unrestored is set on failure only: the variables the snippet writes
	// (as [Analyze] defines it) whose shared storage could not all be saved
	// before it ran (a channel, a func, storage behind unexported fields,
	// more than a million elements), so a change it made there may remain.
	// Every other written variable is back as it was.
	Unrestored []string
}

// Interpreter runs snippets in a yaegi interpreter restricted to an
// allow-list. It is safe for concurrent use; Evals are serialized. Imports
// and func and type declarations of successful snippets persist for later
// snippets; variables do not live here: the caller passes them in each time.
type Interpreter struct {
	opts Options

	mu          sync.Mutex
	inst        *instance
	evalVars    map[string]bool         // Eval's variable names, cleared and reused (under mu)
	evalTypes   map[string]reflect.Type // Eval's variable types, cleared and reused (under mu)
	imports     map[string]string       // alias -> path, replayed on rebuild
	importOrder []string
	decls       []declRecord
	hostPaths   map[string]bool
	hostNames   map[string]string // package name -> import path
	hostSeen    map[reflect.Type]bool
	hostSyms    Exports // the host's named types found in variables and actions, replayed on rebuild
	tc          *typeChecker
	stats       Stats
	// live are the current instance's stdout and stderr writers, which
	// the writers of replaced instances forward to.
	live [2]atomic.Pointer[switchWriter]
}

// Stats counts what an Interpreter did, for tests and monitoring.
type Stats struct {
	Evals    int // Evals run (including failed ones)
	Rebuilds int // yaegi instances created, including the first
}

type declRecord struct {
	names []string
	src   string // as the interpreter runs it
	orig  string // as written, in the snippet's layout, for the type check
}

// instance is one yaegi interpreter with its guard and writers.
type instance struct {
	yi       *yaegi.Interpreter
	g        *guard
	out, err *switchWriter
	evals    int
	imported map[string]string
	cells    map[string]reflect.Value
	declared map[string]reflect.Type
	last     map[string]reflect.Value // values read back after the last Eval
	broken   bool
	replay   bool            // persisted decls still to be replayed (after variables are set)
	generics map[string]bool // generic standard packages compiled
	streams  [2]*io.Writer   // the snippet's os.Stdout and os.Stderr
	files    [2]io.Writer    // what they are at the start of each Eval (*os.File to %T)
	stopped  bool            // an Eval was stopped: its goroutine may still run
}

const sandboxKey = "byref.local/sandbox/_byref"

// New returns an Interpreter with the allow-listed standard library and
// opts.Symbols loaded. It fails when a Symbols table is malformed.
func New(opts Options) (*Interpreter, error) {
	in := &Interpreter{
		opts:      opts.withDefaults(),
		imports:   map[string]string{},
		hostPaths: map[string]bool{},
		hostNames: map[string]string{},
		hostSeen:  map[reflect.Type]bool{},
		hostSyms:  Exports{},
	}
	for _, ex := range opts.Symbols {
		for k := range ex {
			i := strings.LastIndex(k, "/")
			if i <= 0 {
				return nil, fmt.Errorf("%w: Symbols key %q must be \"import/path/name\"", ErrInput, k)
			}
			p, name := k[:i], k[i+1:]
			in.hostPaths[p] = true
			if _, dup := in.hostNames[name]; !dup {
				in.hostNames[name] = p
			}
		}
	}
	prefetchTypes()
	in.tc = newTypeChecker()
	for _, ex := range opts.Symbols {
		in.tc.addExports(ex)
	}
	if err := in.rebuild(); err != nil {
		return nil, err
	}
	return in, nil
}

// resolvePackage is the package a name used as a qualifier refers to when
// a snippet has not imported it: a host package, an allowed one, os, or
// the host's package main.
func (in *Interpreter) resolvePackage(name string) (checkImport, bool) {
	if p, ok := in.hostNames[name]; ok {
		if p == mainPath {
			return checkImport{"main", "main"}, true
		}
		return checkImport{name, p}, true
	}
	if p, ok := stdByNameLookup(name); ok {
		return checkImport{name, p}, true
	}
	if name == "os" {
		return checkImport{"os", "os"}, true
	}
	return checkImport{}, false
}

// checkImports are the packages a snippet's check may name: its own
// imports, those it uses without importing them (when analyze has found
// them) and those of earlier snippets.
func (in *Interpreter) checkImports(prog *program) []checkImport {
	seen := map[string]bool{}
	var out []checkImport
	add := func(name, path string) {
		if name == "_" || name == "." || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, checkImport{name, path})
	}
	for _, im := range prog.src.imports {
		alias := im.Alias
		if alias == "" {
			alias = in.packageName(im.Path)
		}
		add(alias, im.Path)
	}
	for _, im := range prog.autoImps {
		add(im.Alias, im.Path)
	}
	for _, a := range in.importOrder {
		add(a, in.imports[a])
	}
	for i, im := range out {
		if im.name == mainAlias {
			out[i] = checkImport{"main", "main"}
		}
	}
	return out
}

// Stats returns counters of what the Interpreter has done.
func (in *Interpreter) Stats() Stats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.stats
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// rebuild replaces the yaegi instance and replays imports; declarations are
// replayed by the next Eval once its variables are declared.
func (in *Interpreter) rebuild() error {
	compiling.Lock() // what it imports and declares is compiled
	defer compiling.Unlock()
	g := &guard{ctx: context.Background(), maxDepth: in.opts.MaxCallDepth, maxAlloc: in.opts.MaxAlloc}
	inst := &instance{
		g: g, out: &switchWriter{}, err: &switchWriter{},
		imported: map[string]string{},
		cells:    map[string]reflect.Value{},
		declared: map[string]reflect.Type{},
		last:     map[string]reflect.Value{},
		replay:   len(in.decls) > 0,
	}
	g.quiet = func() { inst.err.set(nil) }
	inst.yi = yaegi.New(yaegi.Options{
		GoPath:               "/nonexistent",
		SourcecodeFilesystem: emptyFS{},
		Stdin:                strings.NewReader(""),
		Stdout:               inst.out,
		Stderr:               inst.err,
		Args:                 []string{"snippet"},
		Env:                  []string{},
		LazyGenerics:         true,
		NoDebugRoots:         true,
	})
	if err := inst.yi.UseShared(symbolsFor(g)); err != nil {
		return fmt.Errorf("interp: loading the standard library: %w", err)
	}
	for _, ex := range in.opts.Symbols {
		if err := inst.yi.Use(ex); err != nil {
			return fmt.Errorf("%w: Symbols: %v", ErrInput, err)
		}
	}
	if len(in.hostSyms) > 0 {
		if err := inst.yi.Use(in.hostSyms); err != nil {
			return fmt.Errorf("interp: internal: host types: %w", err)
		}
	}
	// os is the snippet's own output streams, and nothing else.
	// Each Eval starts with them as they are: a snippet that assigns
	// os.Stdout changes its own program's, not the next one's.
	inst.files = [2]io.Writer{sandboxos.NewFile(inst.out), sandboxos.NewFile(inst.err)}
	stdout, stderr := inst.files[0], inst.files[1]
	inst.streams = [2]*io.Writer{&stdout, &stderr}
	if err := inst.yi.Use(Exports{"os/os": {"Stdout": reflect.ValueOf(&stdout).Elem(), "Stderr": reflect.ValueOf(&stderr).Elem()}}); err != nil {
		return fmt.Errorf("interp: internal: %w", err)
	}
	if err := inst.yi.Use(Exports{sandboxKey: g.exports()}); err != nil {
		return err
	}
	if _, err := inst.yi.Eval(`import _byref "byref.local/sandbox"`); err != nil {
		return fmt.Errorf("interp: internal: %w", err)
	}
	if _, err := inst.yi.Eval(`var _byrefLine int`); err != nil {
		return fmt.Errorf("interp: internal: %w", err)
	}
	if err := inst.importAll(in.importOrder, in.imports); err != nil {
		return err
	}
	if old := in.inst; old != nil {
		// Values an earlier snippet made around os.Stdout write to the
		// new instance's streams; after a stop, they refuse.
		for i, w := range [2]*switchWriter{old.out, old.err} {
			if old.stopped {
				w.retire(nil, [2]string{"os.Stdout", "os.Stderr"}[i])
			} else {
				w.retire(&in.live[i], "")
			}
		}
	}
	in.live[0].Store(inst.out)
	in.live[1].Store(inst.err)
	in.inst = inst
	in.tc.reset(inst.yi.FileSet())
	in.stats.Rebuilds++
	return nil
}

// importing is importAll while no other instance compiles (compiling).
func importing(inst *instance, aliases []string, paths map[string]string) error {
	compiling.Lock()
	defer compiling.Unlock()
	return inst.importAll(aliases, paths)
}

// importAll imports the given aliases in one Eval, compiling the generic
// standard packages among them first.
func (inst *instance) importAll(aliases []string, paths map[string]string) error {
	var b strings.Builder
	for _, a := range aliases {
		if _, ok := inst.imported[a]; ok {
			continue
		}
		if err := inst.compileGeneric(paths[a]); err != nil {
			inst.broken = true
			return fmt.Errorf("interp: internal: compiling %s: %w", paths[a], err)
		}
		fmt.Fprintf(&b, "%s %q;", a, paths[a])
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := inst.yi.Eval("import (" + b.String() + ")"); err != nil {
		inst.broken = true
		return fmt.Errorf("interp: internal: importing: %w", err)
	}
	for _, a := range aliases {
		inst.imported[a] = paths[a]
	}
	return nil
}

// compileGeneric compiles the interpreted source of a generic standard
// package (cmp, maps, slices; see internal/yaegi) once per instance, after
// the ones it imports.
func (inst *instance) compileGeneric(path string) error {
	if path != "cmp" && path != "maps" && path != "slices" {
		return nil
	}
	for _, p := range []string{"cmp", path} {
		if inst.generics[p] {
			continue
		}
		if _, err := inst.yi.CompileGeneric(p); err != nil {
			return err
		}
		if inst.generics == nil {
			inst.generics = map[string]bool{}
		}
		inst.generics[p] = true
	}
	return nil
}

// Eval runs one snippet under ctx (bounded by Options.Timeout) and returns
// its output and the final values of its variables. Errors are a
// [*CompileError], [*PanicError], [*RefusedError] or [*StopError]; each
// unwraps to a sentinel of this package. A snippet that fails changes nothing
// the caller can see: Values are returned only on success, and the slice
// elements, map entries and pointees reachable from the variables it writes
// are put back as they were (except those listed in [Result.Unrestored]).
func (in *Interpreter) Eval(ctx context.Context, input Input) (Result, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stats.Evals++

	// The two maps of names and types are the Interpreter's, reused: they
	// do not outlive the Eval (nothing analyze or run returns keeps them).
	if in.evalVars == nil {
		in.evalVars = make(map[string]bool, len(input.Vars))
		in.evalTypes = make(map[string]reflect.Type, len(input.Vars))
	}
	vars, types := in.evalVars, in.evalTypes
	clear(vars)
	clear(types)
	for _, v := range input.Vars {
		if err := checkName(v.Name, vars, input.Funcs); err != nil {
			return Result{}, err
		}
		if p, ok := in.packageNamed(v.Name); ok {
			return Result{}, fmt.Errorf("%w: variable %s would hide the package %s from the snippet; rename the variable", ErrInput, v.Name, p)
		}
		if !v.Value.IsValid() {
			return Result{}, fmt.Errorf("%w: variable %s has no value (an invalid reflect.Value); pass reflect.ValueOf(x)", ErrInput, v.Name)
		}
		vars[v.Name] = true
	}
	for name, f := range input.Funcs {
		if !token.IsIdentifier(name) || strings.HasPrefix(name, "_byref") {
			return Result{}, fmt.Errorf("%w: function name %q is not a usable Go identifier", ErrInput, name)
		}
		if !f.IsValid() || f.Kind() != reflect.Func {
			return Result{}, fmt.Errorf("%w: Funcs[%q] is not a function value", ErrInput, name)
		}
	}
	in.registerHostTypes(input.Vars, input.Funcs)
	declNames := in.declNames()
	known := func(name string) bool {
		if p, ok := strings.CutPrefix(name, "pkg:"); ok {
			return in.hostPaths[p]
		}
		_, isFunc := input.Funcs[name]
		_, imported := in.imports[name]
		return isFunc || declNames[name] || imported
	}
	for _, v := range input.Vars {
		types[v.Name] = v.Value.Type()
	}
	code := NormalizeCode(input.Code)
	check := func(p *program, stmts []*ast.File) error {
		return in.tc.check(checkInput{prog: p, stmts: stmts, imports: in.checkImports(p), resolve: in.resolvePackage, vars: input.Vars, funcs: input.Funcs, decls: in.decls})
	}
	prog, err := analyze(code, vars, known, in.hostNames, types, in.inst.yi.FileSet(), check)
	if err != nil {
		return Result{}, err
	}

	// Decide on a rebuild before touching the instance.
	rebuild := in.inst == nil || in.inst.broken || in.inst.evals >= in.opts.RebuildEvery
	var newImports []string
	addImport := func(alias, path string) {
		if old, ok := in.imports[alias]; ok {
			if old == path {
				return
			}
			rebuild = true // alias now means another package
		} else {
			in.importOrder = append(in.importOrder, alias)
		}
		in.imports[alias] = path
		newImports = append(newImports, alias)
	}
	for _, im := range prog.src.imports {
		if im.Alias == "_" {
			continue
		}
		alias := im.Alias
		if alias == "" {
			alias = in.packageName(im.Path)
		}
		addImport(alias, im.Path)
	}
	for _, im := range prog.autoImps {
		addImport(im.Alias, im.Path)
	}
	if in.dropDecls(prog.decls) {
		rebuild = true
	}
	if !rebuild {
		for _, v := range input.Vars {
			if t, ok := in.inst.declared[v.Name]; ok && t != v.Value.Type() {
				rebuild = true // a retyped variable: functions compiled against the old one must go
			}
		}
	}
	if rebuild {
		if err := in.rebuild(); err != nil {
			return Result{}, err
		}
		// The statements' AST must be in the new interpreter's FileSet.
		again, err := analyze(code, vars, known, in.hostNames, types, in.inst.yi.FileSet(), func(p *program, _ []*ast.File) error {
			p.arrayLens, p.litIndexes = prog.arrayLens, prog.litIndexes // the check's, which this analysis does not repeat
			return nil
		})
		if err != nil {
			return Result{}, err
		}
		prog.bodies = again.bodies
	} else if err := importing(in.inst, newImports, in.imports); err != nil {
		return Result{}, err
	}
	snaps, unsaved := snapshots(input.Vars, prog.access.Writes)
	res, err := in.run(ctx, in.inst, prog, input, vars)
	if err != nil {
		for _, s := range snaps {
			s.restore()
		}
		res.Unrestored = unsaved
	}
	return res, err
}

// packageNamed returns the allowed or host package that an unrenamed
// import binds to name.
func (in *Interpreter) packageNamed(name string) (string, bool) {
	if p, ok := in.hostNames[name]; ok {
		return p, true
	}
	return stdByNameLookup(name)
}

// packageName is the name an unrenamed import of path binds.
func (in *Interpreter) packageName(path string) string {
	for name, p := range in.hostNames {
		if p == path {
			return name
		}
	}
	if path == "math/rand/v2" {
		return "rand"
	}
	return defaultName(path)
}

func checkName(name string, seen map[string]bool, funcs map[string]reflect.Value) error {
	switch {
	case !token.IsIdentifier(name):
		return fmt.Errorf("%w: variable name %q is not a Go identifier", ErrInput, name)
	case strings.HasPrefix(name, "_byref"):
		return fmt.Errorf("%w: variable name %q uses the reserved prefix _byref", ErrInput, name)
	case name == "_":
		return fmt.Errorf("%w: variable name _ is the blank identifier", ErrInput)
	case seen[name]:
		return fmt.Errorf("%w: variable %s is given twice", ErrInput, name)
	}
	if _, ok := funcs[name]; ok {
		return fmt.Errorf("%w: %s is both a variable and a function", ErrInput, name)
	}
	return nil
}

func (in *Interpreter) declNames() map[string]bool {
	m := map[string]bool{}
	for _, d := range in.decls {
		for _, n := range d.names {
			m[n] = true
			if i := strings.IndexByte(n, '.'); i > 0 {
				m[n[:i]] = true
			}
		}
	}
	return m
}

// dropDecls forgets persisted declarations that a new snippet redeclares
// (with the methods of a redeclared type) and reports whether any went.
func (in *Interpreter) dropDecls(newDecls [][]string) bool {
	redecl := map[string]bool{}
	for _, names := range newDecls {
		for _, n := range names {
			redecl[n] = true
		}
	}
	if len(redecl) == 0 {
		return false
	}
	kept := in.decls[:0:0]
	dropped := false
	for _, d := range in.decls {
		hit := false
		for _, n := range d.names {
			typ, _, _ := strings.Cut(n, ".")
			if redecl[n] || redecl[typ] {
				hit = true
			}
		}
		if hit {
			dropped = true
			continue
		}
		kept = append(kept, d)
	}
	in.decls = kept
	return dropped
}

// run evaluates the program's segments on inst.
func (in *Interpreter) run(parent context.Context, inst *instance, prog *program, input Input, vars map[string]bool) (Result, error) {
	outBuf := &boundedBuffer{max: in.opts.MaxOutput}
	errBuf := &boundedBuffer{max: in.opts.MaxOutput}
	panicLog := &panicLines{}
	if input.Stdout != nil {
		inst.out.set(&teeWriter{outBuf, input.Stdout})
	} else {
		inst.out.set(outBuf)
	}
	inst.err.set(&teeWriter{errBuf, panicLog})

	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	ctx, cancelT := context.WithTimeoutCause(ctx, in.opts.Timeout, ErrTimeout)
	defer cancelT()
	limit := in.opts.Timeout // the limit a timeout reports: the caller's deadline when sooner
	if d, ok := parent.Deadline(); ok && time.Until(d) < limit {
		limit = max(time.Until(d), 0).Round(time.Millisecond)
	}
	flood := int64(16 * in.opts.MaxOutput)
	outBuf.floodAt, outBuf.onFlood = flood, func() { cancel(ErrOutputLimit) }
	errBuf.floodAt, errBuf.onFlood = flood, func() { cancel(ErrOutputLimit) }
	inst.g.ctx = ctx
	inst.g.depth, inst.g.tripped = 0, false
	*inst.streams[0], *inst.streams[1] = inst.files[0], inst.files[1]
	endWatch := watchHeap(in.opts.MaxHeapGrowth, 10*time.Millisecond, func() { cancel(ErrMemoryLimit) })
	defer endWatch()
	start := time.Now()

	topLine := 0
	res := func() Result {
		return Result{Stdout: outBuf.String(), Stderr: mapPanicLines(errBuf.String(), topLine)}
	}
	setup, err := in.setup(inst, input)
	if err != nil {
		return Result{}, err
	}
	if g, ok := inst.yi.Global("_byrefLine"); ok && g.CanSet() && g.Kind() == reflect.Int {
		g.SetInt(0)
	} else {
		setup = append(setupStmts{{name: "_byrefLine"}}, setup...)
	}
	inst.evals++
	fail := func(err error) (Result, error) {
		inst.broken = true
		if ctx.Err() != nil {
			inst.stopped = true
			return res(), stopError(ctx, limit, in.opts.MaxOutput, in.opts.MaxHeapGrowth, time.Since(start))
		}
		err = in.yaegiError(err, prog, panicLog)
		var pe *PanicError
		if errors.As(err, &pe) {
			topLine = trackedLine(inst.yi)
		}
		return res(), err
	}
	segs := prog.src.segs
	// Kept errors are given back once the variables are set and the
	// earlier snippets' types declared.
	back := holdSnippetErrors(input.Vars)
	if (len(segs) == 0 || segs[0].decl || inst.replay || back) && len(setup) > 0 {
		if err := evalText(ctx, inst.yi, ";"+setup.text()); err != nil {
			return fail(err)
		}
		setup = nil
	}
	if inst.replay {
		in.replayDecls(ctx, inst)
		inst.replay = false
	}
	var givenBack map[string]bool
	if back {
		changed, undo, err := in.giveBack(ctx, inst, input.Vars)
		if err != nil {
			return fail(err)
		}
		defer undo()
		givenBack = changed
	}
	body := prog.src.body
	var declSrcs, declOrigs []string
	creates := prog.access.Creates
	// A top-level defer runs at the end of the snippet: the calls deferred
	// by a statement segment wait until the last one ends.
	lastStmts := -1
	for i, seg := range segs {
		if !seg.decl {
			lastStmts = i
		}
	}
	defer inst.yi.HoldTopDefers(false)
	for i, seg := range segs {
		inst.yi.HoldTopDefers(i < lastStmts)
		var err error
		if seg.decl {
			src := "package main\n" + prog.edits.apply(seg.text(body), seg)
			declSrcs = append(declSrcs, src)
			declOrigs = append(declOrigs, string(seg.text(body)))
			err = evalText(ctx, inst.yi, src)
		} else {
			b := prog.bodies[i]
			if len(setup) > 0 {
				b.List = setup.prepend(b.List, b.Lbrace)
				setup = nil
			}
			err = evalAST(ctx, inst.yi, b)
		}
		if err != nil {
			if n, ok := returned(err); ok && ctx.Err() == nil {
				// A top-level return: the snippet ends here, successfully;
				// variables it would have declared later are not read back.
				creates = creates[:min(n, len(creates))]
				break
			}
			return fail(err)
		}
	}
	if ctx.Err() != nil { // a stop that raced with the end of the last segment
		return fail(ctx.Err())
	}
	// A top-level variable named like a built-in (min := 5) shadows it in
	// the interpreter's global scope for good; the next snippet gets a
	// fresh instance, where the built-in is back unless a run variable
	// of that name is passed in.
	for _, c := range prog.access.Creates {
		if c == "min" || c == "max" || c == "clear" {
			inst.broken = true
		}
	}
	// Success: read back, then remember declarations.
	values, created, err := readBack(inst.yi, input.Vars, creates)
	if err != nil {
		inst.broken = true
		return res(), err
	}
	for name := range givenBack {
		// An input variable the snippet does not write is what the host
		// passed (its global holds the values given back).
		if !slices.Contains(prog.access.Writes, name) {
			for _, v := range input.Vars {
				if v.Name == name {
					values[name] = v.Value
				}
			}
		}
	}
	if created, err = in.keep(ctx, inst, values, created, prog.access.Writes, vars, prog.decls); err != nil {
		var ke keepError
		if errors.As(err, &ke) {
			_, err = fail(ke.err)
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (in the Error method of the value in %s, which runs once when the snippet ends, to keep its message)", err, ke.name)
			}
			return res(), err
		}
		inst.broken = true
		return res(), err
	}
	clear(inst.last)
	for name, v := range values {
		inst.last[name] = v
	}
	for i, src := range declSrcs {
		in.decls = append(in.decls, declRecord{names: prog.decls[i], src: src, orig: declOrigs[i]})
	}
	var assigned []string
	for _, w := range prog.access.Writes {
		if vars[w] {
			assigned = append(assigned, w)
		}
	}
	in.tc.learn(values, created)
	r := res()
	r.Values, r.Created, r.Assigned = values, created, assigned
	return r, nil
}

// returned reports whether err is the end of a snippet by a top-level return,
// and how many created variables were declared before it.
func returned(err error) (int, bool) {
	var p yaegi.Panic
	if errors.As(err, &p) {
		if r, ok := p.Value.(returnPanic); ok {
			return r.created, true
		}
	}
	return 0, false
}

// setup registers one cell per variable and function in the _byref package,
// stores the current values, and returns the assignments that copy them into
// interpreter globals: a declaration the first time, an assignment later
// only where the global's storage has another type than the variable (else
// the new value is stored into the global directly, and a value the global
// already holds is left alone).
func (in *Interpreter) setup(inst *instance, input Input) (setupStmts, error) {
	type item struct {
		name string
		val  reflect.Value
		fn   bool
	}
	items := make([]item, 0, len(input.Vars)+len(input.Funcs))
	for _, v := range input.Vars {
		items = append(items, item{v.Name, v.Value, false})
	}
	for n, f := range input.Funcs {
		items = append(items, item{n, f, true})
	}
	// slices.SortFunc: sort.Slice's reflection-based swapper was 1% of a
	// warm snippet's instructions.
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.name, b.name) })
	var fresh map[string]reflect.Value
	var out setupStmts
	for _, it := range items {
		t := it.val.Type()
		cell, ok := inst.cells[it.name]
		if !ok || cell.Type() != t {
			cell = reflect.New(t).Elem()
			inst.cells[it.name] = cell
			if fresh == nil {
				fresh = map[string]reflect.Value{}
			}
			fresh["V"+it.name] = cell
		}
		if err := setValue(cell, it.val); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInput, it.name, err)
		}
		if inst.declared[it.name] == t {
			if !it.fn && same(inst.last[it.name], it.val) {
				continue // the global already holds this value
			}
			if g, ok := inst.yi.Global(it.name); ok && g.CanSet() && g.Type() == t {
				// The global's storage has the variable's own type: store
				// the value there, as the assignment would, without
				// compiling one.
				if err := setValue(g, it.val); err != nil {
					return nil, fmt.Errorf("%w: %s: %v", ErrInput, it.name, err)
				}
				continue
			}
			out = append(out, setupStmt{name: it.name})
		} else {
			out = append(out, setupStmt{name: it.name, declare: true})
			inst.declared[it.name] = t
		}
	}
	if fresh != nil {
		if err := inst.yi.Use(Exports{sandboxKey: fresh}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setupStmt is `var name = _byref.Vname` (declare) or `name =
// _byref.Vname`; name _byrefLine resets the line marker.
type setupStmt struct {
	name    string
	declare bool
}

type setupStmts []setupStmt

// text is the statements as source, each ending in a semicolon.
func (ss setupStmts) text() string {
	var b strings.Builder
	for _, s := range ss {
		switch {
		case s.name == "_byrefLine":
			b.WriteString("_byrefLine=0;")
		case s.declare:
			b.WriteString("var " + s.name + " = _byref.V" + s.name + ";")
		default:
			b.WriteString(s.name + " = _byref.V" + s.name + ";")
		}
	}
	return b.String()
}

// prepend puts the statements before list, as AST nodes at pos (yaegi
// resolves imports by the file of a position; an error there is on the
// sandbox's line 1, which maps to no snippet line).
func (ss setupStmts) prepend(list []ast.Stmt, pos token.Pos) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(ss)+len(list))
	for _, s := range ss {
		lhs := ident(s.name, pos)
		var rhs ast.Expr = &ast.SelectorExpr{X: ident("_byref", pos), Sel: ident("V"+s.name, pos)}
		switch {
		case s.name == "_byrefLine":
			out = append(out, &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{intLit(0, pos)}})
		case s.declare:
			out = append(out, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{lhs}, Values: []ast.Expr{rhs}}}}})
		default:
			out = append(out, &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{rhs}})
		}
	}
	return append(out, list...)
}

// same reports whether b is certainly the value a holds: equal scalars and
// strings, the same pointer, map or channel, the same slice header.
func same(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return a.Equal(b)
	case reflect.Pointer, reflect.Map, reflect.Chan:
		return a.Pointer() == b.Pointer()
	case reflect.Slice:
		return a.Pointer() == b.Pointer() && a.Len() == b.Len() && a.Cap() == b.Cap()
	}
	return false
}

func setValue(cell, v reflect.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot hand the value to the interpreter: %v", r)
		}
	}()
	cell.Set(v)
	return nil
}

// evalText compiles src on the calling goroutine and runs it under ctx.
func evalText(ctx context.Context, yi *yaegi.Interpreter, src string) error {
	return execute(ctx, yi, func() (*yaegi.Program, error) { return yi.Compile(src) })
}

// evalAST compiles statements parsed in yi's FileSet on the calling
// goroutine and runs them under ctx.
func evalAST(ctx context.Context, yi *yaegi.Interpreter, body *ast.BlockStmt) error {
	return execute(ctx, yi, func() (*yaegi.Program, error) { return yi.CompileAST(body) })
}

// compiling serializes the compilers of every instance in the process. A
// compiler that builds a recursive struct type writes the type's fields
// after reflect.StructOf made it (unsafe2.SetFieldType), while another
// instance's reflect.StructOf may be reading the same type in reflect's
// cache of struct types: a data race inside yaegi that the race detector
// reports when two snippets compile at once. Running programs stays
// concurrent; a compile takes tens of microseconds.
var compiling sync.Mutex

// execute compiles on the calling goroutine (compiling cannot block, and a
// goroutine's fresh stack would grow by copying deep inside the compiler),
// then runs the program on another goroutine (yaegi's idle worker, or a new
// one), so a stop (ctx) returns at once even when the snippet is blocked in
// a host call. A panic of the
// compiler is returned as a [yaegi.Panic], as one of the snippet is.
func execute(ctx context.Context, yi *yaegi.Interpreter, compile func() (*yaegi.Program, error)) error {
	prog, err := func() (p *yaegi.Program, err error) {
		compiling.Lock()
		defer compiling.Unlock()
		defer func() {
			if r := recover(); r != nil {
				err = yaegi.Panic{Value: r, Stack: debug.Stack()}
			}
		}()
		p, err = compile()
		if err != nil {
			return nil, err
		}
		return p, yi.Generate(p)
	}()
	if err != nil {
		return err
	}
	_, err = yi.ExecuteWithContext(ctx, prog)
	return err
}

// replayDecls re-evaluates declarations of earlier snippets on a fresh
// instance; one that no longer compiles (it named a variable that is gone)
// is dropped.
func (in *Interpreter) replayDecls(ctx context.Context, inst *instance) {
	kept := in.decls[:0:0]
	for _, d := range in.decls {
		if err := evalText(ctx, inst.yi, d.src); err == nil {
			kept = append(kept, d)
		}
	}
	in.decls = kept
}

// readBack copies the final values of input and created variables out of the
// interpreter.
func readBack(yi *yaegi.Interpreter, inputs []Var, creates []string) (values map[string]reflect.Value, created []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("interp: internal: reading variables back: %v", r)
		}
	}()
	values = make(map[string]reflect.Value, len(inputs)+len(creates))
	for _, v := range inputs {
		if gv, ok := yi.Global(v.Name); ok && gv.IsValid() {
			values[v.Name] = detach(gv)
		} else {
			values[v.Name] = v.Value
		}
	}
	for _, name := range creates {
		gv, ok := yi.Global(name)
		if !ok || !gv.IsValid() {
			continue
		}
		if hasFuncOrChan(gv.Type()) {
			continue
		}
		values[name] = detach(gv)
		created = append(created, name)
	}
	return values, created, nil
}

// funcChanTypes caches hasFuncOrChan per type.
var funcChanTypes sync.Map // reflect.Type -> bool

// hasFuncOrChan reports whether t is, or contains anywhere (struct fields,
// array, slice, map and pointer elements, map keys), a func or chan type. A
// created variable of such a type holds interpreted funcs or channels that
// only work inside the interpreter, so it is not read back. Interface values
// are not looked into.
func hasFuncOrChan(t reflect.Type) bool {
	if v, ok := funcChanTypes.Load(t); ok {
		return v.(bool)
	}
	r := funcOrChan(t, map[reflect.Type]bool{})
	funcChanTypes.Store(t, r)
	return r
}

func funcOrChan(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Func, reflect.Chan:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return funcOrChan(t.Elem(), seen)
	case reflect.Map:
		return funcOrChan(t.Key(), seen) || funcOrChan(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if funcOrChan(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// detach copies a value out of the interpreter's storage, so a later snippet
// writing the same global does not change what the caller holds.
func detach(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// yaegiError turns a yaegi error into a typed error with snippet positions.
func (in *Interpreter) yaegiError(err error, prog *program, panics *panicLines) error {
	var p yaegi.Panic
	if errors.As(err, &p) {
		pe := &PanicError{Value: panicText(p.Value)}
		switch v := p.Value.(type) {
		case depthPanic:
			pe.Err = ErrCallDepth
		case allocPanic, argPanic:
			pe.Err = ErrAllocLimit
		case printPanic:
			pe.Err = ErrPrintLimit
		case stoppedPanic:
			_ = v
		}
		pe.Line = trackedLine(in.inst.yi)
		if line, ok := panics.first(); pe.Line == 0 && ok && line-1 >= 1 && line-1 <= len(prog.src.lines) && !panics.topLevel() {
			pe.Line = line - 1
		}
		return pe
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return prog.compileError(list[0].Pos.Line, list[0].Pos.Column, list[0].Msg)
	}
	if m := posRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return prog.compileError(line, col, m[3])
	}
	return &CompileError{Msg: err.Error()}
}

// trackedLine reads the line marker the instrumented top-level code keeps.
func trackedLine(yi *yaegi.Interpreter) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	if v, ok := yi.Global("_byrefLine"); ok && v.IsValid() && v.Kind() == reflect.Int {
		return int(v.Int())
	}
	return 0
}

var posRE = regexp.MustCompile(`(?s)^(?:[^:\n]*:)?(\d+):(\d+): (.*)$`)

// localRE matches the suffix of renamed locals (not the _byrefLine marker).
var localRE = regexp.MustCompile(localSuffix + `\b`)

// compileError maps a yaegi line:column to the snippet: line 1 is the
// sandbox's wrapper (the package clause, and for statements the function
// around them and the setup); columns move back over the insertions of
// declaration segments (statements are instrumented as ASTs, whose
// original nodes keep their positions).
func (p *program) compileError(line, col int, msg string) error {
	line--
	if line < 1 || line > len(p.src.lines) {
		return &CompileError{Msg: localRE.ReplaceAllString(msg, "")}
	}
	offs := lineOffsets(p.src.body)
	end := len(p.src.body)
	if line+1 < len(offs) {
		end = offs[line+1] - 1
	}
	col = p.edits.column(offs[line], end, col)
	return &CompileError{Line: line, Column: col, Source: p.src.lines[line-1], Msg: strings.ReplaceAll(localRE.ReplaceAllString(msg, ""), mainAlias+".", "main.")}
}
