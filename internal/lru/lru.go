// Package lru is a bounded map that lets go of its least recently used
// entries first: the caches of runs' conversations (package server) and of
// sessions' variables (package agent).
package lru

import (
	"container/list"
	"sync"
)

// Cache maps keys to values, at most a limit of them: putting one more
// drops the least recently used (got or put). It is safe for concurrent
// use. Values are handed out as they are: store values nobody changes
// after Put (or copies).
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	limit int
	m     map[K]*list.Element
	order list.List // of *entry[K, V], most recently used first
}

type entry[K comparable, V any] struct {
	k K
	v V
}

// New returns a cache of at most limit entries (at least one).
func New[K comparable, V any](limit int) *Cache[K, V] {
	return &Cache[K, V]{limit: max(limit, 1), m: map[K]*list.Element{}}
}

// Get returns the value of k, and whether there is one, and marks it used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).v, true
}

// Put sets the value of k.
func (c *Cache[K, V]) Put(k K, v V) {
	c.Update(k, func(V, bool) V { return v })
}

// Update sets the value of k to what f returns, given its value and
// whether it had one, as one step: no other call sees the cache between
// the two. f must not call the cache.
func (c *Cache[K, V]) Update(k K, f func(old V, ok bool) V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		e := el.Value.(*entry[K, V])
		e.v = f(e.v, true)
		c.order.MoveToFront(el)
		return
	}
	var zero V
	c.m[k] = c.order.PushFront(&entry[K, V]{k, f(zero, false)})
	if c.order.Len() > c.limit {
		delete(c.m, c.order.Remove(c.order.Back()).(*entry[K, V]).k)
	}
}

// Remove drops k.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.order.Remove(el)
		delete(c.m, k)
	}
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
