package demotable

import (
	"reflect"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

// Agent returns the demo agent without its model: the table actions and
// this month's 1,000 orders as the variable orders. Its eval set is in
// the directory evals beside this file.
func Agent() agent.Options {
	return agent.Options{
		Actions:   Actions(),
		Variables: []variable.Spec{{Name: "orders", Value: Orders(1000), Description: "this month's 1,000 orders"}},
	}
}

// Types names the Go types of the demo's variables, for eval sets whose
// starting variables are JSON.
func Types() map[string]reflect.Type {
	return map[string]reflect.Type{"*demotable.Table": reflect.TypeFor[*Table]()}
}
