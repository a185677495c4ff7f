package interp

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strings"
)

// orderInits initialises a snippet's top-level var and const declarations
// in dependency order, as Go initialises package-level variables: a
// declaration whose values use a variable or constant declared by a later
// top-level var or const (directly, or through the funcs and types it
// names) has that declaration moved to just before it, each in its own
// statement segment, after the ones it needs in turn, in the order Go
// would initialise them. Nothing else moves: statements keep their order,
// and a declaration that cannot move (it needs a name that x := ... or
// another statement declares between the two, or a top-level return lies
// between them) stays, for the type check to report the use ("undefined").
//
// The dependencies are found syntactically, before the type check: the
// names a declaration uses and does not declare itself, and the names the
// funcs and types it uses use in turn. Method values (x.M) are not
// followed.
func orderInits(body string, segs []segment) []segment {
	if !strings.Contains(body, "var") && !strings.Contains(body, "const") || !forwardUse(body) {
		return segs
	}
	return moveInits(body, segs)
}

// moveInits is orderInits without the scan that tells it has nothing to
// do.
func moveInits(body string, segs []segment) []segment {
	type item struct {
		seg        int
		start, end int       // offsets into body
		gaps       []segment // the other specs of its var (...) group, left out
		group      int       // the first item of its var (...) group, -1 outside one
		movable    bool      // a var or const declaration, or a spec of a var group
		names      []string  // the names it declares
		uses       []string  // the names it uses and does not declare itself (movable only)
		ret        bool      // holds a top-level return
	}
	var items []item
	declUses := map[string][]string{} // func or type name -> the names its declaration uses
	for si, sg := range segs {
		if sg.decl {
			if declNameUses(body, sg, declUses) == nil {
				return segs
			}
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", stmtPrefix+string(sg.text(body))+"\n}", 0)
		if err != nil || len(f.Decls) != 1 {
			return segs
		}
		off := func(p token.Pos) int { return fset.Position(p).Offset - len(stmtPrefix) }
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			list := []ast.Stmt{st}
			it := item{seg: si, start: off(st.Pos()), end: off(st.End()), group: -1, names: topNames(list), ret: topReturn(list)}
			var gd *ast.GenDecl
			if ds, ok := st.(*ast.DeclStmt); ok {
				gd, _ = ds.Decl.(*ast.GenDecl)
			}
			switch {
			case gd != nil && gd.Tok == token.VAR && gd.Lparen.IsValid() && len(gd.Specs) > 1:
				// Each spec of a var group is an item of its own: the
				// group with the other specs left out (a const group
				// stays whole: its iota counts its specs).
				first := len(items)
				for _, sp := range gd.Specs {
					spec := it
					spec.group, spec.movable, spec.names = first, true, nil
					for _, id := range sp.(*ast.ValueSpec).Names {
						spec.names = append(spec.names, id.Name)
					}
					spec.uses = outerNames(sp)
					for _, o := range gd.Specs {
						if o != sp {
							spec.gaps = append(spec.gaps, segment{start: off(o.Pos()), end: specEnd(body, off(o.End()))})
						}
					}
					items = append(items, spec)
				}
				continue
			case gd != nil && (gd.Tok == token.VAR || gd.Tok == token.CONST):
				it.movable = true
				it.uses = outerNames(st)
			}
			items = append(items, it)
		}
	}
	declAt := map[string]int{} // top-level name -> the first item declaring it
	for i, it := range items {
		for _, n := range it.names {
			if _, ok := declAt[n]; !ok {
				declAt[n] = i
			}
		}
	}
	// needs are the items a movable item needs initialised first, in
	// declaration order: those that declare what it uses, directly or
	// through the funcs and types it uses (all), and those it needs
	// through a func or type (via). A spec of a var group that needs
	// another of its group through a func is made after it, in a segment
	// of its own, as the func is declared after the variables it uses
	// (hoistDecls).
	type need struct{ all, via []int }
	memo := map[int]need{}
	needs := func(i int) need {
		if nd, ok := memo[i]; ok {
			return nd
		}
		var nd need
		seen := map[string]bool{}
		var walk func(names []string)
		walk = func(names []string) {
			for _, n := range names {
				if seen[n] {
					continue
				}
				seen[n] = true
				if k, ok := declAt[n]; ok && k != i {
					nd.via = append(nd.via, k)
				}
				walk(declUses[n])
			}
		}
		for _, n := range items[i].uses {
			if k, ok := declAt[n]; ok && k != i {
				nd.all = append(nd.all, k)
			}
			walk(declUses[n])
		}
		nd.all = append(nd.all, nd.via...)
		slices.Sort(nd.all)
		nd.all = slices.Compact(nd.all)
		memo[i] = nd
		return nd
	}

	before := map[int][]int{} // item -> the items moved to just before it
	moved := map[int]bool{}
	for j, it := range items {
		if !it.movable || moved[j] {
			continue
		}
		var order []int
		placed := map[int]bool{}
		visiting := map[int]bool{j: true}
		// place puts the items i needs that come after j into order,
		// each after what it needs; false when one cannot move.
		var place func(i int) bool
		place = func(i int) bool {
			for _, k := range needs(i).all {
				if k < j || moved[k] || placed[k] {
					continue
				}
				if visiting[k] || !items[k].movable || slices.ContainsFunc(items[j:k], func(x item) bool { return x.ret }) {
					return false // a cycle, a statement, or past a return
				}
				visiting[k] = true
				if !place(k) {
					return false
				}
				placed[k] = true
				order = append(order, k)
			}
			return true
		}
		if place(j) && len(order) > 0 {
			before[j] = order
			for _, k := range order {
				moved[k] = true
			}
		}
	}
	if len(before) == 0 && !slices.ContainsFunc(items, func(it item) bool { return it.group >= 0 }) {
		return segs
	}

	out := make([]segment, 0, len(segs)+3*len(moved))
	k := 0
	for si, sg := range segs {
		if sg.decl {
			out = append(out, sg)
			continue
		}
		cut := sg.start
		flush := func(to int) {
			if strings.Trim(body[cut:to], " \t\r\n;") != "" {
				out = append(out, segment{start: cut, end: to, gaps: sg.gaps})
			}
		}
		for ; k < len(items) && items[k].seg == si; k++ {
			it := items[k]
			if it.group >= 0 {
				// A var group: its specs, as segments of their own once
				// one of them moves, has another moved before it, or
				// needs another of the group through a func.
				last := k
				for last+1 < len(items) && items[last+1].group == it.group {
					last++
				}
				changed := false
				for x := k; x <= last; x++ {
					changed = changed || moved[x] || len(before[x]) > 0 ||
						slices.ContainsFunc(needs(x).via, func(y int) bool { return y >= k && y <= last })
				}
				if changed {
					flush(it.start)
					for x := k; x <= last; x++ {
						if moved[x] {
							continue
						}
						for _, w := range before[x] {
							out = append(out, segment{start: items[w].start, end: items[w].end, gaps: items[w].gaps})
						}
						out = append(out, segment{start: it.start, end: it.end, gaps: items[x].gaps})
					}
					cut = it.end
				}
				k = last
				continue
			}
			switch {
			case moved[k]:
				flush(it.start)
				cut = it.end
			case len(before[k]) > 0:
				flush(it.start)
				cut = it.start
				for _, w := range before[k] {
					out = append(out, segment{start: items[w].start, end: items[w].end, gaps: items[w].gaps})
				}
			}
		}
		flush(sg.end)
	}
	return out
}

// declNameUses parses the declaration segment sg and records, for each
// func and type it declares, the names the segment uses and does not
// declare; it returns those names (not nil), or nil when sg does not
// parse.
func declNameUses(body string, sg segment, into map[string][]string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", declPrefix+string(sg.text(body)), 0)
	if err != nil {
		return nil
	}
	uses := make([]string, 0, len(f.Unresolved))
	for _, id := range f.Unresolved {
		uses = append(uses, id.Name)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				into[d.Name.Name] = uses
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					into[ts.Name.Name] = uses
				}
			}
		}
	}
	return uses
}

// outerNames are the names st (a statement or a spec of one) uses that it
// does not declare itself: each identifier the parser left unresolved or
// resolved to a declaration outside st (an earlier top-level one; the
// wrapper has no parameters), with field and method names (x.f) left out.
func outerNames(st ast.Node) []string {
	var names []string
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					names = appendOuter(names, id, st)
				}
				return true
			})
			return false
		case *ast.Ident:
			names = appendOuter(names, n, st)
		}
		return true
	})
	return names
}

func appendOuter(names []string, id *ast.Ident, st ast.Node) []string {
	if o := id.Obj; o != nil && o.Pos() >= st.Pos() && o.Pos() < st.End() {
		return names // declared in st
	}
	return append(names, id.Name)
}

// specEnd extends the end of a spec left out of its group past the
// semicolon that ends it on its line, if any, so the group still parses
// (var ( a = b; b = 1 ) with a left out).
func specEnd(body string, end int) int {
	i := end
	for i < len(body) && (body[i] == ' ' || body[i] == '\t') {
		i++
	}
	if i < len(body) && body[i] == ';' {
		return i + 1
	}
	return end
}

// forwardUse reports whether a snippet has two top-level var or const
// declarations (or specs of one group) and a name that a top-level declaration (var, const, func
// or type) declares appears before it is declared, as far as a scan of the
// tokens can tell. When it does not, no declaration needs another that
// comes after it (the chain of uses from one to the other would have to
// name something before its declaration), so orderInits need not parse:
// most snippets declare before they use, and a scan costs a fraction of a
// parse. It may say true when nothing needs to move.
func forwardUse(body string) bool {
	var sc scanner.Scanner
	file := token.NewFileSet().AddFile("", -1, len(body))
	sc.Init(file, []byte(body), nil, 0)
	first := map[string]token.Pos{} // each identifier's first occurrence
	forward, valueDecls := false, 0
	depth, group, groupNames := 0, 0, 0 // bracket depth; the depth inside a top-level declaration group (0 outside one) and what its specs declare
	// names is what the next identifier is: 0 a use, 1 a var or const
	// name, 2 a type or func name, -1 a use after a var or const name (a
	// comma brings another name).
	names := 0
	prev := token.SEMICOLON
	for {
		pos, tok, lit := sc.Scan()
		next := 0
		switch tok {
		case token.EOF:
			return forward && valueDecls >= 2
		case token.IDENT:
			if at, ok := first[lit]; !ok {
				first[lit] = pos
			} else if names > 0 && at < pos {
				forward = true
			}
			if names == 1 {
				next = -1
			}
		case token.COMMA:
			if names == -1 {
				next = 1
			}
		case token.VAR, token.CONST:
			if depth == 0 && prev == token.SEMICOLON {
				next = 1
				valueDecls++
			}
		case token.TYPE, token.FUNC:
			if depth == 0 && prev == token.SEMICOLON {
				next = 2
			}
		case token.LPAREN:
			depth++
			if depth == 1 && names > 0 && (prev == token.VAR || prev == token.CONST || prev == token.TYPE) {
				group, groupNames, next = depth, names, names
			}
		case token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth == group {
				group = 0
			}
			depth--
		case token.SEMICOLON:
			if group > 0 && depth == group {
				next = groupNames
				if groupNames == 1 {
					valueDecls++ // a spec of a group is a declaration of its own
				}
			}
		}
		names, prev = next, tok
	}
}
