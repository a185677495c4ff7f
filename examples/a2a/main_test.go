package main

import (
	"context"
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	var out strings.Builder
	if err := walk(context.Background(), &out, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"status: input-required (Which city?)",
		`answered "Paris" on the same task: completed`,
		`artifact result: {"celsius":21,"city":"Paris"} (with its JSON Schema: true)`,
		"the run awaits input: Which city?",
		`call: report {"forecast":"<<var:weather_result>>","return":null}`,
		"run completed: Report: 21°C in Lyon",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
