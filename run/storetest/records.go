package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/byref/byref/run"
)

// testRecords checks run.Records, when the store implements it: records
// are kept per run, kind and key, replaced, listed in order, deleted, and
// refused for unknown runs or bad values.
func testRecords(t *testing.T, s run.Store) {
	rs, ok := s.(run.Records)
	if !ok {
		t.Skip("the store does not implement run.Records")
	}
	ctx := context.Background()
	mustCreate(t, s, "run_a")
	mustCreate(t, s, "run_b")
	put := func(id run.ID, kind, key, value string) {
		t.Helper()
		if err := rs.PutRecord(ctx, run.Record{Run: id, Kind: kind, Key: key, Value: json.RawMessage(value)}); err != nil {
			t.Fatal(err)
		}
	}
	put("run_b", "push", "2", `{"n":1}`)
	put("run_a", "push", "1", `{"n":2}`)
	put("run_b", "push", "1", `{"n":3}`)
	put("run_b", "push", "2", `{"n":4}`) // replaces
	put("run_a", "other", "1", `true`)
	list := func(kind string, id run.ID) string {
		t.Helper()
		recs, err := rs.ListRecords(ctx, kind, id)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range recs {
			if r.Kind != kind {
				t.Fatalf("ListRecords(%q) returned a record of kind %q", kind, r.Kind)
			}
			out += string(r.Run) + "/" + r.Key + "=" + string(r.Value) + " "
		}
		return out
	}
	if got, want := list("push", ""), `run_a/1={"n":2} run_b/1={"n":3} run_b/2={"n":4} `; got != want {
		t.Fatalf("every push record: %s, want %s", got, want)
	}
	if got, want := list("push", "run_b"), `run_b/1={"n":3} run_b/2={"n":4} `; got != want {
		t.Fatalf("run_b's push records: %s, want %s", got, want)
	}
	if ok, err := rs.DeleteRecord(ctx, "run_b", "push", "1"); err != nil || !ok {
		t.Fatalf("DeleteRecord = %v, %v", ok, err)
	}
	if ok, err := rs.DeleteRecord(ctx, "run_b", "push", "1"); err != nil || ok {
		t.Fatalf("deleting it again = %v, %v", ok, err)
	}
	if got, want := list("push", "run_b"), `run_b/2={"n":4} `; got != want {
		t.Fatalf("after the delete: %s, want %s", got, want)
	}
	if err := rs.PutRecord(ctx, run.Record{Run: "run_nope", Kind: "push", Key: "1", Value: json.RawMessage(`1`)}); !errors.Is(err, run.ErrRunNotFound) {
		t.Fatalf("a record of an unknown run: %v", err)
	}
	for _, bad := range []run.Record{
		{Run: "run_a", Kind: "push", Key: "", Value: json.RawMessage(`1`)},
		{Run: "run_a", Kind: "push", Key: "k", Value: json.RawMessage(`{`)},
		{Run: "run_a", Kind: "push", Key: "k", Value: make(json.RawMessage, run.MaxRecordValue+1)},
	} {
		if err := rs.PutRecord(ctx, bad); !errors.Is(err, run.ErrInvalidRecord) {
			t.Fatalf("PutRecord(%s/%q, %d bytes) = %v, want ErrInvalidRecord", bad.Kind, bad.Key, len(bad.Value), err)
		}
	}
}
