package agent_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// TestRunOptionsDoNotMarshalSilently: marshalled as they are, RunOptions
// would drop the run's model, values and hooks without a word, and an
// unmarshalled one would lack them. RunOptions refuses instead, and says
// what to marshal; its Spec marshals as the log records it.
func TestRunOptionsDoNotMarshalSilently(t *testing.T) {
	opts := agent.RunOptions{
		Task: "t", Instructions: "be brief",
		ID: "r1", Session: "s1", Turn: "t1", Name: "n", Tags: map[string]string{"k": "v"},
		Message: json.RawMessage(`{"m":1}`), Input: json.RawMessage(`{"i":1}`),
	}
	for _, v := range []any{opts, &opts, struct{ Run agent.RunOptions }{opts}} {
		b, err := json.Marshal(v)
		if err == nil || !strings.Contains(err.Error(), "marshal opts.Spec()") || !strings.Contains(err.Error(), "SpecOf(opts)") {
			t.Fatalf("json.Marshal(%T) = %s, %v; want an error naming what to marshal instead", v, b, err)
		}
	}
	var back agent.RunOptions
	if err := json.Unmarshal([]byte(`{"task":"t","id":"r1"}`), &back); err == nil || !strings.Contains(err.Error(), "OptionsOf") {
		t.Fatalf("json.Unmarshal = %+v, %v; want an error naming what to read instead", back, err)
	}

	b, err := json.Marshal(opts.Spec())
	if err != nil || string(b) != `{"task":"t","instructions":"be brief","interactive":true}` {
		t.Fatalf("json.Marshal(opts.Spec()) = %s, %v", b, err)
	}
	b, err = json.Marshal(agent.SpecOf(opts))
	if err != nil {
		t.Fatal(err)
	}
	var c run.RunCreated
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if got := agent.OptionsOf(opts.ID, c); got.Session != "s1" || got.Turn != "t1" || got.Name != "n" || got.Tags["k"] != "v" || string(got.Input) != `{"i":1}` || got.Task != "t" {
		t.Fatalf("SpecOf and OptionsOf give back %+v", got)
	}
}

// TestRunOptionsHoldEverySpecField: agent.RunOptions holds every field of
// run.Spec, with its name and type, so that a run's options are one flat
// type, and Spec and OptionsOf copy each of them: a field added to
// run.Spec and not to RunOptions (or not copied) fails here.
func TestRunOptionsHoldEverySpecField(t *testing.T) {
	specType, optsType := reflect.TypeFor[run.Spec](), reflect.TypeFor[agent.RunOptions]()
	var want run.Spec
	var opts agent.RunOptions
	for i := range specType.NumField() {
		f := specType.Field(i)
		g, ok := optsType.FieldByName(f.Name)
		if !ok || len(g.Index) != 1 || g.Type != f.Type || g.Anonymous != f.Anonymous {
			t.Errorf("run.Spec.%s (%s) has no field of its name and type in agent.RunOptions; add it there, and to RunOptions.Spec and withSpec", f.Name, f.Type)
			continue
		}
		fill(reflect.ValueOf(&want).Elem().Field(i))
		fill(reflect.ValueOf(&opts).Elem().FieldByIndex(g.Index))
	}
	if got := opts.Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("RunOptions.Spec() =\n%+v\nwant\n%+v", got, want)
	}
	if got := agent.OptionsOf("r1", agent.SpecOf(opts)).Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("OptionsOf(SpecOf(opts)).Spec() =\n%+v\nwant\n%+v", got, want)
	}
}

// fill sets v, and every field of it, to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Uint8:
		v.SetUint('1')
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	default:
		panic("fill: no value for a " + v.Kind().String())
	}
}
