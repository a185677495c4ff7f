// Table shows custom actions over a host object passed by reference. Table
// is an in-memory table whose rows are unexported: it cannot be JSON, so the
// model never sees its rows, only its preview ("table of 1000 orders..."),
// and passes it to the actions filter, sort and count as <<var:orders>>. The
// actions get the real *Table; their results are new variables the host
// reads back with agent.Value.
//
// It runs on llm.NewScripted, a model that plays back what a real model would
// send, so it needs no API key and no network: go run ./examples/table.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

// Order is one row of the table.
type Order struct {
	ID      int
	Region  string
	Product string
	Amount  int
}

// Table is the host's object: a table of orders. Its fields are unexported,
// so it travels by reference only.
type Table struct {
	name string
	rows []Order
}

// Preview is what the model sees of a table (variable.Previewer).
func (t *Table) Preview(limit int) string {
	return fmt.Sprintf("table %s of %d orders (columns id, region, product, amount)", t.name, len(t.rows))
}

var products = []string{"anvil", "rocket", "magnet", "spring"}

// newOrders returns a table of n made-up orders.
func newOrders(n int) *Table {
	regions := []string{"EU", "US", "APAC"}
	t := &Table{name: "orders"}
	for i := range n {
		t.rows = append(t.rows, Order{ID: i + 1, Region: regions[i%3], Product: products[i%4], Amount: (i*37)%500 + 1})
	}
	return t
}

var (
	filterAction = action.MustNew(action.Spec{
		Name:        "filter",
		Description: "Keep the rows of a table whose column equals value; returns a new table.",
		Func: func(t *Table, column, value string) *Table {
			out := &Table{name: fmt.Sprintf("%s[%s=%s]", t.name, column, value)}
			for _, r := range t.rows {
				if (column == "region" && r.Region == value) || (column == "product" && r.Product == value) {
					out.rows = append(out.rows, r)
				}
			}
			return out
		},
		Params: []action.Param{
			{Name: "table", Description: "The table to filter."},
			{Name: "column", Enum: []any{"region", "product"}},
			{Name: "value", Description: "The value to keep, e.g. EU."},
		},
	})
	sortAction = action.MustNew(action.Spec{
		Name:        "sort",
		Description: "Sort a table by amount, largest first; returns a new table.",
		Func: func(t *Table) *Table {
			out := &Table{name: t.name + " by amount", rows: slices.Clone(t.rows)}
			slices.SortStableFunc(out.rows, func(a, b Order) int { return b.Amount - a.Amount })
			return out
		},
		Params: []action.Param{{Name: "table", Description: "The table to sort."}},
	})
	countAction = action.MustNew(action.Spec{
		Name:        "count",
		Description: "Count the rows of a table.",
		Func:        func(t *Table) int { return len(t.rows) },
		Params:      []action.Param{{Name: "table", Description: "The table to count."}},
	})
)

func run(ctx context.Context, w io.Writer) error {
	// What a model would send: filter, then sort and count the result, each
	// time passing a table by reference. (llm.Open("openai:gpt-4o-mini")
	// would ask a real one.)
	model := llm.NewScripted(
		llm.CallTool("filter", `{"table":"<<var:orders>>","column":"region","value":"EU","return":null}`),
		llm.CallTools(
			llm.ToolCall{Name: "sort", Arguments: `{"table":"<<var:filter_result>>","return":null}`},
			llm.ToolCall{Name: "count", Arguments: `{"table":"<<var:filter_result>>","return":null}`},
		),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:count_result>>"}`),
	)
	a, err := agent.New(agent.Options{
		Actions:   action.MustSet(filterAction, sortAction, countAction),
		Variables: []variable.Spec{{Name: "orders", Value: newOrders(1000)}},
		Model:     model,
	})
	if err != nil {
		return err
	}
	h, err := a.Start(ctx, agent.RunOptions{Task: "How many orders come from the EU? Keep them sorted by amount."})
	if err != nil {
		return err
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s after %d steps: %s EU orders\n", o.Status, o.Steps, o.Result)
	for _, v := range h.State().Variables() {
		fmt.Fprintf(w, "variable %s (%s): %s\n", v.Name, variable.TypeName(v.Type), v.Preview(100))
	}

	// The host reads the model's results back as real Go values.
	sorted, err := agent.Value[*Table](h.State(), "sort_result")
	if err != nil {
		return err
	}
	for _, r := range sorted.rows[:3] {
		fmt.Fprintf(w, "top EU order: #%d %s %d\n", r.ID, r.Product, r.Amount)
	}

	// The rows never reached the model: no message it was sent names a
	// product.
	leaked, sent := 0, 0
	for _, req := range model.Requests() {
		for _, m := range req.Messages {
			sent++
			if slices.ContainsFunc(products, func(p string) bool { return strings.Contains(m.Text, p) }) {
				leaked++
			}
		}
	}
	fmt.Fprintf(w, "messages sent to the model: %d, holding a row: %d\n", sent, leaked)
	return nil
}
