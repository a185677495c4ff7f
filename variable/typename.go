package variable

import (
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// TypeName formats a type the way byref shows it to the model: Go syntax,
// with package names but not import paths. A type of the host's own
// packages is qualified by [PackageQualifier], which is also the name a
// snippet writes it under: two host packages that share a name, or a host
// package named like a standard package a snippet may import, get
// distinct names (model, model2; time2). A generic type is shown with its
// type arguments named the same way (shop.Page[shop.Item]).
func TypeName(t reflect.Type) string {
	if t == nil || t == anyType {
		return "any"
	}
	if s := t.String(); !mentionsHost(t, 0) && !strings.Contains(s, identityTagKey) {
		return s
	}
	var b strings.Builder
	writeType(&b, t)
	return b.String()
}

// identityTagKey is the struct tag key by which the snippet interpreter
// tells two declared struct types with the same fields apart (on the first
// field of each, `byreftype:"main.Row"`). It is not the model's to read,
// so TypeName leaves it out.
const identityTagKey = "byreftype:"

// withoutIdentity returns tag without its identityTagKey entry.
func withoutIdentity(tag reflect.StructTag) string {
	s := string(tag)
	i := strings.Index(s, identityTagKey)
	if i < 0 || i > 0 && s[i-1] != ' ' {
		return s
	}
	if _, ok := tag.Lookup(strings.TrimSuffix(identityTagKey, ":")); !ok {
		return s
	}
	rest := s[i+len(identityTagKey):]
	if v, err := strconv.QuotedPrefix(rest); err == nil {
		rest = rest[len(v):]
	}
	return strings.TrimSpace(s[:i] + strings.TrimPrefix(rest, " "))
}

// identityOnly reports whether t is the snippet interpreter's struct type
// of a declared type without fields: one blank struct{} field carrying the
// identityTagKey. It reads as struct {}.
func identityOnly(t reflect.Type) bool {
	if t.NumField() != 1 {
		return false
	}
	f := t.Field(0)
	return f.Name == "_" && f.Type == reflect.TypeFor[struct{}]() && f.Tag != "" && withoutIdentity(f.Tag) == ""
}

// mentionsHost reports whether t names a type of a host package anywhere
// (depth-bounded: a deeper type is printed as reflect prints it).
func mentionsHost(t reflect.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	if t.Name() != "" {
		return t.PkgPath() != "" && (hostPackage(t.PkgPath()) || strings.Contains(t.Name(), "["))
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return mentionsHost(t.Elem(), depth+1)
	case reflect.Map:
		return mentionsHost(t.Key(), depth+1) || mentionsHost(t.Elem(), depth+1)
	case reflect.Func:
		for i := range t.NumIn() {
			if mentionsHost(t.In(i), depth+1) {
				return true
			}
		}
		for i := range t.NumOut() {
			if mentionsHost(t.Out(i), depth+1) {
				return true
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if mentionsHost(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

func writeType(b *strings.Builder, t reflect.Type) {
	if t.Name() != "" {
		if t.PkgPath() == "" || !hostPackage(t.PkgPath()) && !strings.Contains(t.Name(), "[") {
			b.WriteString(t.String())
			return
		}
		b.WriteString(PackageQualifier(t.PkgPath(), declaredPackageName(t)))
		b.WriteByte('.')
		b.WriteString(typeArgs(t.Name()))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		b.WriteByte('*')
		writeType(b, t.Elem())
	case reflect.Slice:
		b.WriteString("[]")
		writeType(b, t.Elem())
	case reflect.Array:
		b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		writeType(b, t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			b.WriteString("<-chan ")
		case reflect.SendDir:
			b.WriteString("chan<- ")
		default:
			b.WriteString("chan ")
		}
		writeType(b, t.Elem())
	case reflect.Map:
		b.WriteString("map[")
		writeType(b, t.Key())
		b.WriteByte(']')
		writeType(b, t.Elem())
	case reflect.Func:
		b.WriteString("func(")
		for i := range t.NumIn() {
			if i > 0 {
				b.WriteString(", ")
			}
			if t.IsVariadic() && i == t.NumIn()-1 {
				b.WriteString("...")
				writeType(b, t.In(i).Elem())
				continue
			}
			writeType(b, t.In(i))
		}
		b.WriteByte(')')
		switch t.NumOut() {
		case 0:
		case 1:
			b.WriteByte(' ')
			writeType(b, t.Out(0))
		default:
			b.WriteString(" (")
			for i := range t.NumOut() {
				if i > 0 {
					b.WriteString(", ")
				}
				writeType(b, t.Out(i))
			}
			b.WriteByte(')')
		}
	case reflect.Struct:
		if identityOnly(t) {
			b.WriteString("struct {}")
			return
		}
		b.WriteString("struct {")
		for i := range t.NumField() {
			f := t.Field(i)
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteByte(' ')
			if !f.Anonymous {
				b.WriteString(f.Name + " ")
			}
			writeType(b, f.Type)
			if tag := withoutIdentity(f.Tag); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		if t.NumField() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	default:
		b.WriteString(t.String())
	}
}

// typeArgs rewrites the import paths reflect puts in a generic type's
// arguments (Page[example.com/shop.Item]) to qualifiers (Page[shop.Item]).
func typeArgs(name string) string {
	open := strings.IndexByte(name, '[')
	if open < 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(name[:open])
	rest := name[open:]
	for len(rest) > 0 {
		// An argument's qualified name: a run of path characters ending
		// in a dot, then the type's name.
		i := strings.IndexFunc(rest, isPathRune)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return !isPathRune(r) })
		if j < 0 {
			j = len(rest)
		}
		word := rest[:j]
		rest = rest[j:]
		if dot := strings.LastIndexByte(word, '.'); dot > 0 && strings.ContainsRune(word[:dot], '/') || dot > 0 && hostPackage(word[:dot]) {
			p := word[:dot]
			b.WriteString(PackageQualifier(p, defaultPackageName(p)) + word[dot:])
			continue
		}
		b.WriteString(word)
	}
	return b.String()
}

func isPathRune(r rune) bool {
	return r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// hostPackage reports whether an import path is one of the host's own
// packages: its package main, or one whose first element has a dot (a
// module path), not the standard library.
func hostPackage(p string) bool {
	if p == "main" {
		return true
	}
	first, _, _ := strings.Cut(p, "/")
	return strings.Contains(first, ".")
}

// declaredPackageName is the name of the package that declares t, as
// reflect prints it.
func declaredPackageName(t reflect.Type) string {
	s := t.String()
	if i := strings.IndexByte(s, '.'); i > 0 && !strings.ContainsAny(s[:i], "[*") {
		return s[:i]
	}
	return defaultPackageName(t.PkgPath())
}

// defaultPackageName guesses a package's name from its import path: the
// last element, without a major version suffix.
func defaultPackageName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return strings.ReplaceAll(base, "-", "_")
}

// reservedQualifiers are names a host package is never shown under: the
// standard packages a snippet may import without an import (the
// interpreter's allow-list, checked by a test there) and os, whose
// Stdout and Stderr snippets write to.
var reservedQualifiers = map[string]bool{
	"base64": true, "bits": true, "bufio": true, "bytes": true, "cmp": true, "cmplx": true,
	"crc32": true, "csv": true, "errors": true, "fmt": true, "fnv": true, "heap": true,
	"hex": true, "html": true, "json": true, "list": true, "maps": true, "math": true,
	"md5": true, "path": true, "rand": true, "regexp": true, "ring": true, "sha1": true,
	"sha256": true, "sha512": true, "slices": true, "sort": true, "strconv": true,
	"strings": true, "tabwriter": true, "time": true, "unicode": true, "utf16": true,
	"utf8": true, "xml": true, "os": true,
}

// qualifiers holds the name each host package is shown under, for the
// life of the process, so every prompt, message and snippet agrees.
var qualifiers struct {
	sync.Mutex
	byPath map[string]string
	taken  map[string]bool
}

// PackageQualifier returns the name byref shows and snippets write for
// the host package at import path p, whose declared name is name: name
// itself, unless a package seen earlier in this process took it or it is
// a standard package a snippet may use (time, errors, json, ...); then
// name2, name3, and so on, in the order packages are first seen. The
// host's package main is always main (a program has one; its path is
// "main", or its import path in a test binary). A path outside the host's packages
// (the standard library) keeps name.
func PackageQualifier(p, name string) string {
	if p == "main" || name == "main" || !hostPackage(p) {
		return name
	}
	qualifiers.Lock()
	defer qualifiers.Unlock()
	if q, ok := qualifiers.byPath[p]; ok {
		return q
	}
	if qualifiers.byPath == nil {
		qualifiers.byPath = map[string]string{}
		qualifiers.taken = map[string]bool{"main": true}
	}
	q := name
	for n := 2; reservedQualifiers[q] || qualifiers.taken[q]; n++ {
		q = name + strconv.Itoa(n)
	}
	qualifiers.byPath[p] = q
	qualifiers.taken[q] = true
	return q
}
