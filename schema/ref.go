package schema

import (
	"go/token"
	"strings"
)

// The form of a reference: RefPrefix, a variable's name, RefSuffix.
const (
	RefPrefix = "<<var:"
	RefSuffix = ">>"
)

// Ref returns the reference to the variable name: <<var:name>>.
func Ref(name string) string { return RefPrefix + name + RefSuffix }

// ParseRef returns NAME when s is exactly <<var:NAME>> with NAME a Go
// identifier: no spaces, no other case, no text around it. It is the one
// parser of references in byref.
func ParseRef(s string) (name string, ok bool) {
	if len(s) <= len(RefPrefix)+len(RefSuffix) || !strings.HasPrefix(s, RefPrefix) || !strings.HasSuffix(s, RefSuffix) {
		return "", false
	}
	name = s[len(RefPrefix) : len(s)-len(RefSuffix)]
	if !token.IsIdentifier(name) {
		return "", false
	}
	return name, true
}

// ResemblesRef reports whether s looks like a reference without being
// exactly one (ParseRef fails): other letter case or spaces (<<VAR:x>>,
// << var:x >>), other brackets or prefixes ({{var:x}}, [[var:x]], <var:x>,
// <<ref:x>>, <<x>>), text around one, or two in one string. Such a string
// passed where a reference could go is refused rather than taken as text.
func ResemblesRef(s string) bool {
	if _, exact := ParseRef(s); exact {
		return false
	}
	// <<…>> around an identifier, with or without a prefix and a colon.
	for rest := s; ; {
		i := strings.Index(rest, "<<")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		j := strings.Index(rest, ">>")
		if j < 0 {
			break
		}
		if refBody(rest[:j]) {
			return true
		}
	}
	// var: after an opening bracket, in any case, spaces allowed.
	lower := strings.ToLower(s)
	for off := 0; ; {
		i := strings.Index(lower[off:], "var")
		if i < 0 {
			return false
		}
		i += off
		off = i + 3
		after := strings.TrimLeft(lower[off:], " \t")
		if !strings.HasPrefix(after, ":") {
			continue
		}
		before := strings.TrimRight(lower[:i], " \t")
		if before != "" && strings.ContainsRune("<{[($@", rune(before[len(before)-1])) {
			return true
		}
	}
}

// refBody reports whether the text between << and >> is a name, with or
// without a prefix and a colon, and spaces around them.
func refBody(b string) bool {
	b = strings.TrimSpace(b)
	if b == "" {
		return false
	}
	prefix, name, colon := strings.Cut(b, ":")
	if !colon {
		return isWord(b)
	}
	prefix, name = strings.TrimSpace(prefix), strings.TrimSpace(name)
	return isWord(prefix) && (name == "" || isWord(name))
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
