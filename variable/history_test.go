package variable_test

import (
	"testing"

	"github.com/byref/byref/variable"
)

func TestHistoryLast(t *testing.T) {
	var h variable.History
	if got := h.Last(); got != (variable.Change{}) {
		t.Errorf("empty History.Last() = %+v, want the zero Change", got)
	}
	h = variable.History{
		{Step: variable.HostStep, Kind: variable.Created, By: "host"},
		{Step: 3, Kind: variable.Modified, By: "click"},
	}
	if got := h.Last(); got.Step != 3 || got.Kind != variable.Modified || got.By != "click" {
		t.Errorf("Last() = %+v, want the step 3 change", got)
	}
}
