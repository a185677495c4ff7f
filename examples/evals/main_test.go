package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"home-forecast  pass", "no-guessing    fails on purpose", "3 of 3 cases as they should be", "all as they should be: true"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
