package run

import (
	"regexp"
	"sync"
	"testing"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewIDUniqueAndSorted(t *testing.T) {
	const n = 10000
	prev := NewID()
	for range n {
		id := NewID()
		if id <= prev {
			t.Fatalf("NewID() = %q, not after previous %q", id, prev)
		}
		if !uuidV7.MatchString(string(id)) {
			t.Fatalf("NewID() = %q, want a lowercase version 7 UUID", id)
		}
		prev = id
	}
}

func TestNewIDConcurrent(t *testing.T) {
	const goroutines, each = 8, 1000
	var mu sync.Mutex
	seen := make(map[ID]bool, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			ids := make([]ID, each)
			for i := range ids {
				ids[i] = NewID()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				if seen[id] {
					t.Errorf("duplicate ID %q", id)
				}
				seen[id] = true
			}
		})
	}
	wg.Wait()
}

func TestIncrementCarries(t *testing.T) {
	b := []byte{0x00, 0xff, 0xff}
	increment(b)
	if b[0] != 1 || b[1] != 0 || b[2] != 0 {
		t.Fatalf("increment = %x, want 010000", b)
	}
}

func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewID()
	}
}
