// Package codegentest holds actions for the tests and examples of package
// codegen. It is an ordinary importable package (not internal, not a test
// file) because replay programs generated in tests import it: package-level
// functions are called through their import path, and the closure and the
// method it registers are looked up in Actions().
package codegentest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/byref/byref/action"
)

// Weather is a report of GetWeather.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
	Sky   string  `json:"sky"`
}

// Item is a line of a shopping list.
type Item struct {
	Name  string  `json:"name"`
	Price float64 `json:"price"`
	Qty   int     `json:"qty"`
}

// Session is what Authorize returns.
type Session struct {
	User  string   `json:"user"`
	Scope []string `json:"scope"`
}

// Summary is a structured result.
type Summary struct {
	City    string   `json:"city"`
	Total   float64  `json:"total"`
	Items   []string `json:"items"`
	Warning *string  `json:"warning,omitempty"`
}

var skies = map[string]Weather{
	"Paris":  {City: "Paris", TempC: 21.5, Sky: "sunny"},
	"Lyon":   {City: "Lyon", TempC: 18, Sky: "cloudy"},
	"Oslo":   {City: "Oslo", TempC: -3.25, Sky: "snow"},
	"Recife": {City: "Recife", TempC: 30, Sky: "rain"},
}

// ErrUnknownCity is returned by GetWeather for a city it does not know.
var ErrUnknownCity = errors.New("unknown city")

// GetWeather reports the weather in a city; unit is "c" or "f".
func GetWeather(ctx context.Context, location string, unit string) (Weather, error) {
	if err := ctx.Err(); err != nil {
		return Weather{}, err
	}
	w, ok := skies[location]
	if !ok {
		return Weather{}, fmt.Errorf("%w: %s", ErrUnknownCity, location)
	}
	if unit == "f" {
		w.TempC = w.TempC*9/5 + 32
	}
	return w, nil
}

// ListItems returns a fixed shopping list.
func ListItems() []Item {
	return []Item{{Name: "apples", Price: 2.5, Qty: 4}, {Name: "bread", Price: 3, Qty: 1}, {Name: "tea", Price: 7.25, Qty: 2}}
}

// Total sums price times quantity.
func Total(items []Item) float64 {
	var t float64
	for _, it := range items {
		t += it.Price * float64(it.Qty)
	}
	return t
}

// AddItem appends an item to the list in place.
func AddItem(items *[]Item, name string, price float64) {
	*items = append(*items, Item{Name: name, Price: price, Qty: 1})
}

// Authorize checks a token and opens a session.
func Authorize(ctx context.Context, token string, user string) (Session, error) {
	if !strings.HasPrefix(token, "sk-") {
		return Session{}, errors.New("invalid token")
	}
	return Session{User: user, Scope: []string{"read", "write"}}, nil
}

// Describe summarizes a weather report in words.
func Describe(w Weather) string {
	return fmt.Sprintf("%s: %s, %.1f°C", w.City, w.Sky, w.TempC)
}

// Research stands for an agent used as an action: in a real program it
// would start a child run.
func Research(ctx context.Context, topic string) (string, error) {
	return "notes on " + topic, nil
}

// Counter counts; its Add method is registered as an action, a method value.
type Counter struct{ n int }

// Add adds n and returns the new count.
func (c *Counter) Add(n int) int {
	c.n += n
	return c.n
}

// NewGreeter returns a closure, registered as an action.
func NewGreeter(greeting string) func(name string) string {
	return func(name string) string { return greeting + ", " + name + "!" }
}

// Actions returns a fresh set of the test actions (a new Counter each
// time): package-level functions, the greet closure and the count method.
func Actions() *action.Set {
	c := &Counter{}
	return action.MustSet(
		action.MustNew(action.Spec{Name: "get_weather", Description: "Weather in a city.", Func: GetWeather,
			Params: []action.Param{{Name: "location"}, {Name: "unit", Default: "c", Enum: []any{"c", "f"}}}}),
		action.MustNew(action.Spec{Name: "list_items", Description: "The shopping list.", Func: ListItems}),
		action.MustNew(action.Spec{Name: "total", Description: "Sum of a list.", Func: Total,
			Params: []action.Param{{Name: "items"}}}),
		action.MustNew(action.Spec{Name: "add_item", Description: "Append to a list.", Func: AddItem,
			Params: []action.Param{{Name: "items"}, {Name: "name"}, {Name: "price"}}}),
		action.MustNew(action.Spec{Name: "authorize", Description: "Open a session.", Func: Authorize,
			Params: []action.Param{{Name: "token"}, {Name: "user"}}}),
		action.MustNew(action.Spec{Name: "describe", Description: "Weather in words.", Func: Describe,
			Params: []action.Param{{Name: "w", Whole: true}}}),
		action.MustNew(action.Spec{Name: "research", Description: "Research a topic (a child agent).", Func: Research,
			Params: []action.Param{{Name: "topic"}}}),
		action.MustNew(action.Spec{Name: "greet", Description: "Greet someone.", Func: NewGreeter("Hello"),
			Params: []action.Param{{Name: "name"}}}),
		action.MustNew(action.Spec{Name: "count", Description: "Add to the counter.", Func: c.Add,
			Params: []action.Param{{Name: "n"}}}),
	)
}
