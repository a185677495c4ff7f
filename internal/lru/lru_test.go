package lru_test

import (
	"sync"
	"testing"

	"github.com/byref/byref/internal/lru"
)

func TestLeastRecentlyUsedGoesFirst(t *testing.T) {
	c := lru.New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 { // a is now the most recent
		t.Fatalf("a = %d, %v", v, ok)
	}
	c.Put("c", 3)
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, is still there")
	}
	c.Update("a", func(old int, ok bool) int { return old + 10 })
	if v, _ := c.Get("a"); v != 11 || c.Len() != 2 {
		t.Errorf("a = %d, len %d", v, c.Len())
	}
	c.Remove("a")
	if _, ok := c.Get("a"); ok || c.Len() != 1 {
		t.Errorf("a is still there after Remove")
	}
}

func TestUpdateIsOneStep(t *testing.T) {
	c := lru.New[string, int](1)
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() { c.Update("n", func(old int, _ bool) int { return old + 1 }) })
	}
	wg.Wait()
	if v, _ := c.Get("n"); v != 100 {
		t.Fatalf("n = %d after 100 increments", v)
	}
}
