package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/variable"
)

// Table is the demo's host object: a live value the model never copies.
type Table struct {
	Columns []string
	Rows    [][]string
}

// demoActions are the demo's actions over *Table values.
func demoActions() *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{
			Name:        "filter_rows",
			Description: "Keep the rows whose column equals value.",
			Func: func(t *Table, column, value string) (*Table, error) {
				col := -1
				for i, c := range t.Columns {
					if c == column {
						col = i
					}
				}
				if col < 0 {
					return nil, fmt.Errorf("no column %q; columns are %s", column, strings.Join(t.Columns, ", "))
				}
				out := &Table{Columns: t.Columns}
				for _, r := range t.Rows {
					if r[col] == value {
						out.Rows = append(out.Rows, r)
					}
				}
				return out, nil
			},
			Params: []action.Param{{Name: "table"}, {Name: "column"}, {Name: "value"}},
			Result: "the filtered table",
		}),
		action.MustNew(action.Spec{
			Name:        "count_rows",
			Description: "Count the rows of a table.",
			Func:        func(t *Table) int { return len(t.Rows) },
			Params:      []action.Param{{Name: "table"}},
		}),
	)
}

// demoCalls is the scripted sequence: what a model would send.
var demoCalls = []runtime.ToolCall{
	{ID: "call_1", Name: "filter_rows", Arguments: `{"table":"<<var:orders>>","column":"status","value":"late","return":null}`},
	{ID: "call_2", Name: "count_rows", Arguments: `{"table":"<<var:late_orders>>","return":null}`},
	{ID: "call_3", Name: "count_rows", Arguments: `{"table":"<<var:filter_rows_result>>","return":null}`},
	{ID: "call_4", Name: "terminate", Arguments: `{"success":true,"result":"<<var:count_rows_result>>"}`},
}

func demo(ctx context.Context, w io.Writer) error {
	orders := &Table{Columns: []string{"id", "status"}}
	for i := 1; i <= 1000; i++ {
		status := "on time"
		if i%7 == 0 {
			status = "late"
		}
		orders.Rows = append(orders.Rows, []string{fmt.Sprint(i), status})
	}
	rt, err := runtime.New(runtime.Options{
		Actions:   demoActions(),
		Variables: []variable.Spec{{Name: "orders", Value: orders, Description: "this month's orders"}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "byref demo: a scripted sequence of tool calls, no model and no API key.")
	fmt.Fprintln(w, "The model refers to a 1,000-row table as <<var:orders>> and never sees its rows.")
	fmt.Fprintln(w)
	for _, c := range demoCalls {
		fmt.Fprintf(w, "→ %s %s\n", c.Name, c.Arguments)
		res := rt.Execute(ctx, runtime.Step{Calls: []runtime.ToolCall{c}})
		resp := res.Responses[0]
		fmt.Fprintf(w, "← %s\n\n", resp.Content())
		if res.Termination != nil {
			fmt.Fprintf(w, "terminated: success=%v result=%v\n", res.Termination.Success, res.Termination.Result)
		}
	}
	return nil
}
