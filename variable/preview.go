package variable

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
// dimensions), slices and maps their length, structs their fields; a
// Previewer, an error or a fmt.Stringer describes itself.
func Preview(v any, limit int) string {
	if limit <= 0 {
		limit = DefaultPreviewLimit
	}
	p := previewer{limit: limit}
	p.value(reflect.ValueOf(v), 0)
	return p.result()
}

type previewer struct {
	b     strings.Builder
	limit int
	cut   bool // items were left out and the result must end in "…"
}

func (p *previewer) full() bool { return p.b.Len() >= p.limit }

func (p *previewer) str(s string) {
	if !p.full() {
		p.b.WriteString(s)
	}
}

func (p *previewer) result() string {
	s := p.b.String()
	if !utf8.ValidString(s) {
		// An error or a Stringer may return any bytes.
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if n := utf8.RuneCountInString(s); n <= p.limit {
		if !p.cut || strings.HasSuffix(s, "…") {
			return s
		}
		if n < p.limit {
			return s + "…"
		}
	}
	cut := 0
	for i := range s {
		if cut == p.limit-1 {
			return s[:i] + "…"
		}
		cut++
	}
	return s
}

// self reports and writes the self-description of v, if it has one.
func (p *previewer) self(v reflect.Value) (ok bool) {
	if !v.CanInterface() {
		return false
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
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
		p.str(x.Preview(p.limit - p.b.Len()))
	case error:
		p.str("error: " + x.Error())
	case fmt.Stringer:
		p.str(x.String())
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
	case reflect.Bool:
		p.str(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.str(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.str(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		p.str(strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits()))
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
	budget := p.limit - utf8.RuneCountInString(p.b.String())
	if depth > 0 {
		budget = min(budget, 60)
	}
	n := utf8.RuneCountInString(s)
	if !truncated && n+2 <= budget {
		if q := strconv.Quote(s); utf8.RuneCountInString(q) <= budget {
			p.str(q)
			return
		}
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
			p.str(q + tail)
			return
		}
		k = min(k-1, k*room/qn)
	}
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
func (p *previewer) enclose(tail string, body func() (complete bool)) {
	outer := p.limit
	inner := outer - utf8.RuneCountInString(tail) - 1 // 1 for "…"
	if inner <= utf8.RuneCountInString(p.b.String())+1 {
		// No room for the tail: leave it to the final cut.
		if !body() {
			p.cut = true
		}
		p.str(tail)
		return
	}
	p.limit = inner
	complete := body()
	p.limit = outer
	s := p.b.String()
	if n := utf8.RuneCountInString(s); n > inner || (!complete && !strings.HasSuffix(s, "…")) {
		if n > inner {
			s = firstRunes(s, inner-1)
		}
		p.b.Reset()
		p.b.WriteString(s)
		p.b.WriteString("…")
	}
	p.b.WriteString(tail)
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
	if depth > 0 {
		if whole, ok := p.whole(v, depth); ok {
			p.str(whole)
			return
		}
	}
	tail := "]"
	if depth > 0 || v.Kind() == reflect.Slice || n > 3 {
		tail = "] (" + plural(n, "item", "items") + ")"
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

// whole returns the nested list v written whole, with no count, and true
// when it fits in the room left; the list is written once when it does.
func (p *previewer) whole(v reflect.Value, depth int) (string, bool) {
	room := p.limit - utf8.RuneCountInString(p.b.String())
	if room <= 2 {
		return "", false
	}
	trial := previewer{limit: room}
	trial.str("[")
	trial.enclose("]", func() bool { return trial.items(v, depth) })
	s := trial.b.String()
	return s, !trial.cut && utf8.RuneCountInString(s) <= room && !strings.Contains(s, "…")
}

func (p *previewer) mapping(v reflect.Value, depth int) {
	keys := v.MapKeys()
	slices.SortFunc(keys, compareKeys)
	p.str("{")
	tail := "}"
	if depth == 0 {
		tail = "} (" + plural(len(keys), "entry", "entries") + ")"
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
	t := v.Type()
	name := t.Name()
	if name == "" {
		name = "struct"
	}
	p.str(name + "{")
	for i := 0; i < t.NumField(); i++ {
		if p.full() {
			break
		}
		if i > 0 {
			p.str(", ")
		}
		p.str(t.Field(i).Name + ": ")
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
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
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
	if et.Kind() != reflect.Struct || implementsSelf(v.Type().Elem()) {
		return false
	}
	var cols []int
	var head strings.Builder
	for i := range et.NumField() {
		f := et.Field(i)
		if !f.IsExported() {
			continue
		}
		if len(cols) > 0 {
			head.WriteString(", ")
		}
		cols = append(cols, i)
		head.WriteString(f.Name + " " + TypeName(f.Type))
	}
	if len(cols) == 0 {
		return false
	}
	n := v.Len()
	p.str(plural(n, "row", "rows") + " × " + plural(len(cols), "column", "columns") + " (" + head.String() + ")")
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
		cell := previewer{limit: p.limit}
		cell.str("{")
		for j, c := range cols {
			if j > 0 {
				cell.str(", ")
			}
			cell.nested(row.Field(c), 1)
		}
		cell.str("}")
		text := cell.result()
		more := ""
		if r < n-1 {
			more = ", …"
		}
		if utf8.RuneCountInString(p.b.String())+utf8.RuneCountInString(sep+text+more) > p.limit || cell.cut || strings.HasSuffix(text, "…") {
			if r == 0 {
				// Not even one row fits whole: columns and count only.
				return true
			}
			p.b.WriteString(", …")
			return true
		}
		p.b.WriteString(sep + text)
		sep = ", "
	}
	return true
}

// implementsSelf reports whether values of t describe themselves.
func implementsSelf(t reflect.Type) bool {
	for _, i := range []reflect.Type{reflect.TypeFor[Previewer](), reflect.TypeFor[error](), reflect.TypeFor[fmt.Stringer]()} {
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
	p.b.WriteString(firstRunes(s, max(p.limit-utf8.RuneCountInString(tail), 0)))
	p.b.WriteString(tail)
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
