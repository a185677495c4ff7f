package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"completed after 3 steps: 334 EU orders",
		"variable filter_result (*main.Table): table orders[region=EU] of 334 orders",
		"top EU order: #28 spring 500",
		", holding a row: 0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
