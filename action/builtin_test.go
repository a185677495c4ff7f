package action_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/byref/byref/action"
)

func TestTerminate(t *testing.T) {
	a := action.Terminate()
	if a != action.Terminate() {
		t.Error("Terminate returns a new action each time")
	}
	if a.Name() != action.TerminateName || a.Name() != "terminate" {
		t.Errorf("name = %q", a.Name())
	}
	if a.TakesContext() || a.ReturnsError() || a.Result() != reflect.TypeFor[action.Termination]() {
		t.Errorf("shape: ctx=%v err=%v result=%v", a.TakesContext(), a.ReturnsError(), a.Result())
	}
	if a.NumParams() != 2 {
		t.Fatalf("%d params", a.NumParams())
	}
	success := a.Param(0)
	if success.Name != "success" || success.Type != reflect.TypeFor[bool]() || !success.RawOnly || success.Refs() || success.Optional {
		t.Errorf("success = %+v", success)
	}
	if string(success.Raw) != `{"type":"boolean"}` {
		t.Errorf("success.Raw = %s", success.Raw)
	}
	result := a.Param(1)
	if result.Name != "result" || result.Type != reflect.TypeFor[any]() || !result.Optional || !result.Refs() || result.Raw == nil {
		t.Errorf("result = %+v", result)
	}
	if d := a.Default(1); !d.IsValid() || !d.IsNil() {
		t.Errorf("Default(result) = %v, want a nil any", d)
	}

	got, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf(true), reflect.ValueOf(any("done"))})
	if err != nil {
		t.Fatal(err)
	}
	if term := got.Interface().(action.Termination); !term.Success || term.Result != "done" {
		t.Errorf("Termination = %+v", term)
	}
	got, err = a.Call(context.Background(), []reflect.Value{reflect.ValueOf(false), a.Default(1)})
	if err != nil {
		t.Fatal(err)
	}
	if term := got.Interface().(action.Termination); term.Success || term.Result != nil {
		t.Errorf("Termination = %+v", term)
	}
}

func TestAskUser(t *testing.T) {
	a := action.AskUser()
	if a != action.AskUser() || a.Name() != action.AskUserName || a.Name() != "ask_user" {
		t.Errorf("AskUser = %v", a.Name())
	}
	if a.NumParams() != 1 {
		t.Fatalf("%d params", a.NumParams())
	}
	q := a.Param(0)
	if q.Name != "question" || q.Type != reflect.TypeFor[string]() || !q.RawOnly || q.Refs() {
		t.Errorf("question = %+v", q)
	}
	if a.Result() != reflect.TypeFor[string]() || !a.ReturnsError() {
		t.Errorf("result %v, error %v", a.Result(), a.ReturnsError())
	}
	// Outside a run it cannot wait for anyone, and says so.
	if _, err := a.Call(context.Background(), []reflect.Value{reflect.ValueOf("why?")}); err == nil {
		t.Error("ask_user succeeded outside a run")
	}
}
