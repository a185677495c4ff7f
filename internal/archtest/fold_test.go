package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// runtimeFiles parses package agent's files, tests left out.
func runtimeFiles(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "agent", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("agent's files: %v", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// receiverName is the type name of fn's receiver, without its star, or "".
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	x := fn.Recv.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if g, ok := x.(*ast.IndexExpr); ok {
		x = g.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// isMessages reports whether x is a selector of the field messages, or an
// index or slice of one.
func isMessages(x ast.Expr) bool {
	for {
		switch e := x.(type) {
		case *ast.IndexExpr:
			x = e.X
		case *ast.SliceExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.SelectorExpr:
			return e.Sel.Name == "messages"
		default:
			return false
		}
	}
}

// TestOnlyTheFoldWritesTheConversation: what a run's model is sent is the
// fold of the run's log (runtime's conversation type, whose transcript
// holds the messages): the live loop and Restore both apply events with
// transcript.apply, and nothing else appends to the messages. Only the
// transcript's methods touch its messages field; among them, only apply
// writes it (and system, which fills the system prompt of a run whose log
// has none yet), with the helpers that only they call. No other runtime
// type has a messages field, so that a second list cannot grow beside the
// fold.
func TestOnlyTheFoldWritesTheConversation(t *testing.T) {
	fset, files := runtimeFiles(t)
	const owner = "transcript"
	writers := map[string]bool{}      // methods of owner that write messages
	calledBy := map[string][]string{} // a method's name → the functions calling the owner's method of that name
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name != owner {
					for _, fld := range st.Fields.List {
						for _, name := range fld.Names {
							if name.Name == "messages" {
								t.Errorf("%s: %s has a messages field; what the model is sent is the transcript's (transcript.apply)", fset.Position(name.Pos()), ts.Name.Name)
							}
						}
					}
				}
			}
			return true
		})
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			inOwner := receiverName(fn) == owner
			recv := ""
			if inOwner && len(fn.Recv.List[0].Names) > 0 {
				recv = fn.Recv.List[0].Names[0].Name
			}
			where := fn.Name.Name
			if !inOwner {
				where = receiverName(fn) + "." + where // never an allowed caller
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if x.Sel.Name == "messages" && !inOwner {
						t.Errorf("%s: %s reads or writes a messages field; only the transcript's methods may (send what conversation.sent returns)", fset.Position(x.Pos()), where)
					}
				case *ast.AssignStmt:
					for _, l := range x.Lhs {
						if isMessages(l) {
							writers[where] = true
						}
					}
				case *ast.UnaryExpr:
					if x.Op == token.AND && isMessages(x.X) {
						writers[where] = true
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "append" || id.Name == "copy") && len(x.Args) > 0 && isMessages(x.Args[0]) {
						writers[where] = true
					}
					// A call of a method of the owner: on the receiver of
					// one of its methods, or on a field named t.
					if s, ok := x.Fun.(*ast.SelectorExpr); ok {
						id, onRecv := s.X.(*ast.Ident)
						f, onField := s.X.(*ast.SelectorExpr)
						if inOwner && onRecv && id.Name == recv || onField && f.Sel.Name == "t" {
							calledBy[s.Sel.Name] = append(calledBy[s.Sel.Name], where)
						}
					}
				}
				return true
			})
		}
	}
	allowed := map[string]bool{"apply": true, "system": true}
	for changed := true; changed; {
		changed = false
		for w := range writers {
			callers := calledBy[w]
			if allowed[w] || len(callers) == 0 {
				continue
			}
			only := true
			for _, c := range callers {
				only = only && allowed[c]
			}
			if only {
				allowed[w], changed = true, true
			}
		}
	}
	var bad []string
	for w := range writers {
		if !allowed[w] {
			bad = append(bad, w)
		}
	}
	sort.Strings(bad)
	for _, w := range bad {
		t.Errorf("transcript.%s writes the messages; only apply (the fold of one logged event) may, and helpers only it calls", w)
	}
	if !writers["apply"] {
		t.Error("transcript.apply writes no messages: the rule checks nothing")
	}
}
