package interp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestNative compiles every corpus snippet that succeeds in the
// interpreter with the Go toolchain, all in one build (a package per
// snippet, one binary), runs the binary once, and compares each snippet's
// stdout and the printed values of its variables with the interpreter's.
// It skips only when there is no go command.
func TestNative(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain:", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	type snippet struct {
		name, pkg string
		file      string
		stdout    string
		stderr    string
		values    string
		dump      []string // the variables compared
	}
	var snippets []snippet
	for i, f := range corpusFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCase(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if c.hasErr {
			continue // refused or failing: nothing to compare
		}
		pkg := fmt.Sprintf("s%03d", i)
		in, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		var sent []string
		vars, funcs := shopVars(), shopFuncs(&sent)
		res, evalErr := in.Eval(context.Background(), Input{Code: c.code, Vars: vars, Funcs: funcs})
		if evalErr != nil {
			res.Stdout += "error: " + evalErr.Error() + "\n"
		}
		src, err := nativeSource(in, pkg, NormalizeCode(c.code), vars, funcs)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, "snippet.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		s := snippet{name: name, pkg: pkg, file: f, stdout: res.Stdout, stderr: res.Stderr}
		if len(sent) > 0 {
			s.stdout += "[sent] " + strings.Join(sent, "; ") + "\n"
		}
		for n := range res.Values {
			s.dump = append(s.dump, n)
		}
		sort.Strings(s.dump)
		var b strings.Builder
		for _, n := range s.dump {
			fmt.Fprintf(&b, "%s=%s\n", n, dumpValue(res.Values[n].Interface()))
		}
		s.values = b.String()
		snippets = append(snippets, s)
	}

	// main runs every snippet in turn, each after a marker line, and
	// prints the values of the variables the interpreter returned.
	var m bytes.Buffer
	m.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n\n\t\"github.com/byref/byref/codegen/codegentest/shop\"\n")
	for _, s := range snippets {
		fmt.Fprintf(&m, "\t%q\n", nativeModule+"/"+s.pkg)
	}
	m.WriteString("\n\t\"context\"\n\t\"reflect\"\n\n\t\"github.com/byref/byref/interp\"\n\t\"github.com/byref/byref/variable\"\n")
	m.WriteString(")\n\nfunc main() {\n\thostMain()\n")
	for _, s := range snippets {
		fmt.Fprintf(&m, "\tfmt.Print(\"\\x1e%s\\n\")\n\trun(%s.Init, %s.Run, %s.Vars, %#v)\n", s.name, s.pkg, s.pkg, s.pkg, s.dump)
	}
	m.WriteString(`}

func run(initf func([]shop.Variable, map[string]any), runf func(), vars func() map[string]any, dump []string) {
	var sent []string
	initf(shop.Variables(), shop.Actions(&sent))
	func() {
		defer func() {
			if r := recover(); r != nil {
				fmt.Printf("panic: %v\n", r)
			}
		}()
		runf()
	}()
	if len(sent) > 0 {
		fmt.Println("[sent] " + strings.Join(sent, "; "))
	}
	fmt.Print("\x1f\n")
	fmt.Fprint(os.Stderr, "\x1e")
	v := vars()
	for _, n := range dump {
		fmt.Printf("%s=%s\n", n, dumpValue(v[n]))
	}
}
` + dumpValueSource + hostMainSource)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", m.String())
	write("go.mod", "module "+nativeModule+"\n\ngo 1.26.0\n")
	write("go.work", "go 1.26.0\n\nuse (\n\t.\n\t"+root+"\n)\n")
	bin := filepath.Join(dir, "snippets")
	build := exec.Command(goCmd, "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the corpus: %v\n%s", err, out)
	}
	var errOut bytes.Buffer
	run := exec.Command(bin)
	run.Stderr = &errOut
	out, err := run.Output()
	if err != nil {
		t.Fatalf("running the compiled corpus: %v\n%s\n%s", err, out, errOut.Bytes())
	}
	stderrs := strings.Split(errOut.String(), "\x1e")
	parts := strings.Split(string(out), "\x1e")[1:]
	if len(parts) == 0 || parts[0] != hostMainWant {
		t.Errorf("the host's package main in a snippet:\n%s\nwant:\n%s", parts[0], hostMainWant)
	}
	parts = parts[1:]
	if len(parts) != len(snippets) {
		t.Fatalf("%d outputs for %d snippets", len(parts), len(snippets))
	}
	agree := 0
	for i, s := range snippets {
		head, rest, _ := strings.Cut(parts[i], "\n")
		stdout, values, _ := strings.Cut(rest, "\x1f\n")
		if head != s.name {
			t.Fatalf("output %d is of %s, want %s", i, head, s.name)
		}
		stderr := ""
		if i < len(stderrs) {
			stderr = stderrs[i]
		}
		same := stdout == s.stdout && values == s.values && stderr == s.stderr
		why, known := knownFailing[s.name]
		if known && *updateNative && !same {
			data, err := os.ReadFile(s.file)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCase(s.name, data)
			if err != nil {
				t.Fatal(err)
			}
			c.stdout = stdout
			if err := os.WriteFile(s.file, c.format(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case same && known:
			t.Errorf("%s now agrees with compiled Go; remove it from knownFailing (%s)", s.name, why)
		case same:
			agree++
		case known:
			t.Logf("%s: known to differ: %s", s.name, why)
		default:
			t.Errorf("%s differs from compiled Go:\n%s%s%s", s.name, lineDiff("stdout", stdout, s.stdout), lineDiff("stderr", stderr, s.stderr), lineDiff("variables", values, s.values))
		}
	}
	t.Logf("%d of %d snippets agree with compiled Go; %d known to differ", agree, len(snippets), len(knownFailing))
}

var updateNative = flag.Bool("update-native", false, "write compiled Go's stdout into the corpus files of knownFailing snippets")

// nativeModule is the module of the generated program: under interp, so
// it may import interp/internal/shop.
const nativeModule = "github.com/byref/byref/interp/internal/native"

// nativeSource is a snippet as a package of compiled Go: the run's
// variables, the actions and the snippet's top-level variables at package
// level (their types from the type check), its declarations as they are,
// and its statements in Run, where each top-level declaration becomes an
// assignment.
func nativeSource(in *Interpreter, pkg, code string, vars []Var, funcs map[string]reflect.Value) ([]byte, error) {
	// The snippet as Go sees it, without the sandbox's rewrites: its
	// parts, and the packages it names.
	src, _ := splitSource(code)
	prog := &program{src: src}
	for name, p := range stdByName {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(code) {
			prog.autoImps = append(prog.autoImps, importSpec{Alias: name, Path: p})
		}
	}
	if regexp.MustCompile(`\bos\.`).MatchString(code) {
		prog.autoImps = append(prog.autoImps, importSpec{Alias: "os", Path: "os"})
	}
	defs := map[string]types.Type{}
	if err := in.tc.checkFiles(checkInput{prog: prog, imports: in.checkImports(prog), vars: vars, funcs: funcs, defs: defs}); err != nil {
		return nil, fmt.Errorf("type check: %w", err)
	}
	imports := map[string]string{} // path -> name ("" for the default)
	for _, im := range prog.src.imports {
		if im.Named {
			imports[im.Path] = im.Alias
		} else {
			imports[im.Path] = ""
		}
	}
	for _, im := range prog.autoImps {
		if _, explicit := imports[im.Path]; !explicit {
			imports[im.Path] = ""
		}
	}
	hostPkgs := map[string]string{}
	for name, p := range in.hostNames {
		hostPkgs[p] = name
	}
	for p := range imports {
		if _, host := hostPkgs[p]; host {
			delete(imports, p) // the shop package, imported below
		}
	}
	imports["github.com/byref/byref/codegen/codegentest/shop"] = ""
	imports["time"] = ""
	qual := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		if _, ok := imports[p.Path()]; !ok {
			imports[p.Path()] = ""
		}
		return p.Name()
	}

	var b bytes.Buffer
	var decls bytes.Buffer
	fmt.Fprintf(&decls, "var (\n")
	for _, v := range vars {
		fmt.Fprintf(&decls, "\t%s %s\n", v.Name, v.Value.Type())
	}
	fnames := slices.Sorted(func(yield func(string) bool) {
		for n := range funcs {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range fnames {
		fmt.Fprintf(&decls, "\t%s %s\n", n, funcs[n].Type())
	}
	hoisted := slices.Sorted(func(yield func(string) bool) {
		for n := range defs {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range hoisted {
		fmt.Fprintf(&decls, "\t%s %s\n", n, types.TypeString(defs[n], qual))
	}
	decls.WriteString(")\n\n")

	// Init, Vars
	decls.WriteString("func Init(vars []shop.Variable, actions map[string]any) {\n")
	for i, v := range vars {
		fmt.Fprintf(&decls, "\t%s = vars[%d].Value.(%s)\n", v.Name, i, v.Value.Type())
	}
	for _, n := range fnames {
		fmt.Fprintf(&decls, "\t%s = actions[%q].(%s)\n", n, n, funcs[n].Type())
	}
	decls.WriteString("}\n\nfunc Vars() map[string]any {\n\treturn map[string]any{\n")
	for _, v := range vars {
		fmt.Fprintf(&decls, "\t\t%q: %s,\n", v.Name, v.Name)
	}
	for _, n := range hoisted {
		fmt.Fprintf(&decls, "\t\t%q: %s,\n", n, n)
	}
	decls.WriteString("\t}\n}\n\n")

	// The snippet's declarations, then its statements in Run.
	var body bytes.Buffer
	fset := token.NewFileSet()
	for _, seg := range prog.src.segs {
		text := string(seg.text(prog.src.body))
		if seg.decl {
			decls.WriteString(strings.TrimSpace(text) + "\n\n")
			continue
		}
		f, err := parser.ParseFile(fset, "", "package p;func _(){\n"+text+"\n}", 0)
		if err != nil {
			return nil, err
		}
		fd := f.Decls[0].(*ast.FuncDecl)
		for _, st := range fd.Body.List {
			switch s := st.(type) {
			case *ast.AssignStmt:
				if s.Tok == token.DEFINE {
					s.Tok = token.ASSIGN
				}
			case *ast.DeclStmt:
				gd := s.Decl.(*ast.GenDecl)
				if gd.Tok == token.CONST || gd.Tok == token.TYPE {
					printer.Fprint(&decls, fset, gd)
					decls.WriteString("\n\n")
					continue
				}
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					if len(vs.Values) == 0 {
						continue
					}
					var lhs []ast.Expr
					for _, id := range vs.Names {
						lhs = append(lhs, id)
					}
					printer.Fprint(&body, fset, &ast.AssignStmt{Lhs: lhs, Tok: token.ASSIGN, Rhs: vs.Values})
					body.WriteString("\n")
				}
				continue
			}
			printer.Fprint(&body, fset, st)
			body.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "package %s\n\nimport (\n", pkg)
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range imports {
			if !yield(p) {
				return
			}
		}
	}) {
		if name := imports[p]; name != "" {
			fmt.Fprintf(&b, "\t%s %s\n", name, strconv.Quote(p))
		} else {
			fmt.Fprintf(&b, "\t%s\n", strconv.Quote(p))
		}
	}
	b.WriteString(")\n\n")
	b.Write(decls.Bytes())
	b.WriteString("func Run() {\n")
	b.Write(body.Bytes())
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// lineDiff shows the lines of compiled and interpreted output that differ.
func lineDiff(what, compiled, interpreted string) string {
	if compiled == interpreted {
		return ""
	}
	c, i := strings.Split(compiled, "\n"), strings.Split(interpreted, "\n")
	var b strings.Builder
	for n := range max(len(c), len(i)) {
		var cl, il string
		if n < len(c) {
			cl = c[n]
		}
		if n < len(i) {
			il = i[n]
		}
		if cl != il {
			fmt.Fprintf(&b, "%s line %d:\n\tcompiled:    %q\n\tinterpreted: %q\n", what, n+1, cl, il)
		}
	}
	return b.String()
}

// dumpValueSource is dumpValue, for the generated program.
const dumpValueSource = `
func dumpValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
`

// dumpValue prints a variable's value for the comparison: its data as
// JSON (exported fields, no pointers' addresses, no String methods, which
// a value read back from the interpreter does not carry), else %+v.
func dumpValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// hostMainSource checks, in the generated program, that a type of the
// host's package main is written in a snippet as the prompt shows it
// (variable.TypeName), with its fields and methods, with no symbol table.
const hostMainSource = `
type Note struct {
	Text string
	N    int
}

func (n Note) Twice() int { return 2 * n.N }

func hostMain() {
	in, err := interp.New(interp.Options{})
	if err != nil {
		panic(err)
	}
	notes := []Note{{"a", 1}}
	vars := []interp.Var{{Name: "notes", Value: reflect.ValueOf(notes)}}
	fmt.Print("\x1ehost main\n")
	fmt.Println("prompt:", variable.TypeName(reflect.TypeOf(notes)))
	res, err := in.Eval(context.Background(), interp.Input{Vars: vars, Code: "extra := []main.Note{{Text: \"b\", N: 2}}\nall := append(notes, extra...)\nfunc label(n main.Note) string { return fmt.Sprint(n.Text, \"=\", n.Twice()) }\nfor _, n := range all {\n\tfmt.Println(label(n))\n}"})
	fmt.Print(res.Stdout)
	if err != nil {
		fmt.Println(err)
	} else {
		fmt.Println("all:", res.Values["all"].Type())
	}
	_, err = in.Eval(context.Background(), interp.Input{Vars: vars, Code: "var n main.Note = 3"})
	fmt.Println(err)
}
`

const hostMainWant = `host main
prompt: []main.Note
a=2
b=4
all: []main.Note
snippet:1:19: cannot use 3 (untyped int constant) as main.Note value in variable declaration
	var n main.Note = 3
`
