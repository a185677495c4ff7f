package variable_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/byref/byref/variable"
)

type point struct{ X, Y int }

type withHidden struct {
	Name   string
	secret string
	count  int
	tags   []string
}

type node struct {
	Val  int
	Next *node
}

// browserish describes itself.
type browserish struct{ url string }

func (b *browserish) Preview(limit int) string {
	return fmt.Sprintf("Browser at %s (limit %d)", b.url, limit)
}

// nilStringer's String dereferences its receiver, so it panics on nil.
type nilStringer struct{ s string }

func (n *nilStringer) String() string { return "stringer " + n.s }

// brokenStringer always panics.
type brokenStringer struct{ N int }

func (brokenStringer) String() string { panic("broken") }

type stringerField struct {
	D time.Duration
	e time.Duration // unexported: never shown
}

// png returns the first bytes of a PNG file of the given size, padded to n
// bytes.
func png(w, h uint32, n int) []byte {
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	binary.BigEndian.PutUint32(b[8:], 13)
	copy(b[12:], "IHDR")
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	return b
}

func TestPreview(t *testing.T) {
	var nilPoint *point
	var nilErr error
	var nilStr *nilStringer
	cyclic := &node{Val: 1}
	cyclic.Next = cyclic
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "nil"},
		{"string", "hello", "hello"},
		{"empty string", "", `""`},
		{"text with quotes and a newline: as it is", "a\"b\nc", "a\"b\nc"},
		{"control characters: quoted", "a\x01b", `"a\x01b"`},
		{"empty string: quoted", "", `""`},
		{"bool", true, "true"},
		{"int", -42, "-42"},
		{"uint8", uint8(200), "200"},
		{"float64", 1.5, "1.5"},
		{"float32", float32(0.1), "0.1"},
		{"complex", complex(1, 2), "(1+2i)"},
		{"bytes text", []byte("hello\nworld"), `[]byte (11 bytes) "hello\nworld"`},
		{"bytes binary", []byte{0, 1, 2, 0xff}, "[]byte (4 bytes) 000102ff"},
		{"bytes binary long", make([]byte, 100), "[]byte (100 bytes) " + strings.Repeat("00", 32) + "…"},
		{"bytes empty", []byte{}, `[]byte (0 bytes) ""`},
		{"png", png(1280, 800, 4096), "PNG 1280×800 (4096 bytes)"},
		{"png header only", png(16, 9, 24), "PNG 16×9 (24 bytes)"},
		{"slice", []int{1, 2, 3}, "[1, 2, 3] (3 items)"},
		{"empty slice", []string{}, "[] (0 items)"},
		{"nil slice", []int(nil), "nil"},
		{"short array", [2]int{1, 2}, "[1, 2]"},
		{"long array", [5]int{1, 2, 3, 4, 5}, "[1, 2, 3, 4, 5] (5 items)"},
		{"map sorted", map[string]int{"b": 2, "a": 1, "c": 3}, `{"a": 1, "b": 2, "c": 3} (3 entries)`},
		{"map int keys numeric order", map[int]bool{10: true, 2: false, -1: true}, "{-1: true, 2: false, 10: true} (3 entries)"},
		{"map float keys", map[float64]int{2.5: 1, -1: 2}, "{-1: 2, 2.5: 1} (2 entries)"},
		{"nil map", map[string]int(nil), "nil"},
		{"empty map", map[string]int{}, "{} (0 entries)"},
		{"struct", point{1, 2}, "point{X: 1, Y: 2}"},
		{"struct unexported", withHidden{Name: "n", secret: "s", count: 3, tags: []string{"a"}},
			`withHidden{Name: "n"}`},
		{"anonymous struct", struct{ A string }{"x"}, `struct{A: "x"}`},
		{"empty struct", struct{}{}, "struct{}"},
		{"pointer", &point{1, 2}, "&point{X: 1, Y: 2}"},
		{"nil pointer", nilPoint, "nil"},
		{"pointer to pointer", func() any { p := &point{}; return &p }(), "&&point{X: 0, Y: 0}"},
		{"error", errors.New("boom"), "error: boom"},
		{"wrapped error", fmt.Errorf("open: %w", errors.New("denied")), "error: open: denied"},
		{"nil error", nilErr, "nil"},
		{"stringer", 1500 * time.Millisecond, "1.5s"},
		{"time", time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), "2024-05-01 12:00:00 +0000 UTC"},
		{"previewer", &browserish{url: "https://example.com"}, "Browser at https://example.com (limit 300)"},
		{"stringer nil receiver", nilStr, "nil"},
		{"stringer nil receiver in slice", []*nilStringer{nil, {s: "x"}}, "[nil, stringer x] (2 items)"},
		{"stringer that panics", brokenStringer{N: 7}, "brokenStringer{N: 7}"},
		{"stringer in fields", stringerField{D: time.Second, e: time.Minute}, "stringerField{D: 1s}"},
		{"any slice", []any{nil, 1, "a", nilPoint}, `[nil, 1, "a", nil] (4 items)`},
		{"chan", make(chan int), "chan int"},
		{"nil chan", (chan int)(nil), "nil"},
		{"func", func(int) error { return nil }, "func(int) error"},
		{"nested depth bound", [][][][][][][]int{{{{{{{1}}}}}}}, "[[[[[[…] (1 item)] (1 item)] (1 item)] (1 item)] (1 item)] (1 item)"},
		{"cycle", cyclic, "&node{Val: 1, Next: &node{Val: 1, Next: &node{Val: …, Next: …}}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := variable.Preview(tt.v, 0); got != tt.want {
				t.Errorf("Preview(%#v) =\n\t%s\nwant\n\t%s", tt.v, got, tt.want)
			}
		})
	}
}

func TestPreviewLongString(t *testing.T) {
	s := strings.Repeat("a", 1000)
	for _, limit := range []int{0, 40, 100, 300} {
		got := variable.Preview(s, limit)
		want := limit
		if want == 0 {
			want = variable.DefaultPreviewLimit
		}
		if n := utf8.RuneCountInString(got); n > want {
			t.Errorf("limit %d: %d characters: %q", limit, n, got)
		}
		if !strings.HasPrefix(got, `aaaa`) || !strings.HasSuffix(got, `a… (1000 chars)`) {
			t.Errorf("limit %d: Preview = %q, want the head, unquoted, and the length", limit, got)
		}
	}
	// Escapes make the literal longer than the text: it must still fit.
	got := variable.Preview(strings.Repeat("\x01", 500), 100)
	if n := utf8.RuneCountInString(got); n > 100 || !strings.HasPrefix(got, `"\x01\x01`) || !strings.HasSuffix(got, "… (500 chars)") {
		t.Errorf("Preview of control characters = %q (%d chars)", got, n)
	}
	// Characters, not bytes, are counted.
	got = variable.Preview(strings.Repeat("é", 1000), 50)
	if n := utf8.RuneCountInString(got); n > 50 || !strings.HasSuffix(got, "… (1000 chars)") {
		t.Errorf("Preview of é×1000 = %q (%d chars)", got, n)
	}
	// Inside another value a string gets at most 60 characters.
	got = variable.Preview([]string{strings.Repeat("b", 200)}, 0)
	if n := strings.Count(got, "b"); n > 60 || !strings.Contains(got, "… (200 chars)") || !strings.HasSuffix(got, "] (1 item)") {
		t.Errorf("nested long string: %q", got)
	}
}

func TestPreviewLongContainersKeepCount(t *testing.T) {
	big := make([]int, 10000)
	m := map[int]string{}
	for i := range 500 {
		m[i] = "value"
	}
	tests := []struct {
		name string
		v    any
		tail string
	}{
		{"slice", big, "…] (10000 items)"},
		{"map", m, "…} (500 entries)"},
		{"array", [200]int{}, "…] (200 items)"},
		{"nested", [][]int{big, big}, "…] (2 items)"},
	}
	for _, tt := range tests {
		for _, limit := range []int{0, 40, 120} {
			got := variable.Preview(tt.v, limit)
			max := limit
			if max == 0 {
				max = variable.DefaultPreviewLimit
			}
			if n := utf8.RuneCountInString(got); n > max {
				t.Errorf("%s, limit %d: %d characters", tt.name, limit, n)
			}
			if !strings.HasSuffix(got, tt.tail) {
				t.Errorf("%s, limit %d: Preview = %q, want it to end in %q", tt.name, limit, got, tt.tail)
			}
		}
	}
	// The nested slice keeps its own count too when there is room.
	if got := variable.Preview([][]int{big, big}, 0); !strings.Contains(got, "] (10000 items)") {
		t.Errorf("nested: %q lost the inner count", got)
	}
}

func TestPreviewBytes(t *testing.T) {
	// A cut that falls inside a multi-byte character must not make text
	// look binary.
	text := []byte(strings.Repeat("é", 400))
	for _, limit := range []int{41, 42, 43, 299, 300} {
		got := variable.Preview(text, limit)
		if !strings.HasPrefix(got, `[]byte (800 bytes) "é`) {
			t.Errorf("limit %d: Preview = %q, want quoted text", limit, got)
		}
		if n := utf8.RuneCountInString(got); n > limit {
			t.Errorf("limit %d: %d characters", limit, n)
		}
		if strings.Contains(got, "chars") {
			t.Errorf("limit %d: %q counts the characters of a cut, not of the value", limit, got)
		}
	}
	// Tabs, newlines and carriage returns are text; other control bytes
	// are binary.
	if got := variable.Preview([]byte("a\tb\r\n"), 0); got != `[]byte (5 bytes) "a\tb\r\n"` {
		t.Errorf("Preview(text with whitespace) = %q", got)
	}
	if got := variable.Preview([]byte("a\x00b"), 0); got != "[]byte (3 bytes) 610062" {
		t.Errorf("Preview(text with NUL) = %q", got)
	}
	if got := variable.Preview([]byte{0xff, 0xfe}, 0); got != "[]byte (2 bytes) fffe" {
		t.Errorf("Preview(invalid UTF-8) = %q", got)
	}
	// Not quite a PNG: no IHDR chunk.
	notPNG := png(1, 1, 30)
	copy(notPNG[12:], "IDAT")
	if got := variable.Preview(notPNG, 0); strings.HasPrefix(got, "PNG") {
		t.Errorf("Preview(PNG signature without IHDR) = %q", got)
	}
}

func TestPreviewPreviewerGetsRemainingLimit(t *testing.T) {
	got := variable.Preview([]*browserish{{url: "u"}}, 100)
	// "[" has been written and "] (1 item)" is kept: the previewer is
	// offered what is left.
	var limit int
	if _, err := fmt.Sscanf(got, "[Browser at u (limit %d)] (1 item)", &limit); err != nil || limit <= 0 || limit > 99 {
		t.Errorf("Preview = %q, want the previewer offered at most 99 characters", got)
	}
	long := &browserish{url: strings.Repeat("x", 500)}
	if got := variable.Preview(long, 50); utf8.RuneCountInString(got) != 50 || !strings.HasSuffix(got, "…") {
		t.Errorf("long Previewer output not cut: %q", got)
	}
}

// randomValue builds a value of a random shape, depth at most depth.
func randomValue(r *rand.Rand, depth int) any {
	randString := func() string {
		var b strings.Builder
		for range r.IntN(120) {
			switch r.IntN(6) {
			case 0:
				b.WriteRune(rune(r.IntN(0x20))) // control
			case 1:
				b.WriteRune(rune(0x4e00 + r.IntN(500))) // CJK
			case 2:
				b.WriteByte(byte(0x80 + r.IntN(0x80))) // invalid UTF-8
			case 3:
				b.WriteRune('"')
			default:
				b.WriteRune(rune('a' + r.IntN(26)))
			}
		}
		return b.String()
	}
	k := r.IntN(12)
	if depth <= 0 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return r.Int64() - r.Int64()
	case 1:
		return r.Float64() * 1e10
	case 2:
		return randString()
	case 3:
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case 4:
		return r.IntN(2) == 0
	case 5:
		s := make([]any, r.IntN(50))
		for i := range s {
			s[i] = randomValue(r, depth-1)
		}
		return s
	case 6:
		m := map[string]any{}
		for range r.IntN(30) {
			m[randString()] = randomValue(r, depth-1)
		}
		return m
	case 7:
		return &withHidden{Name: randString(), secret: randString(), count: r.IntN(100)}
	case 8:
		return struct {
			A any
			B []string
		}{randomValue(r, depth-1), []string{randString(), randString()}}
	case 9:
		return errors.New(randString())
	case 10:
		return &browserish{url: randString()}
	default:
		return map[int][]any{r.IntN(10): {randomValue(r, depth-1)}}
	}
}

func TestPreviewRespectsLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		v := randomValue(r, 3)
		limit := 1 + r.IntN(400)
		if i%10 == 0 {
			limit = 0
		}
		got := variable.Preview(v, limit)
		max := limit
		if max == 0 {
			max = variable.DefaultPreviewLimit
		}
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("value %d: Preview(limit %d) has %d characters: %q", i, limit, n, got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("value %d: Preview is not valid UTF-8: %q", i, got)
		}
		if got == "" {
			t.Fatalf("value %d: empty preview of %#v", i, v)
		}
		if again := variable.Preview(v, limit); again != got {
			t.Fatalf("value %d: Preview is not deterministic:\n%q\n%q", i, got, again)
		}
	}
}

type benchRecord struct {
	ID      int
	Name    string
	Email   string
	Tags    []string
	Scores  map[string]float64
	Created time.Time
	Parent  *benchRecord
}

func BenchmarkPreviewStruct(b *testing.B) {
	v := &benchRecord{
		ID: 42, Name: "Ada Lovelace", Email: "ada@example.com",
		Tags:    []string{"math", "engines", "poetry"},
		Scores:  map[string]float64{"analysis": 9.5, "notes": 10},
		Created: time.Date(1843, 7, 1, 0, 0, 0, 0, time.UTC),
		Parent:  &benchRecord{ID: 1, Name: "Byron"},
	}
	b.ReportAllocs()
	for b.Loop() {
		variable.Preview(v, 0)
	}
}

func BenchmarkPreviewSlice10k(b *testing.B) {
	v := make([]point, 10000)
	for i := range v {
		v[i] = point{i, -i}
	}
	b.ReportAllocs()
	for b.Loop() {
		variable.Preview(v, 0)
	}
}

type tableRow struct {
	ID    int
	Name  string
	Price float64
	note  string
}

// A slice of structs reads as a table: the row count, the columns with
// their types, and whole rows only.
func TestPreviewTable(t *testing.T) {
	rows := make([]tableRow, 1000)
	for i := range rows {
		rows[i] = tableRow{ID: i + 1, Name: fmt.Sprint("Item ", i+1), Price: float64(i) / 4, note: "hidden"}
	}
	got := variable.Preview(rows, 0)
	if !strings.HasPrefix(got, "1000 rows × 3 columns (ID int, Name string, Price float64); first rows: {1, \"Item 1\", 0}, ") {
		t.Fatalf("Preview = %q", got)
	}
	if !strings.HasSuffix(got, "}, …") || utf8.RuneCountInString(got) > variable.DefaultPreviewLimit || strings.Contains(got, "hidden") {
		t.Fatalf("rows are not cut cleanly: %q", got)
	}
	if strings.Count(got, "{") != strings.Count(got, "}") {
		t.Fatalf("a row is cut in the middle: %q", got)
	}
	ptrs := []*tableRow{{ID: 7, Name: "Pear"}}
	if got := variable.Preview(ptrs, 0); got != `1 row × 3 columns (ID int, Name string, Price float64); the row: {7, "Pear", 0}` {
		t.Fatalf("Preview(pointers) = %q", got)
	}
	wide := []tableRow{{Name: strings.Repeat("w", 500)}}
	if got := variable.Preview(wide, 80); strings.Contains(got, "www") || !strings.HasPrefix(got, "1 row × 3 columns") {
		t.Fatalf("Preview(a row too wide) = %q", got)
	}
	cells := [][]string{{"a", "b"}, {"c", "d"}}
	if got := variable.Preview(cells, 0); got != `[["a", "b"], ["c", "d"]] (2 items)` {
		t.Fatalf("Preview(rows of cells) = %q", got)
	}
	if got := variable.Preview([]int{1}, 0); got != "[1] (1 item)" {
		t.Fatalf("Preview([]int{1}) = %q", got)
	}
}

// forecast is a typical small result: a struct holding a short slice.
type forecast struct {
	Location string
	Unit     string
	Days     int
	Temps    []float64
}

func BenchmarkPreviewSmallStruct(b *testing.B) {
	v := forecast{Location: "Paris", Unit: "c", Days: 3, Temps: []float64{18.5, 19, 21.25}}
	if got, want := variable.Preview(v, 0), `forecast{Location: "Paris", Unit: "c", Days: 3, Temps: [18.5, 19, 21.25]}`; got != want {
		b.Fatalf("Preview = %q, want %q", got, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		variable.Preview(v, 0)
	}
}
