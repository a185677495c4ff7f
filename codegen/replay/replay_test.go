package replay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/byref/byref/codegen/codegentest"
	"github.com/byref/byref/codegen/replay"
)

func TestFunc(t *testing.T) {
	set := codegentest.Actions()
	count, err := replay.Func[func(int) int](set, "count")
	if err != nil || count(2) != 2 || count(3) != 5 {
		t.Fatalf("count: %v", err)
	}
	if _, err := replay.Func[func(context.Context, int) int](set, "count"); !errors.Is(err, replay.ErrAction) {
		t.Errorf("wrong signature: err = %v, want ErrAction", err)
	}
	if _, err := replay.Func[func(int) int](set, "nope"); !errors.Is(err, replay.ErrAction) {
		t.Errorf("unknown action: err = %v", err)
	}
	if _, err := replay.Func[func(int) int](nil, "count"); !errors.Is(err, replay.ErrAction) {
		t.Errorf("nil set: err = %v", err)
	}
}

func TestEnvAndJSON(t *testing.T) {
	t.Setenv("BYREF_T_KEY", "sk-1")
	t.Setenv("BYREF_T_LIST", `[1,2]`)
	if s, err := replay.Env[string]("BYREF_T_KEY"); err != nil || s != "sk-1" {
		t.Errorf("Env string = %q, %v", s, err)
	}
	if l, err := replay.Env[[]int]("BYREF_T_LIST"); err != nil || len(l) != 2 {
		t.Errorf("Env list = %v, %v", l, err)
	}
	if _, err := replay.Env[string]("BYREF_T_UNSET"); err == nil {
		t.Error("Env of an unset variable: no error")
	}
	if w := replay.JSON[codegentest.Weather](`{"city":"Oslo"}`); w.City != "Oslo" {
		t.Errorf("JSON = %+v", w)
	}
	if *replay.Ptr(3) != 3 {
		t.Error("Ptr")
	}
}
