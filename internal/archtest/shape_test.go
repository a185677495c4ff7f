package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sources parses the non-test Go files of the package in dir (relative to
// the module's root).
func sources(t *testing.T, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if ast.IsGenerated(f) {
			continue
		}
		files[filepath.Base(p)] = f
	}
	return fset, files
}

// maxFuncLines is the longest a function of runtime or codegen may be.
const maxFuncLines = 100

// TestNoLongFunctions: no function of runtime or codegen is over
// maxFuncLines lines.
func TestNoLongFunctions(t *testing.T) {
	for _, dir := range []string{"agent", "codegen"} {
		fset, files := sources(t, dir)
		for name, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				if n > maxFuncLines {
					t.Errorf("%s/%s %s is %d lines; split it into named steps (at most %d)", dir, name, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}

// useGraph is which file of a package uses which: file A uses file B when
// A names an identifier that B alone declares at package level: a
// function, type, variable or constant by its bare name, a method through
// a selector (x.Method). Ambiguous names are left out: names declared in
// more than one file (methods such as String), and selectors whose name is
// also a field of a struct of the package (x.ID may be a field of a tool
// call as well as Handle.ID; without types the two cannot be told apart).
// So are the blank identifier (var _ I = ...) and the names of imported
// packages.
func useGraph(files map[string]*ast.File) map[string][]string {
	plain, methods := map[string][]string{}, map[string][]string{}
	fields := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						fields[id.Name] = true
					}
				}
			}
			return true
		})
	}
	for name, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[d.Name.Name] = append(methods[d.Name.Name], name)
				} else {
					plain[d.Name.Name] = append(plain[d.Name.Name], name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						plain[s.Name.Name] = append(plain[s.Name.Name], name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								plain[n.Name] = append(plain[n.Name], name)
							}
						}
					}
				}
			}
		}
	}
	uses := map[string][]string{}
	for name, f := range files {
		imported := map[string]bool{}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			imported[p[strings.LastIndex(p, "/")+1:]] = true
			if im.Name != nil {
				imported[im.Name.Name] = true
			}
		}
		seen := map[string]bool{}
		use := func(in []string) {
			if len(in) == 1 && in[0] != name && !seen[in[0]] {
				seen[in[0]] = true
				uses[name] = append(uses[name], in[0])
			}
		}
		sels := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				sels[n.Sel] = true
				if x, ok := n.X.(*ast.Ident); (!ok || !imported[x.Name]) && !fields[n.Sel.Name] {
					use(methods[n.Sel.Name])
				}
			case *ast.Ident:
				if !sels[n] && !imported[n.Name] {
					use(plain[n.Name])
				}
			}
			return true
		})
		sort.Strings(uses[name])
	}
	return uses
}

// againstLayering counts the uses between files that run against the
// layering: the files are put in layers (each above what it uses, as far
// as the cycles allow), and a use counts when it runs back up, from a file
// to one placed above it: there, the used file also uses the user, directly
// or through others. The layering is Eades, Lin and Smyth's greedy order
// (take sinks to the bottom and sources to the top; else the file that uses
// the most more than it is used), ties broken by name, so the count is the
// same on every machine.
func againstLayering(uses map[string][]string) (against, all int, back []string) {
	nodes := map[string]bool{}
	out, in := map[string]map[string]bool{}, map[string]map[string]bool{}
	add := func(n string) {
		if !nodes[n] {
			nodes[n], out[n], in[n] = true, map[string]bool{}, map[string]bool{}
		}
	}
	for a, bs := range uses {
		add(a)
		for _, b := range bs {
			add(b)
			out[a][b], in[b][a] = true, true
			all++
		}
	}
	remove := func(n string) {
		for m := range out[n] {
			delete(in[m], n)
		}
		for m := range in[n] {
			delete(out[m], n)
		}
		delete(nodes, n)
	}
	sorted := func() []string {
		var ns []string
		for n := range nodes {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		return ns
	}
	var top, bottom []string // top: users first; bottom: built from the ground up
	for len(nodes) > 0 {
		moved := true
		for moved {
			moved = false
			for _, n := range sorted() {
				if len(out[n]) == 0 { // uses nothing left: to the ground
					bottom = append(bottom, n)
					remove(n)
					moved = true
				} else if len(in[n]) == 0 { // used by nothing left: to the top
					top = append(top, n)
					remove(n)
					moved = true
				}
			}
		}
		if len(nodes) == 0 {
			break
		}
		best, score := "", 0
		for _, n := range sorted() {
			if d := len(out[n]) - len(in[n]); best == "" || d > score {
				best, score = n, d
			}
		}
		top = append(top, best)
		remove(best)
	}
	slices.Reverse(bottom)
	pos := map[string]int{}
	for i, n := range append(top, bottom...) {
		pos[n] = i
	}
	for a, bs := range uses {
		for _, b := range bs {
			if pos[b] < pos[a] { // a uses a file placed above it
				against++
				back = append(back, a+" -> "+b)
			}
		}
	}
	slices.Sort(back)
	return against, all, back
}

// maxAgainstLayering is the most uses between agent's files that may run
// against the layering (see againstLayering); it only comes down.
const maxAgainstLayering = 11

// TestRuntimeLayering counts the uses between agent's files that run
// against the layering, and fails when they pass maxAgainstLayering. Run
// it with -v to see the count and the uses:
//
//	go test ./internal/archtest -run TestRuntimeLayering -v
func TestRuntimeLayering(t *testing.T) {
	_, files := sources(t, "agent")
	against, all, cycles := againstLayering(useGraph(files))
	t.Logf("agent: %d of %d uses between files run against the layering", against, all)
	for _, c := range cycles {
		t.Log("  " + c)
	}
	if against > maxAgainstLayering {
		t.Errorf("%d uses between agent's files run against the layering; at most %d", against, maxAgainstLayering)
	}
}

// TestStepsAreRecordedBehindStepLog: a step is recorded in one way,
// whether or not its State has a run. The State's executor.execute is the
// only caller of logStep, which hands the step to the State's stepLog; a run's stepLog
// (runLog.step) is the only caller of stepEvents, which makes the log's
// records of a step: the run's loop does not record a step's results
// itself.
func TestStepsAreRecordedBehindStepLog(t *testing.T) {
	_, files := sources(t, "agent")
	only := map[string]string{"logStep": "executor.execute", "stepEvents": "runLog.step"}
	for name, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			in := fd.Name.Name
			if fd.Recv != nil {
				rt := fd.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					in = id.Name + "." + in
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if want, ok := only[sel.Sel.Name]; ok && in != want {
					t.Errorf("agent/%s: %s calls %s; only %s may: a step is recorded through the State's stepLog", name, in, sel.Sel.Name, want)
				}
				return true
			})
		}
	}
}
