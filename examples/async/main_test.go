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
	got := out.String()
	// Progress lines in log order, then the outcome.
	want := []string{
		"started running",
		"  1 run created: forecasts",
		"status created -> running",
		`call forecast {"city":"<<var:home>>","days":3,"return":null}`,
		"call done: created forecast_result",
		`variable forecast_result_2 = Oslo: sun for 3 days, then rain`,
		`result "Lisbon: sun for 3 days, then rain"`,
		"status running -> completed",
		`completed after 2 steps: "Lisbon: sun for 3 days, then rain"`,
	}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("output lacks %q after byte %d:\n%s", w, at, got)
		}
		at += i + len(w)
	}
}
