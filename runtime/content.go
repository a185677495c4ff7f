package runtime

import (
	"unicode/utf8"
)

// appendContent appends the JSON of a tool response without a result, as
// marshal(toolContent{…}) writes it: fields in order, empty ones left out,
// no HTML escaping.
func appendContent(b []byte, success bool, errText, stdout, stderr string, vars []VariableChange) []byte {
	if success {
		b = append(b, `{"success":true`...)
	} else {
		b = append(b, `{"success":false`...)
	}
	for _, f := range [...]struct{ key, value string }{{`,"error":`, errText}, {`,"stdout":`, stdout}, {`,"stderr":`, stderr}} {
		if f.value != "" {
			b = append(b, f.key...)
			b = appendJSONString(b, f.value)
		}
	}
	if len(vars) > 0 {
		b = append(b, `,"variables":[`...)
		for i, v := range vars {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, v.Name)
			b = append(b, `,"type":`...)
			b = appendJSONString(b, v.Type)
			b = append(b, `,"preview":`...)
			b = appendJSONString(b, v.Preview)
			b = append(b, `,"change":`...)
			b = appendJSONString(b, v.Change)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

const hex = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping off: control characters, quotes and backslashes
// escaped, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
