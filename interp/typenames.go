package interp

import (
	"strings"
	"unicode/utf8"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// %T of a value of a snippet's type names the type as compiled Go does
// (main.T, []main.T), not the type reflect built for it (struct { A int },
// int). fmt formats %T from reflect alone, so the interpreter hands the
// formatting functions below each argument whose name differs in a
// yaegi.TypeNamed, and typeNames formats %T from the name.

// formatsTypes are the printing functions that take type names, by
// symbol table key and name.
var formatsTypes = map[string]bool{
	"fmt/fmt.Sprintf": true, "fmt/fmt.Fprintf": true, "fmt/fmt.Errorf": true, "fmt/fmt.Appendf": true,
}

// typeNames returns format and args for fmt: each yaegi.TypeNamed argument
// replaced by its value, or by its type name where %T verbs alone format
// it (the verbs then become %s, with their flags, width and precision; an
// argument that other verbs format too keeps reflect's name for %T).
func typeNames(format string, args []any) (string, []any) {
	named := false
	for _, a := range args {
		if _, ok := a.(yaegi.TypeNamed); ok {
			named = true
			break
		}
	}
	if !named {
		return format, args
	}
	verbs := scanVerbs(format)
	byT := make([]bool, len(args))
	byOther := make([]bool, len(args))
	for _, v := range verbs {
		if v.arg < 0 || v.arg >= len(args) {
			continue
		}
		if v.verb == 'T' {
			byT[v.arg] = true
		} else {
			byOther[v.arg] = true
		}
	}
	out := make([]any, len(args))
	var b strings.Builder
	last := 0
	for _, v := range verbs {
		if v.verb != 'T' || v.arg < 0 || v.arg >= len(args) || byOther[v.arg] {
			continue
		}
		if _, ok := args[v.arg].(yaegi.TypeNamed); !ok {
			continue
		}
		b.WriteString(format[last:v.at])
		b.WriteByte('s')
		last = v.at + 1
	}
	for j, a := range args {
		out[j] = a
		if tn, ok := a.(yaegi.TypeNamed); ok {
			out[j] = tn.Value
			if byT[j] && !byOther[j] {
				out[j] = tn.Type
			}
		}
	}
	if last == 0 {
		return format, out
	}
	b.WriteString(format[last:])
	return b.String(), out
}

// fmtVerb is a verb of a format: the argument it formats (from 0) and the
// offset of its letter.
type fmtVerb struct {
	verb rune
	arg  int
	at   int
}

// scanVerbs returns the verbs of format as fmt reads them: flags, an
// argument index, a width and a precision (a * takes an argument) before
// each verb; %% takes none.
func scanVerbs(format string) []fmtVerb {
	var verbs []fmtVerb
	argNum := 0
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
	spec:
		for i < len(format) {
			switch c := format[i]; {
			case c == '[':
				end := strings.IndexByte(format[i:], ']')
				if end < 0 {
					i = len(format)
					break spec
				}
				if n, ok := atoi(format[i+1 : i+end]); ok {
					argNum = n - 1
				}
				i += end + 1
			case c == '*':
				argNum++
				i++
			case c == '.' || c >= '0' && c <= '9':
				i++
			default:
				break spec
			}
		}
		if i >= len(format) {
			break
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		if verb != '%' {
			verbs = append(verbs, fmtVerb{verb, argNum, i})
			argNum++
		}
		i += size
	}
	return verbs
}

// atoi parses a small decimal number.
func atoi(s string) (int, bool) {
	n := 0
	if s == "" || len(s) > 6 {
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
