package agent

import (
	"bytes"
	"encoding/json"
	"errors"
)

// field is one member of a call's arguments object.
type field struct {
	key []byte // unescaped
	raw json.RawMessage
}

// fields are the members of an arguments object in the order sent; calls
// have a handful, so a slice searched linearly beats a map.
type fields []field

func (fs fields) get(key string) (json.RawMessage, bool) {
	for i := range fs {
		if string(fs[i].key) == key {
			return fs[i].raw, true
		}
	}
	return nil, false
}

// duplicate returns a key that appears more than once: calls with one are
// refused (encoding/json would let the last one win silently).
func (fs fields) duplicate() (string, bool) {
	for i := 1; i < len(fs); i++ {
		for j := 0; j < i; j++ {
			if bytes.Equal(fs[i].key, fs[j].key) {
				return string(fs[i].key), true
			}
		}
	}
	return "", false
}

var errNotObject = errors.New("it is not an object")

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

// splitObject checks that text is one JSON object and splits it into its
// members without decoding the values, in one pass over the text; fs is
// reused for the result. Invalid JSON is refused with encoding/json's
// message.
func splitObject(text []byte, fs fields) (fields, error) {
	fs = fs[:0]
	i := skipSpace(text, 0)
	if i == len(text) || text[i] != '{' {
		if end := scanValue(text, i, 1); end < 0 || skipSpace(text, end) != len(text) {
			return nil, invalidJSON(text)
		}
		if text[i] == 'n' {
			return nil, errors.New("it is null")
		}
		return nil, errNotObject
	}
	i = skipSpace(text, i+1)
	if i < len(text) && text[i] == '}' {
		if skipSpace(text, i+1) != len(text) {
			return nil, invalidJSON(text)
		}
		return fs, nil
	}
	for {
		if i == len(text) || text[i] != '"' {
			return nil, invalidJSON(text)
		}
		end := scanString(text, i)
		if end < 0 {
			return nil, invalidJSON(text)
		}
		k := text[i+1 : end-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			var esc string
			if err := json.Unmarshal(text[i:end], &esc); err != nil {
				return nil, err
			}
			k = []byte(esc)
		}
		i = skipSpace(text, end)
		if i == len(text) || text[i] != ':' {
			return nil, invalidJSON(text)
		}
		i = skipSpace(text, i+1)
		vEnd := scanValue(text, i, 2)
		if vEnd < 0 {
			return nil, invalidJSON(text)
		}
		fs = append(fs, field{key: k, raw: text[i:vEnd]})
		i = skipSpace(text, vEnd)
		if i == len(text) {
			return nil, invalidJSON(text)
		}
		if text[i] == '}' {
			if skipSpace(text, i+1) != len(text) {
				return nil, invalidJSON(text)
			}
			return fs, nil
		}
		if text[i] != ',' {
			return nil, invalidJSON(text)
		}
		i = skipSpace(text, i+1)
	}
}

// invalidJSON is encoding/json's error for text, which says where and why
// it is not JSON.
func invalidJSON(text []byte) error {
	var v any
	err := json.Unmarshal(text, &v)
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return err
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the index just past the JSON value starting at b[i],
// at nesting depth depth (the top level is 1), or -1 when there is none:
// what encoding/json accepts, checked in one pass.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return scanString(b, i)
	case '{', '[':
		if depth > maxDepth {
			return -1
		}
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closing {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i = scanString(b, i); i < 0 {
					return -1
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return -1
				}
				i = skipSpace(b, i+1)
			}
			if i = scanValue(b, i, depth+1); i < 0 {
				return -1
			}
			if i = skipSpace(b, i); i >= len(b) {
				return -1
			}
			switch b[i] {
			case closing:
				return i + 1
			case ',':
				i = skipSpace(b, i+1)
			default:
				return -1
			}
		}
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	return scanNumber(b, i)
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// scanString returns the index just past the JSON string starting at
// b[i] == '"', or -1 when it is not one.
func scanString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1
		case c == '\\':
			j++
			if j == len(b) {
				return -1
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) {
					return -1
				}
				for _, h := range b[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				j += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// scanNumber returns the index just past the JSON number starting at b[i],
// or -1 when there is none.
func scanNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// unquote decodes a JSON string, without allocating more than the result
// when it has no escapes.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
