package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Records is implemented by stores that also keep small keyed records
// beside the runs: what a protocol server keeps about a run that is not an
// event of it, such as the A2A push notification configurations of a
// task and how far their deliveries have gone. Servers probe for it with a
// type assertion; the memory store, run/sqlite and run/postgres implement
// it, and storetest.Records checks an implementation.
//
// A record belongs to an existing run (PutRecord refuses others with
// ErrRunNotFound) and is named by its kind and its key. Methods are safe
// for concurrent use.
type Records interface {
	// PutRecord creates or replaces the record of r.Run, r.Kind and r.Key.
	PutRecord(ctx context.Context, r Record) error
	// DeleteRecord deletes a record and reports whether there was one.
	DeleteRecord(ctx context.Context, id ID, kind, key string) (bool, error)
	// ListRecords returns the records of a kind, of one run (ordered by
	// key), or of every run when id is "" (ordered by run, then key).
	ListRecords(ctx context.Context, kind string, id ID) ([]Record, error)
}

// Record is a keyed value kept beside a run (see [Records]).
type Record struct {
	Run   ID              `json:"run"`
	Kind  string          `json:"kind"`
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// MaxRecordValue bounds a record's value, in bytes.
const MaxRecordValue = 64 << 10

// ErrInvalidRecord: a record without kind or key, or whose value is not
// JSON or is larger than MaxRecordValue.
var ErrInvalidRecord = errors.New("run: invalid record")

// CheckRecord returns an error wrapping ErrInvalidRecord when r cannot be
// stored. Stores call it in PutRecord.
func CheckRecord(r Record) error {
	switch {
	case r.Run == "" || r.Kind == "" || r.Key == "":
		return fmt.Errorf("%w: a record needs a run, a kind and a key (got %q, %q, %q)", ErrInvalidRecord, r.Run, r.Kind, r.Key)
	case len(r.Value) > MaxRecordValue:
		return fmt.Errorf("%w: the value of record %s/%s is %d bytes; at most %d (run.MaxRecordValue)", ErrInvalidRecord, r.Kind, r.Key, len(r.Value), MaxRecordValue)
	case !json.Valid(r.Value):
		return fmt.Errorf("%w: the value of record %s/%s is not JSON", ErrInvalidRecord, r.Kind, r.Key)
	}
	return nil
}

type recordKey struct {
	run       ID
	kind, key string
}

var _ Records = (*MemoryStore)(nil)

// PutRecord implements [Records.PutRecord].
func (m *MemoryStore) PutRecord(ctx context.Context, r Record) error {
	if err := CheckRecord(r); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[r.Run]; !ok {
		return NotFound(r.Run)
	}
	if m.records == nil {
		m.records = map[recordKey]Record{}
	}
	r.Value = slices.Clone(r.Value)
	m.records[recordKey{r.Run, r.Kind, r.Key}] = r
	return nil
}

// DeleteRecord implements [Records.DeleteRecord].
func (m *MemoryStore) DeleteRecord(ctx context.Context, id ID, kind, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := recordKey{id, kind, key}
	_, ok := m.records[k]
	delete(m.records, k)
	return ok, nil
}

// ListRecords implements [Records.ListRecords].
func (m *MemoryStore) ListRecords(ctx context.Context, kind string, id ID) ([]Record, error) {
	m.mu.RLock()
	var out []Record
	for k, r := range m.records {
		if k.kind == kind && (id == "" || k.run == id) {
			r.Value = slices.Clone(r.Value)
			out = append(out, r)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b Record) int {
		if c := strings.Compare(string(a.Run), string(b.Run)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, nil
}
