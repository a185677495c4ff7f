package interp

import "testing"

func TestBoundedBuffer(t *testing.T) {
	flooded := 0
	b := &boundedBuffer{max: 4, floodAt: 10, onFlood: func() { flooded++ }}
	b.Write([]byte("abcdef"))
	if got := b.String(); got != "abcd\n[output truncated: 2 more bytes dropped]\n" {
		t.Fatalf("%q", got)
	}
	b.Write([]byte("0123456789"))
	b.Write([]byte("x"))
	if flooded != 1 {
		t.Fatalf("onFlood called %d times", flooded)
	}
}
