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
		"step 1: a snippet of 20 lines read sales and created totals, best, biggest",
		"notify: #sales: best region: APAC with 212.00",
		"totals: APAC 212.00, EU 150.50, US 179.25",
		`completed after 2 steps: "APAC"`,
		`"stdout":"6 sales, best region APAC, biggest sale {APAC 200}\n"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
