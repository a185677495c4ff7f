package shop

import (
	"maps"
	"slices"

	"github.com/byref/byref/action"
)

// params are the parameter names of the shop's actions, in order.
var params = map[string][]string{
	"get_weather":     {"city"},
	"lookup_customer": {"id"},
	"send_email":      {"to", "subject", "body"},
	"convert":         {"amount", "from", "to"},
	"fetch_page":      {"url"},
}

// Set returns the shop's actions as an action set (closures: replay code
// gets them through this function). The emails send_email sends are kept
// by the set's own closure.
func Set() *action.Set {
	var sent []string
	var as []*action.Action
	fs := Actions(&sent)
	for _, name := range slices.Sorted(maps.Keys(fs)) {
		f := fs[name]
		var ps []action.Param
		for _, p := range params[name] {
			ps = append(ps, action.Param{Name: p})
		}
		as = append(as, action.MustNew(action.Spec{Name: name, Description: "The shop's " + name + ".", Func: f, Params: ps}))
	}
	return action.MustSet(as...)
}
