package action_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
)

// decodeOracle is what Decode must agree with: the value is valid against
// the parameter's schema and encoding/json decodes it.
func decodeOracle(a *action.Action, i int, raw json.RawMessage) (reflect.Value, bool) {
	if a.ValidateRaw(i, raw) != nil {
		return reflect.Value{}, false
	}
	p := reflect.New(a.Param(i).Type)
	if json.Unmarshal(raw, p.Interface()) != nil {
		return reflect.Value{}, false
	}
	return p.Elem(), true
}

// Decode's fast path for scalars must accept and refuse exactly what the
// general path (schema, then encoding/json) does.
func TestDecodeAgreesWithSchemaAndJSON(t *testing.T) {
	type Level int8
	a := action.MustNew(action.Spec{
		Name: "scalars",
		Func: func(s string, m Mode, b bool, i int, i8 int8, l Level, u uint8, u64 uint64, f32 float32, f64 float64, d time.Duration, e Mode, n int) {
		},
		Params: []action.Param{
			{Name: "s"}, {Name: "m"}, {Name: "b"}, {Name: "i"}, {Name: "i8"}, {Name: "l"}, {Name: "u"},
			{Name: "u64"}, {Name: "f32"}, {Name: "f64"}, {Name: "d"},
			{Name: "e", Enum: []any{"fast", "exact"}},
			{Name: "n", Enum: []any{1, 2, 3}},
		},
	})
	raws := []string{
		`""`, `"x"`, `"fast"`, `"exact"`, `"a\"b"`, `"\u00e9t\u00e9"`, `"été"`, `"tab\tnewline\n"`, `"\ud83c\udf89"`,
		`true`, `false`, `null`, `{}`, `[]`, `[1]`, `{"a":1}`,
		`0`, `-0`, `1`, `-1`, `2`, `3`, `4`, `127`, `128`, `-128`, `-129`, `255`, `256`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `18446744073709551615`, `18446744073709551616`,
		`1.0`, `1.5`, `-2.5`, `1e2`, `1E2`, `1e-7`, `3.4e38`, `3.5e38`, `1e308`, `1e309`, `-1e309`, `0.1`,
		`"1"`, `"true"`,
	}
	for i := 0; i < a.NumParams(); i++ {
		p := a.Param(i)
		for _, r := range raws {
			raw := json.RawMessage(r)
			got, err := a.Decode(i, raw)
			want, ok := decodeOracle(a, i, raw)
			switch {
			case ok && err != nil:
				t.Errorf("%s (%s): Decode(%s) = %v; schema and encoding/json accept it as %v", p.Name, p.Type, r, err, want)
			case !ok && err == nil:
				t.Errorf("%s (%s): Decode(%s) = %v; schema or encoding/json refuses it", p.Name, p.Type, r, got)
			case ok && !reflect.DeepEqual(got.Interface(), want.Interface()):
				t.Errorf("%s (%s): Decode(%s) = %#v, encoding/json gives %#v", p.Name, p.Type, r, got.Interface(), want.Interface())
			case err != nil && !errors.Is(err, schema.ErrInvalid):
				t.Errorf("%s: Decode(%s) = %v, does not wrap schema.ErrInvalid", p.Name, r, err)
			}
			if err == nil && got.Type() != p.Type {
				t.Errorf("%s: Decode(%s) has type %v, want %v", p.Name, r, got.Type(), p.Type)
			}
		}
	}
}

func TestDecode(t *testing.T) {
	a := action.MustNew(action.Spec{
		Name: "a",
		Func: func(page Page, tags []string, n int8, mode Mode, r interface{ Read([]byte) (int, error) }) {},
		Params: []action.Param{
			{Name: "page"}, {Name: "tags"}, {Name: "n"}, {Name: "mode", Enum: []any{"fast", "exact"}}, {Name: "r"},
		},
	})
	v, err := a.Decode(0, json.RawMessage(`{"URL":"u","Title":"t"}`))
	if err != nil || v.Interface() != (Page{URL: "u", Title: "t"}) {
		t.Errorf("Decode(page) = %v, %v", v, err)
	}
	if _, err := a.Decode(0, json.RawMessage(`{"URL":"u"}`)); err == nil || !strings.Contains(err.Error(), "missing property 'Title'") {
		t.Errorf("Decode(incomplete page) = %v", err)
	}
	v, err = a.Decode(1, json.RawMessage(`["a","b"]`))
	if err != nil || !reflect.DeepEqual(v.Interface(), []string{"a", "b"}) {
		t.Errorf("Decode(tags) = %v, %v", v, err)
	}
	messages := []struct {
		i        int
		raw, msg string
	}{
		{2, `"3"`, "got a string, want an integer"},
		{2, `300`, "300 is out of range for int8"},
		{2, `1.5`, "1.5 is not an integer"},
		{3, `"slow"`, `"slow" is not one of ["fast","exact"]`},
		{3, `3`, "got a number, want a string"},
		{4, `{}`, "r takes a reference only"},
	}
	for _, m := range messages {
		_, err := a.Decode(m.i, json.RawMessage(m.raw))
		if err == nil || !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), m.msg) {
			t.Errorf("Decode(%d, %s) = %v, want ErrInvalid saying %q", m.i, m.raw, err, m.msg)
		}
	}
}

func BenchmarkDecodeScalar(b *testing.B) {
	a := action.MustNew(action.Spec{Name: "a", Func: func(string, int) {}, Params: []action.Param{{Name: "s"}, {Name: "n"}}})
	s, n := json.RawMessage(`"hello"`), json.RawMessage(`42`)
	b.ReportAllocs()
	for b.Loop() {
		a.Decode(0, s)
		a.Decode(1, n)
	}
}

// email validates itself when decoded.
type email string

func (e *email) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if !strings.Contains(s, "@") {
		return errors.New("not an email address")
	}
	*e = email(s)
	return nil
}

// Types that decode themselves, and parameters with their own schema, skip
// the scalar fast path: their checks run.
func TestDecodeHonoursTheTypesOwnChecks(t *testing.T) {
	a := action.MustNew(action.Spec{Name: "send", Func: func(to email, code string) {}, Params: []action.Param{
		{Name: "to"},
		{Name: "code", Schema: json.RawMessage(`{"type":"string","pattern":"^[A-Z]{3}$"}`)},
	}})
	if _, err := a.Decode(0, json.RawMessage(`"NOT-AN-EMAIL"`)); err == nil || !strings.Contains(err.Error(), "not an email") {
		t.Errorf("UnmarshalJSON was skipped: %v", err)
	}
	if _, err := a.Decode(1, json.RawMessage(`"abcd"`)); err == nil {
		t.Error("Param.Schema's pattern was skipped")
	}
	if v, err := a.Decode(1, json.RawMessage(`"ABC"`)); err != nil || v.String() != "ABC" {
		t.Errorf("decode = %v, %v", v, err)
	}
}
