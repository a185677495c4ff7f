package browser_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/browser"
	"github.com/byref/byref/interp"
)

// notForSnippets are the exported identifiers Symbols leaves out on
// purpose: snippets drive the browsers a run holds, they do not launch
// Chromium. (Nothing of actions.go is for snippets either.)
var notForSnippets = map[string]bool{
	"Start": true, "Options": true, "FindChromium": true, "InstallCommand": true,
	"DefaultExecPath": true, "DefaultTimeout": true, "SymbolsPath": true, "Symbols": true,
}

// Every exported identifier of the package is in Symbols or deliberately
// left out.
func TestSymbolsComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "actions.go" { // the actions are not for snippets
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names = append(names, sp.Name.Name)
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	syms := browser.Symbols[browser.SymbolsPath]
	for _, name := range names {
		if !ast.IsExported(name) || notForSnippets[name] {
			continue
		}
		if _, ok := syms[name]; !ok {
			t.Errorf("%s is neither in Symbols nor in notForSnippets", name)
		}
	}
	for name, v := range syms {
		if !v.IsValid() {
			t.Errorf("Symbols[%q] is not a value", name)
		}
	}
}

// A snippet names the package's types and values.
func TestSymbolsInSnippet(t *testing.T) {
	in, err := interp.New(interp.Options{Symbols: []interp.Exports{browser.Symbols}})
	if err != nil {
		t.Fatal(err)
	}
	var shot browser.Screenshot
	res, err := in.Eval(context.Background(), interp.Input{
		Code: `import "errors"
path := []browser.Point{{X: 1, Y: 2}, {X: 3, Y: 4}}
c, err := browser.MapAnthropicAction(browser.AnthropicAction{Action: "left_click", Coordinate: []int{5, 6}}, "web")
wrapped := &browser.Error{Op: "wait", Selector: "#x", Err: browser.ErrTimeout}
fmt.Println(len(path), c.Name, err, errors.Is(wrapped, browser.ErrTimeout), browser.ButtonLeft, shot.Preview(0))`,
		Vars: []interp.Var{{Name: "shot", Value: reflect.ValueOf(shot)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "2 computer_click <nil> true left not a PNG (0 bytes)\n"; res.Stdout != want {
		t.Errorf("stdout = %q, want %q", res.Stdout, want)
	}
	if p, ok := res.Values["path"].Interface().([]browser.Point); !ok || len(p) != 2 {
		t.Errorf("path = %#v", res.Values["path"])
	}
	// Errors are values: a snippet cannot replace them.
	if _, err := in.Eval(context.Background(), interp.Input{Code: `browser.ErrTimeout = nil`}); err == nil {
		t.Error("a snippet reassigned browser.ErrTimeout")
	}
	if !errors.Is(&browser.Error{Err: browser.ErrTimeout}, browser.ErrTimeout) {
		t.Error("ErrTimeout changed")
	}
}
