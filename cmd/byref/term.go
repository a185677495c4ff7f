package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// term makes text from a run (model output, tool output, code to approve)
// safe to print to a terminal: control characters other than newline and
// tab (C0, DEL and C1: escape sequences, carriage returns, backspaces),
// and the Unicode controls that reorder text (bidirectional overrides and
// isolates), become \uXXXX escapes, and bytes that are not UTF-8 become
// \xNN; so that a snippet cannot move the cursor, erase lines of the code
// the user is asked to approve, or show its characters out of order.
func term(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether term escapes r.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // bidirectional marks
		r >= 0x202a && r <= 0x202e, // embeddings and overrides
		r >= 0x2066 && r <= 0x2069: // isolates
		return true
	}
	return false
}
