package action_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/schema"
)

// Min, Max, MinLength, MaxLength and Pattern reach the schema the model
// sees and are checked on the fast path, with messages that say the range.
func TestParamBounds(t *testing.T) {
	a := action.MustNew(action.Spec{
		Name: "forecast",
		Func: func(city string, days int, ratio float64) string { return city },
		Params: []action.Param{
			{Name: "city", MinLength: 2, MaxLength: 5, Pattern: "^[A-Z]"},
			{Name: "days", Min: 1, Max: 7},
			{Name: "ratio", Min: 0.5},
		},
	})
	var days map[string]any
	if err := json.Unmarshal(a.Param(1).Raw, &days); err != nil || days["minimum"] != 1.0 || days["maximum"] != 7.0 {
		t.Fatalf("days schema = %s", a.Param(1).Raw)
	}
	var city map[string]any
	if err := json.Unmarshal(a.Param(0).Raw, &city); err != nil || city["minLength"] != 2.0 || city["maxLength"] != 5.0 || city["pattern"] != "^[A-Z]" {
		t.Fatalf("city schema = %s", a.Param(0).Raw)
	}
	for _, c := range []struct {
		i    int
		raw  string
		want string
	}{
		{1, `0`, "out of range, want 1 to 7"},
		{1, `8`, "out of range, want 1 to 7"},
		{2, `0.25`, "want at least 0.5"},
		{0, `"P"`, "has 1 characters, want 2 to 5"},
		{0, `"Parisss"`, "want 2 to 5"},
		{0, `"paris"`, "does not match the pattern ^[A-Z]"},
	} {
		_, err := a.Decode(c.i, json.RawMessage(c.raw))
		if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s) = %v, want %q", c.raw, err, c.want)
		}
		// The compiled schema agrees.
		if err := a.ValidateRaw(c.i, json.RawMessage(c.raw)); err == nil {
			t.Errorf("the schema accepts %s", c.raw)
		}
	}
	for i, raw := range []string{`"Paris"`, `7`, `0.5`} {
		if _, err := a.Decode(i, json.RawMessage(raw)); err != nil {
			t.Errorf("Decode(%s): %v", raw, err)
		}
	}
}

func TestParamBoundsRefusedOnTheWrongType(t *testing.T) {
	for _, p := range []action.Param{
		{Name: "s", Min: 1},
		{Name: "n", Pattern: "x"},
		{Name: "n", Min: 5, Max: 1},
		{Name: "s", Pattern: "("},
		{Name: "n", Min: "one"},
	} {
		fn := any(func(n int) {})
		if p.Name == "s" {
			fn = func(s string) {}
		}
		if _, err := action.New(action.Spec{Name: "x", Func: fn, Params: []action.Param{p}}); err == nil {
			t.Errorf("%+v was accepted", p)
		}
	}
}
