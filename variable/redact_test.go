package variable_test

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

func TestRedactorCatchesCommonEncodings(t *testing.T) {
	const pw = "hunter2-Tr0ub4dor&3"
	r := variable.NewRedactor(map[string]string{pw: "<secret string>"})
	b64 := func(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }
	cases := map[string]string{
		"exact":               "the password is " + pw + ".",
		"upper":               strings.ToUpper(pw),
		"lower":               "x" + strings.ToLower(pw) + "y",
		"hex":                 hex.EncodeToString([]byte(pw)),
		"HEX":                 strings.ToUpper(hex.EncodeToString([]byte(pw))),
		"query escape":        "q=" + url.QueryEscape(pw),
		"path escape":         "/p/" + url.PathEscape(pw),
		"base64":              b64(base64.StdEncoding, pw),
		"base64 raw url":      b64(base64.RawURLEncoding, pw),
		"base64 inside, +0":   b64(base64.StdEncoding, "abc"+pw+"tail"),
		"base64 inside, +1":   b64(base64.StdEncoding, "ab"+pw+"tail"),
		"base64 inside, +2":   b64(base64.StdEncoding, "a"+pw+"tail"),
		"base64 url inside":   b64(base64.URLEncoding, `{"password":"`+pw+`"}`),
		"base64 json, padded": b64(base64.StdEncoding, `{"p":"`+pw+`"}`),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			got := r.Redact(text)
			if !r.Contains(text) || got == text {
				t.Fatalf("Redact(%q) left it unchanged", text)
			}
			if strings.Contains(strings.ToLower(got), strings.ToLower(pw)) {
				t.Fatalf("Redact(%q) = %q still holds the secret", text, got)
			}
		})
	}
}

func TestRedactorLeavesOtherTextAlone(t *testing.T) {
	r := variable.NewRedactor(map[string]string{"hunter2-Tr0ub4dor&3": "<secret string>", "abc": "<secret string>"})
	for _, text := range []string{"", "hello world", "abc is too short to hide", "hunter2 alone", base64.StdEncoding.EncodeToString([]byte("an ordinary sentence"))} {
		if got := r.Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
	}
	var zero *variable.Redactor
	if !zero.Empty() || zero.Redact("x") != "x" {
		t.Error("the nil Redactor must hide nothing")
	}
}

func TestRedactorLongestFirst(t *testing.T) {
	r := variable.NewRedactor(map[string]string{"token": "<A>", "token-extended": "<B>"})
	if got := r.Redact("token-extended and token"); got != "<B> and <A>" {
		t.Fatalf("got %q", got)
	}
}

func BenchmarkRedact(b *testing.B) {
	r := variable.NewRedactor(map[string]string{"hunter2-Tr0ub4dor&3": "<secret string>", "sk-live-0123456789abcdef": "<secret string>"})
	text := strings.Repeat("an ordinary tool result of some length; ", 25)
	b.ReportAllocs()
	for b.Loop() {
		r.Redact(text)
	}
}
