package run

import (
	"strings"
	"sync"
	"testing"
)

func TestNewIDUniqueAndSorted(t *testing.T) {
	const n = 10000
	prev := NewID()
	for range n {
		id := NewID()
		if id <= prev {
			t.Fatalf("NewID() = %q, not after previous %q", id, prev)
		}
		if !strings.HasPrefix(string(id), "run_") || len(id) != 36 {
			t.Fatalf("NewID() = %q, want run_ and 32 hex digits", id)
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
