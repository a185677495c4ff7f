package interp

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// ExtractCode returns the Go code blocks in a model's text: the contents of
// every fenced block (``` or ~~~) whose info string is "go" or "golang", in
// order, each passed through [NormalizeCode]. Text outside fences is ignored;
// an unterminated fence runs to the end of the text.
func ExtractCode(text string) []string {
	var out []string
	for _, b := range fences(text) {
		if isGoInfo(b.info) {
			if code := NormalizeCode(b.body); code != "" {
				out = append(out, code)
			}
		}
	}
	return out
}

// NormalizeCode prepares a snippet the model sent as an argument (run_go's
// code parameter): when the text is, or contains, fenced blocks it keeps their
// contents (Go-labelled blocks if any, else all blocks), and it trims
// trailing white space. Leading lines are kept, so positions in errors match
// the code as sent (or as written inside the fence). Eval applies it to
// Input.Code, so both ways of sending code share one parser; a package
// clause and imports are handled by Eval itself.
func NormalizeCode(code string) string {
	if strings.Contains(code, "```") || strings.Contains(code, "~~~") {
		bs := fences(code)
		if len(bs) > 0 {
			var goBlocks, all []string
			for _, b := range bs {
				all = append(all, b.body)
				if isGoInfo(b.info) {
					goBlocks = append(goBlocks, b.body)
				}
			}
			if len(goBlocks) == 0 {
				goBlocks = all
			}
			code = strings.Join(goBlocks, "\n")
		}
	}
	return strings.TrimRight(code, " \t\r\n")
}

type fence struct{ info, body string }

// fences finds fenced code blocks (CommonMark style: a line of 3+ backticks or
// tildes, closed by a line of at least as many of the same character).
func fences(text string) []fence {
	lines := strings.SplitAfter(text, "\n")
	var out []fence
	for i := 0; i < len(lines); i++ {
		l := strings.TrimLeft(lines[i], " \t")
		ch, n := fenceMark(l)
		if n == 0 {
			continue
		}
		info := strings.TrimSpace(l[n:])
		if ch == '`' && strings.Contains(info, "`") {
			continue // inline code, not a fence
		}
		var body strings.Builder
		j := i + 1
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if c2, n2 := fenceMark(t); c2 == ch && n2 >= n && strings.TrimLeft(t, string(ch)) == "" {
				break
			}
			body.WriteString(lines[j])
		}
		out = append(out, fence{info: info, body: strings.TrimRight(body.String(), "\n")})
		i = j
	}
	return out
}

func fenceMark(l string) (byte, int) {
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return l[0], n
}

func isGoInfo(info string) bool {
	f := strings.Fields(info)
	if len(f) == 0 {
		return false
	}
	s := strings.ToLower(strings.Trim(f[0], "{}."))
	return s == "go" || s == "golang"
}

// importSpec is one import of a snippet.
type importSpec struct {
	Alias string // the name the snippet uses; the package name when not renamed
	Path  string
	Named bool // the snippet gave an explicit name
	Line  int
	Col   int
}

// source is a snippet split into its parts. body has the same length and
// line/column layout as the snippet: the package clause and imports are
// blanked with spaces, so offsets and positions into body are snippet
// positions.
type source struct {
	code    string
	lines   []string
	body    string
	imports []importSpec
	segs    []segment
}

// segment is a run of top-level statements, or one top-level func, method or
// type declaration; yaegi evaluates each kind in a different mode.
type segment struct {
	start, end int // offsets into body
	decl       bool
	gaps       []segment // statement segments inside [start, end) that a declaration segment leaves out (see hoistDecls)
}

// text is the segment's part of body with everything else blanked,
// keeping body's layout.
func (sg segment) text(body string) []byte {
	b := only(body, sg.start, sg.end)
	for _, g := range sg.gaps {
		for i := g.start; i < g.end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return b
}

// Import is one import of a snippet, as written.
type Import struct {
	Name string // the name the import gives ("_", "." or an alias); "" when not renamed
	Path string
}

// Span is the byte range [Start, End) of a part of a snippet.
type Span struct{ Start, End int }

// Parts is a snippet cut up as Eval cuts it; see [Split].
type Parts struct {
	Imports []Import
	// Body is the code with its package clause and imports blanked: every
	// byte of them but newlines is a space. Body has the code's length and
	// line/column layout, so offsets and positions in it are the code's.
	Body string
	// Decls are the top-level func, method and type declarations, in order,
	// as spans of Body (and of the code), each from its func or type keyword
	// to its last token, without the semicolon or newline that ends it.
	// Everything else in Body is statements (and comments).
	Decls []Span
}

// Split separates a snippet's package clause and leading imports from the
// rest and finds its top-level declarations, as Eval does (Eval applies
// [NormalizeCode] first; Split does not). It does not parse the statements
// or declarations: code whose import section does not parse comes back
// whole in Body, with no Imports, for a full parse to report the error.
func Split(code string) Parts {
	s := splitImports(code)
	p := Parts{Body: s.body}
	for _, im := range s.imports {
		name := ""
		if im.Named {
			name = im.Alias
		}
		p.Imports = append(p.Imports, Import{Name: name, Path: im.Path})
	}
	for _, sg := range cutSegments(s.body) {
		if sg.decl {
			p.Decls = append(p.Decls, Span{sg.start, sg.end})
		}
	}
	return p
}

// splitSource separates the package clause and leading imports from the
// statements and declarations that follow, and cuts the rest into segments.
func splitSource(code string) (*source, error) {
	s := splitImports(code)
	s.segs = hoistDecls(s.body, cutSegments(s.body))
	return s, nil
}

// splitImports finds the imports and blanks them and the package clause
// in body.
func splitImports(code string) *source {
	s := &source{code: code, lines: strings.Split(code, "\n")}
	first := yaegi.FirstToken(code)
	if first != token.PACKAGE && first != token.IMPORT {
		s.body = code // no package clause and no leading imports
		return s
	}
	body := []byte(code)
	prefix := ""
	if first != token.PACKAGE {
		prefix = "package p;"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+code, parser.ImportsOnly)
	if err != nil {
		// No usable import section: let the full parse report the error.
		s.body = code
		return s
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	blank := func(from, to int) {
		for i := max(from, 0); i < to && i < len(body); i++ {
			if body[i] != '\n' {
				body[i] = ' '
			}
		}
	}
	if prefix == "" {
		blank(off(f.Package), off(f.Name.End()))
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			p, _ := strconv.Unquote(is.Path.Value)
			pos := fset.Position(is.Pos())
			spec := importSpec{Path: p, Line: pos.Line, Col: pos.Column}
			if is.Name != nil {
				spec.Alias, spec.Named = is.Name.Name, true
			}
			s.imports = append(s.imports, spec)
		}
		end := off(gd.End())
		// swallow a ';' that ends the import on the same line
		for end < len(body) && (body[end] == ' ' || body[end] == '\t') {
			end++
		}
		if end < len(body) && body[end] == ';' {
			end++
		}
		blank(off(gd.Pos()), end)
	}
	s.body = string(body)
	return s
}

type tok struct {
	off, end int
	tok      token.Token
}

// cutSegments cuts body into statement runs and top-level func, method and
// type declarations (one segment each), by scanning tokens at bracket depth 0.
func cutSegments(body string) []segment {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(body))
	sc.Init(file, []byte(body), func(token.Position, string) {}, 0)
	if !strings.Contains(body, "func") && !strings.Contains(body, "type") {
		// No declaration: one run of statements, from the first token
		// that is not a semicolon to the end.
		for {
			pos, t, _ := sc.Scan()
			switch t {
			case token.EOF:
				return nil
			case token.SEMICOLON:
				continue
			}
			return []segment{{start: file.Offset(pos), end: len(body)}}
		}
	}
	toks := make([]tok, 0, len(body)/4+8) // about one token per four bytes of Go
	for {
		pos, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		end := off + len(lit)
		if lit == "" {
			end = off + len(t.String())
		}
		toks = append(toks, tok{off, min(end, len(body)), t})
	}
	var segs []segment
	stmtStart := -1
	closeStmt := func(at int) {
		if stmtStart >= 0 {
			segs = append(segs, segment{start: stmtStart, end: at})
			stmtStart = -1
		}
	}
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		// A declaration starts a top-level statement.
		if depth == 0 && (i == 0 || toks[i-1].tok == token.SEMICOLON) &&
			(t.tok == token.TYPE || (t.tok == token.FUNC && isFuncDecl(toks, i))) {
			end := declEnd(toks, i)
			endOff := len(body)
			if end < len(toks) {
				endOff = toks[end].end
			}
			closeStmt(t.off)
			segs = append(segs, segment{start: t.off, end: endOff, decl: true})
			i = end
			continue
		}
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if stmtStart < 0 && t.tok != token.SEMICOLON {
			stmtStart = t.off
		}
	}
	closeStmt(len(body))
	return segs
}

// mergeDecls joins adjacent declaration segments, so they may refer to each
// other (mutual recursion, a method declared before its type).
func mergeDecls(segs []segment) []segment {
	merged := segs[:0]
	for _, sg := range segs {
		if n := len(merged); n > 0 && sg.decl && merged[n-1].decl {
			merged[n-1].end = sg.end
			continue
		}
		merged = append(merged, sg)
	}
	return merged
}

// isFuncDecl reports whether the func keyword at toks[i] starts a function or
// method declaration rather than a function literal.
func isFuncDecl(toks []tok, i int) bool {
	if i+1 >= len(toks) {
		return false
	}
	switch toks[i+1].tok {
	case token.IDENT:
		return true
	case token.LPAREN:
		j := matching(toks, i+1)
		return j+2 < len(toks) && toks[j+1].tok == token.IDENT &&
			(toks[j+2].tok == token.LPAREN || toks[j+2].tok == token.LBRACK)
	}
	return false
}

// matching returns the index of the bracket closing the one at toks[i].
func matching(toks []tok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

// declEnd returns the index of the last token of the declaration at toks[i].
func declEnd(toks []tok, i int) int {
	if toks[i].tok == token.TYPE {
		if i+1 < len(toks) && toks[i+1].tok == token.LPAREN {
			return matching(toks, i+1)
		}
		for j := i + 1; j < len(toks); j++ {
			switch toks[j].tok {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				j = matching(toks, j)
			case token.SEMICOLON:
				return j - 1
			}
		}
		return len(toks) - 1
	}
	// func: the body is the first '{' outside brackets not opening a
	// struct or interface type of the signature.
	for j := i + 1; j < len(toks); j++ {
		switch toks[j].tok {
		case token.LPAREN, token.LBRACK:
			j = matching(toks, j)
		case token.LBRACE:
			if p := toks[j-1].tok; p == token.STRUCT || p == token.INTERFACE {
				j = matching(toks, j)
				continue
			}
			return matching(toks, j)
		case token.SEMICOLON:
			return j - 1 // a declaration without body; let the parser complain
		}
	}
	return len(toks) - 1
}

// only returns body with everything outside [from, to) blanked, keeping the
// layout.
func only(body string, from, to int) []byte {
	b := []byte(body)
	for i := range b {
		if (i < from || i >= to) && b[i] != '\n' {
			b[i] = ' '
		}
	}
	return b
}

// insertion is text added to a declaration segment of a snippet at an
// offset of its body, for the sandbox's instrumentation (statement segments
// are instrumented as ASTs, see instrument.go). Insertions never contain
// newlines, so they only shift columns on their own line.
type insertion struct {
	off  int
	text string
}

// edits is the set of insertions of one snippet's declaration segments, with
// the mapping back.
type edits struct {
	ins []insertion // sorted by off, stable
}

func (e *edits) add(off int, text string) { e.ins = append(e.ins, insertion{off, text}) }

func (e *edits) sort() {
	sort.SliceStable(e.ins, func(i, j int) bool { return e.ins[i].off < e.ins[j].off })
}

// apply returns src (a body-layout text) with the insertions of the
// declaration segment sg: those in [sg.start, sg.end] outside its gaps
// (where other segments' declarations may lie).
func (e *edits) apply(src []byte, sg segment) string {
	var b strings.Builder
	b.Grow(len(src) + 64*len(e.ins))
	last := 0
	for _, in := range e.ins {
		if in.off < sg.start || in.off > sg.end || slices.ContainsFunc(sg.gaps, func(g segment) bool { return in.off >= g.start && in.off <= g.end }) {
			continue
		}
		b.Write(src[last:in.off])
		b.WriteString(in.text)
		last = in.off
	}
	b.Write(src[last:])
	return b.String()
}

// column maps a 1-based column on a line of instrumented text back to the
// column in the snippet. lineStart is the body offset of the line's start.
func (e *edits) column(lineStart, lineEnd, col int) int {
	shift := 0
	for _, in := range e.ins {
		if in.off < lineStart || in.off > lineEnd {
			continue
		}
		c := in.off - lineStart + 1 // original column of the insertion
		n := len(in.text)
		switch {
		case col >= c+shift+n:
			shift += n
		case col >= c+shift:
			return c
		default:
			return col - shift
		}
	}
	return col - shift
}

// lineOffsets returns the body offset at which each 1-based line starts.
func lineOffsets(body string) []int {
	offs := []int{0, 0}
	for i := 0; i < len(body); i++ {
		if body[i] == '\n' {
			offs = append(offs, i+1)
		}
	}
	return offs
}
