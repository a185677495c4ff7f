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
		`step 1: get_weather {"location":"<<var:city>>","unit":"C","return":null}`,
		`variable weather = sunny, 21°C in Paris`,
		`completed after 2 steps: "sunny, 21°C in Paris"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
