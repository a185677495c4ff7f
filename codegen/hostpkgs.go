package codegen

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The host's packages are named in the prompt and in snippets by
// variable.PackageQualifier: a second package named model is model2, a
// host package named time is time2. A snippet's code is copied into the
// replay as written, so the replay imports each host package a snippet
// names under the snippet's name (model2 "example.com/b/model").
// Recording.Packages holds those names; FromEvents reads them from the
// variables' events, which carry each variable's type both as the model
// saw it (model2.User) and in the log's form (example.com/b/model.User),
// and from the actions' identities (run.GoAction's Shown and Type).

// alignPackages adds to into the host package names that the shown form
// of a type uses for the import paths of its logged form.
func alignPackages(shown, logged string, into map[string]string) {
	if shown == "" || logged == "" || shown == logged {
		return
	}
	s, err := parseType(shown)
	if err != nil {
		return
	}
	l, err := parseType(logged)
	if err != nil {
		return
	}
	alignTypes(s, l, into, 0)
}

func alignTypes(s, l *gotype, into map[string]string, depth int) {
	if s == nil || l == nil || s.kind != l.kind || depth > 16 {
		return
	}
	switch s.kind {
	case kNamed:
		if s.path == "main" || l.path == "main" || s.path == l.path || !qualifierLike(s.path) || !validPath(l.path) {
			return
		}
		if _, taken := into[s.path]; !taken {
			into[s.path] = l.path
		}
	case kPointer, kSlice, kArray, kChan:
		alignTypes(s.elem, l.elem, into, depth+1)
	case kMap:
		alignTypes(s.key, l.key, into, depth+1)
		alignTypes(s.elem, l.elem, into, depth+1)
	case kFunc:
		for i := range min(len(s.in), len(l.in)) {
			alignTypes(s.in[i], l.in[i], into, depth+1)
		}
		for i := range min(len(s.out), len(l.out)) {
			alignTypes(s.out[i], l.out[i], into, depth+1)
		}
	case kStruct:
		for i := range min(len(s.fields), len(l.fields)) {
			alignTypes(s.fields[i].typ, l.fields[i].typ, into, depth+1)
		}
	}
}

// qualifierLike reports whether s can be a package name a snippet writes.
func qualifierLike(s string) bool {
	return s != "" && s != "_" && !strings.ContainsAny(s, "/.") && isIdent(s)
}

func isIdent(s string) bool {
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// hostPaths are the import paths of the host packages the recording
// knows of: those of its variables' types and of the named types it
// describes (which include the actions' parameters and results).
func (g *gen) hostPaths() []string {
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && p != "main" && strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			seen[p] = true
		}
	}
	for name := range g.rec.Types {
		if t, err := parseType(name); err == nil && t.kind == kNamed {
			add(t.path)
		}
	}
	var walk func(t *gotype, depth int)
	walk = func(t *gotype, depth int) {
		if t == nil || depth > 16 {
			return
		}
		switch t.kind {
		case kNamed:
			add(t.path)
		case kPointer, kSlice, kArray, kChan:
			walk(t.elem, depth+1)
		case kMap:
			walk(t.key, depth+1)
			walk(t.elem, depth+1)
		case kFunc:
			for _, p := range append(slices.Clone(t.in), t.out...) {
				walk(p, depth+1)
			}
		case kStruct:
			for _, f := range t.fields {
				walk(f.typ, depth+1)
			}
		}
	}
	for _, t := range g.vtypes {
		walk(t, 0)
	}
	for _, a := range g.rec.Actions {
		if t, err := parseType(a.Type); err == nil {
			walk(t, 0)
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for p := range seen {
			if !yield(p) {
				return
			}
		}
	})
}

// hostImport returns the import path of the host package a snippet names
// q, or "" when q names none the recording knows of. The recording's
// Packages decide; failing that (a log written before they were recorded,
// or a package no variable's type shows), the one host package whose name
// q is (model) or numbers (model2, time2), among those Packages does not
// name otherwise. When several could be meant, it returns them.
func (g *gen) hostImport(q string) (string, []string, error) {
	if p, ok := g.rec.Packages[q]; ok {
		if !validPath(p) {
			return "", nil, fmt.Errorf("%w: Recording.Packages[%q] = %q is not an import path", ErrGenerate, q, p)
		}
		return p, nil, nil
	}
	base := strings.TrimRightFunc(q, unicode.IsDigit)
	if base == "" {
		return "", nil, nil
	}
	if base != q {
		if n, err := strconv.Atoi(q[len(base):]); err != nil || n < 2 {
			return "", nil, nil
		}
	}
	named := map[string]bool{} // paths Packages gives another name
	for _, p := range g.rec.Packages {
		named[p] = true
	}
	var cands []string
	for _, p := range g.hostPaths() {
		if defaultName(p) == base && !named[p] {
			cands = append(cands, p)
		}
	}
	if len(cands) == 1 {
		return cands[0], nil, nil
	}
	if len(cands) > 1 {
		return "", cands, nil
	}
	return "", nil, nil
}

// addHostImports adds to a snippet's imports the host packages it names
// as qualifiers (model2.User): every qualifier that is neither imported
// nor a name of the run (a variable, an action) or of the snippet.
func (g *gen) addHostImports(step int, p *parsedSnippet, vars map[string]reflect.Type) error {
	var unknown, among []string // qualifiers several packages could be, and those packages
	imported := map[string]bool{}
	for _, im := range p.imports {
		imported[im.Name] = true
	}
	for _, q := range slices.Sorted(maps.Keys(p.qualifiers)) {
		_, isVar := vars[q]
		_, isAction := g.rec.Actions[q]
		if imported[q] || isVar || isAction || q == "main" || slices.Contains(p.defined, q) || slices.Contains(p.declNames, q) {
			continue
		}
		path, cands, err := g.hostImport(q)
		if err != nil {
			return err
		}
		if len(cands) > 0 {
			unknown = append(unknown, q)
			for _, c := range cands {
				if !slices.Contains(among, c) {
					among = append(among, c)
				}
			}
			continue
		}
		if path == "" {
			continue
		}
		if why := unimportable(path); why != "" {
			return fmt.Errorf("%w: step %d names package %s (%s), which replay code cannot import: %s", ErrGenerate, step, q, path, why)
		}
		p.imports = append(p.imports, snippetImport{Name: q, Path: path})
	}
	if len(unknown) > 0 {
		slices.Sort(among)
		flags := make([]string, len(unknown))
		for i, q := range unknown {
			flags[i] = "--package " + q + "=IMPORTPATH"
		}
		return fmt.Errorf("%w: step %d names the host packages %s, and the log does not record which of %s each is; say it with Recording.Packages[%q] (byref replay %s)", ErrGenerate, step, strings.Join(unknown, ", "), strings.Join(among, ", "), unknown[0], strings.Join(flags, " "))
	}
	return nil
}
