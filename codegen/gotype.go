package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/byref/byref/run"
)

// kind is what a recorded type is made of.
type kind int

const (
	kBasic   kind = iota // bool, int…, float64, string, complex128; name holds it
	kError               // the predeclared error
	kAny                 // the empty interface
	kIface               // an unnamed interface with methods (not writable)
	kNamed               // a named type of a package: path and name
	kPointer             // *elem
	kSlice               // []elem
	kArray               // [n]elem
	kMap                 // map[key]elem
	kChan                // chan elem, with dir
	kFunc                // func(in) out
	kStruct              // struct { fields }
)

// gotype is a Go type parsed from the log's form (run.GoType): names are
// qualified by import path, so replay code can import them.
type gotype struct {
	kind       kind
	name, path string // kBasic: name; kNamed: path and name
	elem, key  *gotype
	n          int // kArray: length
	dir        string
	fields     []field
	in, out    []*gotype
	variadic   bool
}

// field is a struct field; Name is "" for an embedded one.
type field struct {
	name string
	typ  *gotype
	tag  string
}

// String writes the type back in the log's form.
func (t *gotype) String() string {
	if t == nil {
		return "any"
	}
	switch t.kind {
	case kBasic:
		return t.name
	case kError:
		return "error"
	case kAny:
		return "any"
	case kIface:
		return "interface"
	case kNamed:
		if t.path == "" {
			return t.name
		}
		return t.path + "." + t.name
	case kPointer:
		return "*" + t.elem.String()
	case kSlice:
		return "[]" + t.elem.String()
	case kArray:
		return "[" + strconv.Itoa(t.n) + "]" + t.elem.String()
	case kMap:
		return "map[" + t.key.String() + "]" + t.elem.String()
	case kChan:
		return t.dir + " " + t.elem.String()
	case kFunc:
		var in, out []string
		for i, p := range t.in {
			s := p.String()
			if t.variadic && i == len(t.in)-1 {
				s = "..." + p.elem.String()
			}
			in = append(in, s)
		}
		for _, r := range t.out {
			out = append(out, r.String())
		}
		return funcType(in, out)
	case kStruct:
		var fs []string
		for _, f := range t.fields {
			s := f.typ.String()
			if f.name != "" {
				s = f.name + " " + s
			}
			if f.tag != "" {
				s += " " + strconv.Quote(f.tag)
			}
			fs = append(fs, " "+s)
		}
		return "struct {" + strings.Join(fs, ";") + " }"
	}
	return "?"
}

// isContext reports whether t is context.Context.
func (t *gotype) isContext() bool {
	return t != nil && t.kind == kNamed && t.path == "context" && t.name == "Context"
}

var basicNames = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`bool string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64
		uintptr float32 float64 complex64 complex128 byte rune unsafe.Pointer`) {
		basicNames[s] = true
	}
}

// parseType parses a type in the log's form.
func parseType(s string) (*gotype, error) {
	p := &typeParser{s: s}
	t, err := p.typ()
	if err != nil {
		return nil, fmt.Errorf("the recorded type %q does not parse: %w", s, err)
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("the recorded type %q does not parse: unexpected %q", s, p.s[p.i:])
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// eat consumes tok when it comes next.
func (p *typeParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *typeParser) expect(tok string) error {
	if !p.eat(tok) {
		return fmt.Errorf("want %q at offset %d", tok, p.i)
	}
	return nil
}

// word reads a name: an identifier, or an import path and a name.
func (p *typeParser) word() string {
	p.space()
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" *[](){},;\"", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *typeParser) typ() (*gotype, error) {
	switch {
	case p.eat("*"):
		el, err := p.typ()
		return &gotype{kind: kPointer, elem: el}, err
	case p.eat("[]"):
		el, err := p.typ()
		return &gotype{kind: kSlice, elem: el}, err
	case p.eat("["):
		n, err := strconv.Atoi(p.word())
		if err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		el, err := p.typ()
		return &gotype{kind: kArray, n: n, elem: el}, err
	case p.eat("<-chan "):
		el, err := p.typ()
		return &gotype{kind: kChan, dir: "<-chan", elem: el}, err
	case p.eat("chan<- "):
		el, err := p.typ()
		return &gotype{kind: kChan, dir: "chan<-", elem: el}, err
	}
	w := p.word()
	switch w {
	case "":
		return nil, fmt.Errorf("want a type at offset %d", p.i)
	case "any":
		return &gotype{kind: kAny}, nil
	case "error":
		return &gotype{kind: kError}, nil
	case "interface":
		if p.eat("{") { // interface {} as reflect writes it
			if err := p.expect("}"); err != nil {
				return nil, err
			}
			return &gotype{kind: kAny}, nil
		}
		return &gotype{kind: kIface}, nil
	case "chan":
		el, err := p.typ()
		return &gotype{kind: kChan, dir: "chan", elem: el}, err
	case "map":
		if err := p.expect("["); err != nil {
			return nil, err
		}
		k, err := p.typ()
		if err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		el, err := p.typ()
		return &gotype{kind: kMap, key: k, elem: el}, err
	case "func":
		return p.funcType()
	case "struct":
		return p.structType()
	}
	if basicNames[w] {
		return &gotype{kind: kBasic, name: w}, nil
	}
	if strings.HasPrefix(p.s[p.i:], "[") {
		return nil, fmt.Errorf("%s is an instance of a generic type, which replay code cannot name yet", w)
	}
	slash := strings.LastIndexByte(w, '/')
	dot := strings.LastIndexByte(w, '.')
	if dot <= slash {
		// A name with no package: a type of package main recorded by
		// an older log, or one reflect could not qualify.
		return &gotype{kind: kNamed, name: w}, nil
	}
	return &gotype{kind: kNamed, path: w[:dot], name: w[dot+1:]}, nil
}

func (p *typeParser) funcType() (*gotype, error) {
	t := &gotype{kind: kFunc}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.eat(")") {
		if len(t.in) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		if p.eat("...") {
			t.variadic = true
			el, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.in = append(t.in, &gotype{kind: kSlice, elem: el})
			continue
		}
		in, err := p.typ()
		if err != nil {
			return nil, err
		}
		t.in = append(t.in, in)
	}
	p.space()
	if p.i == len(p.s) || strings.ContainsRune(",;)]}\"", rune(p.s[p.i])) {
		return t, nil
	}
	if p.eat("(") {
		for !p.eat(")") {
			if len(t.out) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			out, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.out = append(t.out, out)
		}
		return t, nil
	}
	out, err := p.typ()
	t.out = []*gotype{out}
	return t, err
}

func (p *typeParser) structType() (*gotype, error) {
	t := &gotype{kind: kStruct}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for !p.eat("}") {
		if len(t.fields) > 0 {
			if err := p.expect(";"); err != nil {
				return nil, err
			}
		}
		// A field is "Name Type" or, embedded, "Type".
		save := p.i
		name := p.word()
		f := field{}
		p.space()
		if name != "" && p.i < len(p.s) && p.s[p.i] != ';' && p.s[p.i] != '}' && p.s[p.i] != '"' && !strings.ContainsAny(name, "./") {
			f.name = name
		} else {
			p.i = save
		}
		ft, err := p.typ()
		if err != nil {
			return nil, err
		}
		f.typ = ft
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '"' {
			end := p.i + 1
			for end < len(p.s) && p.s[end] != '"' {
				if p.s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(p.s) {
				return nil, fmt.Errorf("unterminated tag")
			}
			tag, err := strconv.Unquote(p.s[p.i : end+1])
			if err != nil {
				return nil, err
			}
			f.tag, p.i = tag, end+1
		}
		t.fields = append(t.fields, f)
	}
	return t, nil
}

// catalog holds what the log says of named types.
type catalog struct {
	named  map[string]run.NamedType
	parsed map[string]*gotype
}

// underlying returns t's underlying type when t is named and the log
// describes it (nil when it does not, or when it decodes its JSON itself
// and unmarshals is set), else t.
func (c *catalog) underlying(t *gotype) (u *gotype, unmarshals bool) {
	if t == nil || t.kind != kNamed {
		return t, false
	}
	nt, ok := c.named[t.String()]
	if !ok {
		return nil, false
	}
	if u, ok := c.parsed[nt.Name]; ok {
		return u, nt.Unmarshals
	}
	u, err := parseType(nt.Underlying)
	if err != nil {
		u = nil
	}
	c.parsed[nt.Name] = u
	return u, nt.Unmarshals
}

// isInterface reports whether t is an interface type.
func (c *catalog) isInterface(t *gotype) bool {
	if t == nil {
		return true
	}
	if t.kind == kNamed {
		u, _ := c.underlying(t)
		return u != nil && (u.kind == kAny || u.kind == kIface)
	}
	return t.kind == kAny || t.kind == kIface || t.kind == kError
}

// representable reports whether values of t can be JSON-encoded, as far
// as the log tells: no channels, functions or complex numbers.
func (c *catalog) representable(t *gotype, seen map[string]bool) bool {
	if t == nil {
		return true
	}
	switch t.kind {
	case kBasic:
		return !strings.HasPrefix(t.name, "complex") && t.name != "unsafe.Pointer"
	case kChan, kFunc:
		return false
	case kPointer, kSlice, kArray:
		return c.representable(t.elem, seen)
	case kMap:
		return c.representable(t.key, seen) && c.representable(t.elem, seen)
	case kStruct:
		for _, f := range t.fields {
			if f.tag != `json:"-"` && !c.representable(f.typ, seen) {
				return false
			}
		}
	case kNamed:
		name := t.String()
		if seen[name] {
			return true
		}
		seen[name] = true
		u, unmarshals := c.underlying(t)
		return unmarshals || c.representable(u, seen)
	}
	return true
}
