package runtime

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

// splitObject splits the JSON text of an object into its members without
// decoding the values. The text must be valid JSON (checked here first).
func splitObject(text []byte) (fields, error) {
	if !json.Valid(text) {
		// Let encoding/json say where and why.
		var v any
		err := json.Unmarshal(text, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	i := skipSpace(text, 0)
	if text[i] != '{' {
		if text[i] == 'n' {
			return nil, errors.New("it is null")
		}
		return nil, errNotObject
	}
	fs := make(fields, 0, 4)
	i = skipSpace(text, i+1)
	if text[i] == '}' {
		return fs, nil
	}
	for {
		end := stringEnd(text, i)
		k := text[i+1 : end-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			var esc string
			if err := json.Unmarshal(text[i:end], &esc); err != nil {
				return nil, err
			}
			k = []byte(esc)
		}
		i = skipSpace(text, end)
		i = skipSpace(text, i+1) // ':'
		vEnd := valueEnd(text, i)
		fs = append(fs, field{key: k, raw: text[i:vEnd]})
		i = skipSpace(text, vEnd)
		if text[i] == '}' {
			return fs, nil
		}
		i = skipSpace(text, i+1) // ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the valid JSON value starting at i.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
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
