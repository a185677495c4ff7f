// Package demotable holds the domain of the byref demo: a table type and two
// actions over it. It is a package of its own, not part of the command's
// main package, so that the replay code the demo prints can import it.
package demotable

import (
	"fmt"
	"strings"

	"github.com/byref/byref/action"
)

// Table is the demo's host object: a live value the model never copies.
type Table struct {
	Columns []string
	Rows    [][]string
}

// Preview describes the table to the model by its shape, never its rows:
// "Table of 142 rows × 2 columns (id, status)". It implements
// variable.Previewer.
func (t *Table) Preview(limit int) string {
	if t == nil {
		return "no table"
	}
	s := fmt.Sprintf("Table of %d rows × %d columns (%s)", len(t.Rows), len(t.Columns), strings.Join(t.Columns, ", "))
	if len(s) > limit && limit > 1 {
		s = s[:limit-1] + "…"
	}
	return s
}

// FilterRows keeps the rows whose column equals value.
func FilterRows(t *Table, column, value string) (*Table, error) {
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
}

// CountRows counts the rows of a table.
func CountRows(t *Table) int { return len(t.Rows) }

// Actions are the demo's actions over *Table values.
func Actions() *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{
			Name:        "filter_rows",
			Description: "Keep the rows whose column equals value.",
			Func:        FilterRows,
			Params:      []action.Param{{Name: "table"}, {Name: "column"}, {Name: "value"}},
			Result:      "the filtered table",
		}),
		action.MustNew(action.Spec{
			Name:        "count_rows",
			Description: "Count the rows of a table.",
			Func:        CountRows,
			Params:      []action.Param{{Name: "table"}},
		}),
	)
}

// Orders is a table of n orders, one in seven late.
func Orders(n int) *Table {
	orders := &Table{Columns: []string{"id", "status"}}
	for i := 1; i <= n; i++ {
		status := "on time"
		if i%7 == 0 {
			status = "late"
		}
		orders.Rows = append(orders.Rows, []string{fmt.Sprint(i), status})
	}
	return orders
}
