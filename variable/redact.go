package variable

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
)

// MinRedactable is the shortest secret text a Redactor hides: shorter
// values ("", "1", "abc") would mask ordinary text everywhere and reveal
// more than they hide.
const MinRedactable = 4

// Redactor replaces the texts of secrets, and their common encodings, in
// text bound for the model or a log. It is the second line of defence
// behind taint tracking (see the package documentation): it catches a
// secret that reached a text by a path the runtime did not see, as long as
// it is spelled in one of these ways:
//
//   - exactly, or in other letter case (ASCII case folding: "S3CRET",
//     "s3cret");
//   - base64, standard or URL alphabet, padded or not, also when the
//     secret sits inside a longer encoded text (all three alignments);
//   - hexadecimal, lower or upper case;
//   - URL-encoded (query or path escaping).
//
// Other transformations (reversing, slicing, another encoding, a hash)
// get through: that is what taint tracking is for.
//
// The zero Redactor hides nothing. A Redactor is immutable once built and
// safe for concurrent use.
type Redactor struct {
	// forms are the texts to hide, longest first, each with its mask.
	forms []form
}

type form struct {
	text string // what to look for; lower-cased when fold is set
	mask string
	fold bool // match ASCII case-insensitively
}

// NewRedactor returns a Redactor for the given secrets: each maps a secret's
// text to the mask that replaces it (e.g. Redacted(t)). Texts shorter than
// MinRedactable are ignored.
func NewRedactor(secrets map[string]string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(text, mask string, fold bool) {
		if len(text) < MinRedactable {
			return
		}
		if fold {
			text = asciiLower(text)
		}
		key := text
		if fold {
			key = "\x00" + key
		}
		if seen[key] {
			return
		}
		seen[key] = true
		r.forms = append(r.forms, form{text: text, mask: mask, fold: fold})
	}
	for secret, mask := range secrets {
		if len(secret) < MinRedactable {
			continue
		}
		add(secret, mask, true)
		b := []byte(secret)
		add(hex.EncodeToString(b), mask, true)
		add(url.QueryEscape(secret), mask, true)
		add(url.PathEscape(secret), mask, true)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for _, s := range base64Cores(enc, b) {
				add(s, mask, false)
			}
		}
	}
	slices.SortFunc(r.forms, func(a, b form) int { return len(b.text) - len(a.text) })
	return r
}

// base64Cores returns the parts of the base64 encoding of b that appear in
// the encoding of any text containing b, at each of the three alignments
// b can have inside it: the encoded characters that depend on b's bytes
// alone.
func base64Cores(enc *base64.Encoding, b []byte) []string {
	raw := enc.WithPadding(base64.NoPadding)
	var out []string
	for shift := range 3 {
		// Prefix shift bytes of filler, so that b starts at that
		// alignment; drop the characters the filler touches, and the
		// last characters that the next, unknown bytes would change.
		padded := append(make([]byte, shift), b...)
		s := raw.EncodeToString(padded)
		start := 0
		if shift > 0 {
			start = (shift*8 + 5) / 6 // characters touched by the filler
		}
		end := (len(padded) * 8) / 6 // characters fully determined by these bytes
		if start < end {
			out = append(out, s[start:end])
		}
		if shift == 0 {
			out = append(out, enc.EncodeToString(b), raw.EncodeToString(b))
		}
	}
	return out
}

// Empty reports whether the Redactor hides nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.forms) == 0 }

// Redact returns text with every form of every secret replaced by its mask.
func (r *Redactor) Redact(text string) string {
	if r.Empty() || text == "" {
		return text
	}
	var lower string
	for _, f := range r.forms {
		if len(text) < len(f.text) {
			continue
		}
		if !f.fold {
			if strings.Contains(text, f.text) {
				text = strings.ReplaceAll(text, f.text, f.mask)
				lower = ""
			}
			continue
		}
		if lower == "" {
			lower = asciiLower(text)
		}
		if !strings.Contains(lower, f.text) {
			continue
		}
		// asciiLower keeps every byte's position, so indexes in lower
		// are indexes in text.
		var b strings.Builder
		for {
			i := strings.Index(lower, f.text)
			if i < 0 {
				b.WriteString(text)
				break
			}
			b.WriteString(text[:i])
			b.WriteString(f.mask)
			text, lower = text[i+len(f.text):], lower[i+len(f.text):]
		}
		text = b.String()
		lower = ""
	}
	return text
}

// Contains reports whether text holds any form of any secret.
func (r *Redactor) Contains(text string) bool {
	return r.Redact(text) != text
}

// asciiLower lower-cases the ASCII letters of s and keeps every other byte,
// so that byte offsets in the result are offsets in s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
