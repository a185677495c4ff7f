package variable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultPreviewLimit is the length, in characters, of a preview when no
// limit is configured.
const DefaultPreviewLimit = 300

// maxPreviewDepth bounds how deep a preview descends into nested values; it
// also stops cycles.
const maxPreviewDepth = 6

// Previewer is implemented by types that describe themselves to the model,
// e.g. a browser ("Browser at https://example.com, 2 tabs") or a screenshot
// ("PNG 1280×800"). The result should fit within limit characters; longer
// results are cut.
type Previewer interface {
	Preview(limit int) string
}

// Preview returns a bounded, human-readable representation of v: at most
// limit characters (DefaultPreviewLimit when limit <= 0), ending in "…" when
// cut. Strings are quoted, byte slices show their size (and a PNG its
// dimensions), slices and maps their length, structs their exported
// fields (never the unexported ones); a Previewer, an error, a type with
// a Redacted method (a *url.URL, without its password), a fmt.Stringer or
// a json.Marshaler describes itself, and a handle (a
// database, a connection, a client, a file: see RegisterHandle) shows its
// type and a short identity only.
func Preview(v any, limit int) string {
	if limit <= 0 {
		limit = DefaultPreviewLimit
	}
	// Written into a pooled buffer: the preview itself is the one
	// allocation a plain value costs.
	return preview(v, limit, true)
}

// preview is Preview; flat says whether a struct of plain fields may be
// written by its plan (flat.go), which the tests turn off to hold the plan
// to the general walk.
func preview(v any, limit int, flat bool) string {
	buf := buffers.Get().(*[]byte)
	p := previewer{b: (*buf)[:0], limit: limit}
	rv := reflect.ValueOf(v)
	if !flat || !p.flat(rv) {
		p.value(rv, 0)
		p.finish()
	}
	s := string(p.b)
	if cap(p.b) <= 4<<10 {
		*buf = p.b
		buffers.Put(buf)
	}
	return s
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// previewer writes a preview into b. What it measures (its length, the
// room left) is b[base:]: a nested list or a table's row is written in
// place, with base at its start, and taken back when it does not fit.
type previewer struct {
	b     []byte
	base  int
	limit int
	cut   bool // items were left out and the result must end in "…"
	// counted is the length of the prefix of b whose characters were
	// counted, and counts them; baseRunes counts b[:base].
	counted, countedRunes, baseRunes int
	// mayDescribe reports whether values of selfType may describe
	// themselves (see self).
	selfType    reflect.Type
	mayDescribe bool
	handle      bool
}

// written is what the previewer wrote since base.
func (p *previewer) written() []byte { return p.b[p.base:] }

// runes counts the characters written since base. Counts are kept, so
// that what was counted is not counted again: previews measure themselves
// often. (Every piece a preview writes is valid UTF-8 or joined to the
// next by ASCII, so counts add up piece by piece.)
func (p *previewer) runes() int { return p.runesTo(len(p.b)) - p.baseRunes }

// runesTo counts the characters of b[:n].
func (p *previewer) runesTo(n int) int {
	if n < p.counted {
		p.countedRunes -= utf8.RuneCount(p.b[n:p.counted])
	} else {
		p.countedRunes += utf8.RuneCount(p.b[p.counted:n])
	}
	p.counted = n
	return p.countedRunes
}

// setBase starts measuring at b[n:].
func (p *previewer) setBase(n int) {
	p.base, p.baseRunes = n, p.runesTo(n)
}

// truncate cuts the buffer to n bytes.
func (p *previewer) truncate(n int) {
	if n < p.counted {
		p.countedRunes -= utf8.RuneCount(p.b[n:p.counted])
		p.counted = n
	}
	p.b = p.b[:n]
}

func (p *previewer) full() bool { return len(p.b)-p.base >= p.limit }

func (p *previewer) str(s string) {
	if !p.full() {
		p.b = append(p.b, s...)
	}
}

// str2 writes a and b, or neither when the preview is full.
func (p *previewer) str2(a, b string) {
	if !p.full() {
		p.b = append(append(p.b, a...), b...)
	}
}

// finish makes what was written since base the final text: valid UTF-8,
// at most limit characters, ending in "…" when it was cut.
func (p *previewer) finish() {
	s := p.written()
	if !utf8.Valid(s) {
		// An error or a Stringer may return any bytes.
		valid := bytes.ToValidUTF8(s, []byte("\uFFFD"))
		p.truncate(p.base)
		p.b = append(p.b, valid...)
		s = p.written()
	}
	if n := p.runes(); n <= p.limit {
		if !p.cut || bytes.HasSuffix(s, ellipsis) {
			return
		}
		if n < p.limit {
			p.b = append(p.b, ellipsis...)
			return
		}
	}
	p.truncate(p.base + runeOffset(s, p.limit-1))
	p.b = append(p.b, ellipsis...)
}

var ellipsis = []byte("…")

// runeOffset returns the byte offset of character k of s, or len(s).
func runeOffset(s []byte, k int) int {
	for i := 0; i < len(s); {
		if k == 0 {
			return i
		}
		_, n := utf8.DecodeRune(s[i:])
		i += n
		k--
	}
	return len(s)
}

// structTypes caches, per struct type, its fields' names.
var structTypes sync.Map // reflect.Type → *typeInfo

type typeInfo struct {
	t reflect.Type
	// plan writes a value of the type (a struct) without the general
	// walk, or is nil (flat.go).
	plan    []flatField
	hasPlan bool
	name    string // the struct's name, or "struct"
	// columns are the exported fields' indexes, the only fields a
	// preview shows; labels are their "Name: " and header a table's
	// columns ("ID int, Name string"), for slices of this struct type.
	columns []int
	labels  []string
	header  string
}

// lastInfo is the typeInfo infoOf returned last: results of one action,
// previewed one after another, share their type.
var lastInfo atomic.Pointer[typeInfo]

func infoOf(t reflect.Type) *typeInfo {
	if ti := lastInfo.Load(); ti != nil && ti.t == t {
		return ti
	}
	ti := infoOfType(t)
	lastInfo.Store(ti)
	return ti
}

func infoOfType(t reflect.Type) *typeInfo {
	if ti, ok := structTypes.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{t: t, name: t.Name()}
	if ti.name == "" {
		ti.name = "struct"
	}
	if t.Kind() == reflect.Struct {
		var head strings.Builder
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			ti.labels = append(ti.labels, f.Name+": ")
			if len(ti.columns) > 0 {
				head.WriteString(", ")
			}
			ti.columns = append(ti.columns, i)
			head.WriteString(f.Name + " " + TypeName(f.Type))
		}
		ti.header = head.String()
		ti.plan, ti.hasPlan = planOf(t)
	}
	got, _ := structTypes.LoadOrStore(t, ti)
	return got.(*typeInfo)
}

// redacter is a type whose String may hold a secret and that says itself
// without it: net/url's URL (a password in its user info).
type redacter interface{ Redacted() string }

// self reports and writes the self-description of v, if it has one: a
// handle's type and identity (handle.go), or what its Preview, Error,
// Redacted, String or MarshalJSON method returns. An interface value is
// left to its dynamic value.
func (p *previewer) self(v reflect.Value) (ok bool) {
	if !v.CanInterface() || v.Kind() == reflect.Interface {
		return false
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return false
	}
	// A type without (exported) methods describes nothing. The answers
	// are kept for the next value, often of the same type (a list's
	// elements).
	if t := v.Type(); t != p.selfType {
		p.selfType, p.mayDescribe, p.handle = t, t.NumMethod() > 0, isHandle(t)
	}
	if p.handle {
		p.str(handlePreview(v))
		return true
	}
	if !p.mayDescribe {
		return false
	}
	defer func() {
		// A method on a nil or broken value may panic; fall back to the
		// structural preview.
		if recover() != nil {
			ok = false
		}
	}()
	switch x := v.Interface().(type) {
	case Previewer:
		p.str(x.Preview(p.limit - (len(p.b) - p.base)))
	case error:
		p.str2("error: ", x.Error())
	case redacter:
		// Its String may show a password (net/url's URL); this never.
		p.str(x.Redacted())
	case fmt.Stringer:
		p.str(x.String())
	case json.Marshaler:
		b, err := x.MarshalJSON()
		if err != nil {
			return false
		}
		p.str(string(b))
	default:
		return false
	}
	return true
}

func (p *previewer) value(v reflect.Value, depth int) {
	if p.full() {
		return
	}
	if !v.IsValid() {
		p.str("nil")
		return
	}
	if p.self(v) {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if depth == 0 && plainText(v.String()) {
			p.text(v.String())
			return
		}
		p.quoted(v.String(), depth, false)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		p.scalar(v, v.Kind())
	case reflect.Complex64, reflect.Complex128:
		p.str(strconv.FormatComplex(v.Complex(), 'g', -1, v.Type().Bits()))
	case reflect.Pointer:
		if v.IsNil() {
			p.str("nil")
			return
		}
		p.str("&")
		p.nested(v.Elem(), depth)
	case reflect.Interface:
		if v.IsNil() {
			p.str("nil")
			return
		}
		p.value(v.Elem(), depth)
	case reflect.Slice:
		if v.IsNil() {
			p.str("nil")
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			p.bytes(v)
			return
		}
		p.list(v, depth)
	case reflect.Array:
		p.list(v, depth)
	case reflect.Map:
		if v.IsNil() {
			p.str("nil")
			return
		}
		p.mapping(v, depth)
	case reflect.Struct:
		p.structure(v, depth)
	default: // chan, func, unsafe pointer
		if v.IsNil() {
			p.str("nil")
			return
		}
		p.str(TypeName(v.Type()))
	}
}

// appendShortFloat appends f as strconv.AppendFloat(b, f, 'g', -1, 64)
// does, when f is a number of at most three decimals between 1e-4 and 1e6
// (the common case, done without the general algorithm); ok is false, and
// b unchanged, otherwise. The decimals found are the fewest that read back
// as f, which is what 'g' writes.
func appendShortFloat(b []byte, f float64) ([]byte, bool) {
	a := math.Abs(f)
	if !(a >= 1e-4 && a < 1e6) {
		return b, false
	}
	for k, pow := 0, 1.0; k <= 3; k, pow = k+1, pow*10 {
		m := math.Round(a * pow)
		if m/pow != a {
			continue
		}
		if f < 0 {
			b = append(b, '-')
		}
		n, unit := int64(m), int64(pow)
		b = strconv.AppendInt(b, n/unit, 10)
		if k > 0 {
			b = append(b, '.')
			frac := n % unit
			for d := unit / 10; d > frac && d > 1; d /= 10 {
				b = append(b, '0')
			}
			b = strconv.AppendInt(b, frac, 10)
		}
		return b, true
	}
	return b, false
}

// nested previews a value inside another, or elides it past the depth bound.
func (p *previewer) nested(v reflect.Value, depth int) {
	if depth+1 >= maxPreviewDepth {
		p.str("…")
		return
	}
	p.value(v, depth+1)
}

// quoted writes s as a Go string literal when it fits the room left (at most
// 60 characters inside another value); otherwise as much of it as fits,
// followed by "…" and its length in characters, or by "…" alone when s is
// already a cut (truncated).
func (p *previewer) quoted(s string, depth int, truncated bool) {
	if p.full() {
		return
	}
	if !truncated && len(s)+2 <= 60 && len(p.b)-p.base+len(s)+2 <= p.limit && plainASCII(s) {
		// The common short word: quoted as it is, and it fits (what was
		// written holds no more characters than bytes).
		p.b = append(append(append(p.b, '"'), s...), '"')
		return
	}
	budget := p.limit - p.runes()
	if depth > 0 {
		budget = min(budget, 60)
	}
	n := utf8.RuneCountInString(s)
	if !truncated && n+2 <= budget {
		mark := len(p.b)
		p.b = strconv.AppendQuote(p.b, s)
		if utf8.RuneCount(p.b[mark:]) <= budget {
			return
		}
		p.truncate(mark)
	}
	tail := "…"
	if !truncated {
		tail = "… (" + strconv.Itoa(n) + " chars)"
	}
	room := budget - utf8.RuneCountInString(tail)
	// Keep k characters; escapes make the literal longer than k+2, so
	// shrink k until it fits.
	for k := room - 2; ; {
		q := strconv.Quote(firstRunes(s, max(k, 0)))
		qn := utf8.RuneCountInString(q)
		if qn <= room || k <= 0 {
			p.str2(q, tail)
			return
		}
		k = min(k-1, k*room/qn)
	}
}

// plainASCII reports whether s is printable ASCII that a Go string
// literal holds as it is (no quote or backslash).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// firstRunes returns the first k characters of s.
func firstRunes(s string, k int) string {
	for i := range s {
		if k == 0 {
			return s[:i]
		}
		k--
	}
	return s
}

// enclose writes the contents of a container with body, within a limit
// lowered by the length of tail, then writes tail (the closing bracket and
// the count of items) in full, so that the count survives a cut. body
// reports whether it wrote every item; when not, the contents end in "…".
func (p *previewer) enclose(tail []byte, body func() (complete bool)) {
	outer := p.limit
	inner := outer - utf8.RuneCount(tail) - 1 // 1 for "…"
	if inner <= p.runes()+1 {
		// No room for the tail: leave it to the final cut.
		if !body() {
			p.cut = true
		}
		if !p.full() {
			p.b = append(p.b, tail...)
		}
		return
	}
	p.limit = inner
	complete := body()
	p.limit = outer
	s := p.written()
	if n := p.runes(); n > inner || (!complete && !bytes.HasSuffix(s, ellipsis)) {
		if n > inner {
			p.truncate(p.base + runeOffset(s, inner-1))
		}
		p.b = append(p.b, ellipsis...)
	}
	p.b = append(p.b, tail...)
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

func (p *previewer) bytes(v reflect.Value) {
	b := v.Bytes()
	if len(b) >= 24 && string(b[:8]) == string(pngSignature) && string(b[12:16]) == "IHDR" {
		w, h := binary.BigEndian.Uint32(b[16:20]), binary.BigEndian.Uint32(b[20:24])
		p.str(fmt.Sprintf("PNG %d×%d (%d bytes)", w, h, len(b)))
		return
	}
	p.str("[]byte (" + strconv.Itoa(len(b)) + " bytes) ")
	head := b[:min(len(b), p.limit)]
	if len(head) < len(b) {
		// Do not let the cut split a character and pass for binary.
		for j := len(head) - 1; j >= max(len(head)-utf8.UTFMax, 0); j-- {
			if utf8.RuneStart(head[j]) {
				if !utf8.FullRune(head[j:]) {
					head = head[:j]
				}
				break
			}
		}
	}
	if utf8.Valid(head) && !slices.ContainsFunc(head, func(c byte) bool { return c < 0x20 && c != '\n' && c != '\t' && c != '\r' }) {
		p.quoted(string(head), 1, len(head) < len(b))
		return
	}
	p.str(fmt.Sprintf("%x", b[:min(len(b), 32)]))
	if len(b) > 32 {
		p.str("…")
	}
}

func (p *previewer) list(v reflect.Value, depth int) {
	n := v.Len()
	if depth == 0 && n > 0 && p.table(v) {
		return
	}
	// The count of the outer list; a nested list shows its own only when
	// it is cut, so that rows do not repeat theirs.
	if depth > 0 && p.whole(v, depth) {
		return
	}
	var buf [32]byte
	tail := append(buf[:0], ']')
	if depth > 0 || v.Kind() == reflect.Slice || n > 3 {
		tail = append(appendCount(append(tail, " ("...), n, "item", "items"), ')')
	}
	p.str("[")
	p.enclose(tail, func() bool { return p.items(v, depth) })
}

// items writes the elements of a list, and reports whether all fitted.
func (p *previewer) items(v reflect.Value, depth int) bool {
	for i := 0; i < v.Len(); i++ {
		if p.full() {
			return false
		}
		if i > 0 {
			p.str(", ")
		}
		p.nested(v.Index(i), depth)
	}
	return true
}

// whole writes the nested list v whole, with no count, and reports true
// when it fits in the room left; otherwise it writes nothing.
func (p *previewer) whole(v reflect.Value, depth int) bool {
	if n := v.Len(); depth+1 < maxPreviewDepth && len(p.b)-p.base+n*maxScalar+4 <= p.limit && plainScalar(v.Type().Elem()) {
		// Numbers or booleans with room to spare: they fit, whole.
		p.b = append(p.b, '[')
		p.items(v, depth)
		p.b = append(p.b, ']')
		return true
	}
	room := p.limit - p.runes()
	if room <= 2 {
		return false
	}
	// Written in place, measured on its own: the list is written once
	// when it fits.
	wasFull := p.full()
	mark, base, baseRunes, limit, cut := len(p.b), p.base, p.baseRunes, p.limit, p.cut
	p.setBase(mark)
	p.limit, p.cut = room, false
	p.str("[")
	p.enclose([]byte("]"), func() bool { return p.items(v, depth) })
	s := p.written()
	fits := !p.cut && p.runes() <= room && !bytes.Contains(s, ellipsis)
	p.base, p.baseRunes, p.limit, p.cut = base, baseRunes, limit, cut
	if !fits || wasFull {
		p.truncate(mark)
	}
	return fits
}

// maxScalar bounds the length of a number or boolean in a list, with its
// separator: 'g' writes at most 24 characters (-1.2345678901234567e-308).
const maxScalar = 26

// plainScalar reports whether values of t are numbers or booleans written
// by the previewer itself (no methods).
func plainScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return t.NumMethod() == 0
	}
	return false
}

func (p *previewer) mapping(v reflect.Value, depth int) {
	keys := v.MapKeys()
	slices.SortFunc(keys, compareKeys)
	p.str("{")
	var buf [32]byte
	tail := append(buf[:0], '}')
	if depth == 0 {
		tail = append(appendCount(append(tail, " ("...), len(keys), "entry", "entries"), ')')
	}
	p.enclose(tail, func() bool {
		for i, k := range keys {
			if p.full() {
				return false
			}
			if i > 0 {
				p.str(", ")
			}
			p.nested(k, depth)
			p.str(": ")
			p.nested(v.MapIndex(k), depth)
		}
		return true
	})
}

func (p *previewer) structure(v reflect.Value, depth int) {
	info := infoOf(v.Type())
	p.str2(info.name, "{")
	for j, i := range info.columns {
		if p.full() {
			break
		}
		if j > 0 {
			p.str(", ")
		}
		p.str(info.labels[j])
		p.nested(v.Field(i), depth)
	}
	p.str("}")
}

// compareKeys orders map keys for a deterministic preview.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

// plural returns "1 item" or "n items".
func plural(n int, one, many string) string {
	return string(appendCount(nil, n, one, many))
}

// appendCount appends "1 item" or "n items" to b.
func appendCount(b []byte, n int, one, many string) []byte {
	if n == 1 {
		return append(append(b, "1 "...), one...)
	}
	return append(append(strconv.AppendInt(b, int64(n), 10), ' '), many...)
}

// table writes a list of structs as a table the way a person would
// describe it: the row count, the columns with their types, then as many
// whole rows as fit, one cell after another. It reports false, writing
// nothing, when v's elements are not structs with exported fields.
func (p *previewer) table(v reflect.Value) bool {
	et := v.Type().Elem()
	ptr := et.Kind() == reflect.Pointer
	if ptr {
		et = et.Elem()
	}
	if et.Kind() != reflect.Struct || implementsSelf(v.Type().Elem()) || isHandle(v.Type().Elem()) {
		return false
	}
	info := infoOf(et)
	cols := info.columns
	if len(cols) == 0 {
		return false
	}
	n := v.Len()
	p.str(plural(n, "row", "rows") + " × " + plural(len(cols), "column", "columns") + " (" + info.header + ")")
	sep := "; first rows: "
	if n == 1 {
		sep = "; the row: "
	}
	for r := 0; r < n; r++ {
		row := v.Index(r)
		if ptr {
			if row.IsNil() {
				continue
			}
			row = row.Elem()
		}
		// The row is written in place after sep, measured on its own,
		// and taken back when it does not fit whole.
		start := len(p.b)
		before := p.runes()
		p.b = append(p.b, sep...)
		base, baseRunes, cut := p.base, p.baseRunes, p.cut
		p.setBase(len(p.b))
		p.cut = false
		p.str("{")
		for j, c := range cols {
			if j > 0 {
				p.str(", ")
			}
			p.nested(row.Field(c), 1)
		}
		p.str("}")
		p.finish()
		text := p.written()
		cellCut := p.cut
		p.base, p.baseRunes, p.cut = base, baseRunes, cut
		more := 0
		if r < n-1 {
			more = utf8.RuneCountInString(", …")
		}
		if before+utf8.RuneCountInString(sep)+utf8.RuneCount(text)+more > p.limit || cellCut || bytes.HasSuffix(text, ellipsis) {
			p.truncate(start)
			if r == 0 {
				// Not even one row fits whole: columns and count only.
				return true
			}
			p.b = append(p.b, ", …"...)
			return true
		}
		sep = ", "
	}
	return true
}

// implementsSelf reports whether values of t describe themselves.
func implementsSelf(t reflect.Type) bool {
	for _, i := range []reflect.Type{reflect.TypeFor[Previewer](), reflect.TypeFor[error](), reflect.TypeFor[redacter](), reflect.TypeFor[fmt.Stringer](), reflect.TypeFor[json.Marshaler]()} {
		if t.Implements(i) {
			return true
		}
	}
	return false
}

// text writes a string that is the whole value as it is, not quoted: the
// model sees its type beside it, and a quoted preview would be escaped
// twice once it is put in JSON. A cut text ends in "… (N chars)".
func (p *previewer) text(s string) {
	n := utf8.RuneCountInString(s)
	if n <= p.limit {
		p.str(s)
		return
	}
	tail := "… (" + strconv.Itoa(n) + " chars)"
	p.b = append(p.b, firstRunes(s, max(p.limit-utf8.RuneCountInString(tail), 0))...)
	p.b = append(p.b, tail...)
}

// plainText reports whether s reads well unquoted: not empty, valid UTF-8,
// and free of control characters other than newlines and tabs.
func plainText(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
