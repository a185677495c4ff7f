// Package shop is the fixture of interp's corpus and differential tests
// and of codegen's replay of that corpus:
// a small shop's types, variables and actions, in a package of their own
// so that compiled Go and snippets share them.
package shop

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Variable is a named value handed to a snippet.
type Variable struct {
	Name  string
	Value any
}

// Customer is a customer of the shop.
type Customer struct {
	ID      int
	Name    string
	Email   string
	Country string
	Since   time.Time
	Tags    []string
	Spent   float64
}

// Item is a line of an order.
type Item struct {
	SKU   string
	Qty   int
	Price float64
}

// Order is an order of a customer.
type Order struct {
	ID         int
	CustomerID int
	Items      []Item
	Status     string
	Placed     time.Time
}

// Total is the sum of the order's items.
func (o Order) Total() float64 {
	t := 0.0
	for _, it := range o.Items {
		t += float64(it.Qty) * it.Price
	}
	return t
}

// Report is a titled list of lines.
type Report struct {
	Title string
	Lines []string
}

// Add appends a line to the report.
func (r *Report) Add(line string) { r.Lines = append(r.Lines, line) }

// Weather is what get_weather returns.
type Weather struct {
	City  string
	TempC float64
	Sky   string
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// Variables returns fresh values of the shop's variables, in a fixed order.
func Variables() []Variable {
	customers := []Customer{
		{1, "Ada Lovelace", "ada@example.com", "UK", day("2021-03-04"), []string{"vip", "early"}, 1520.5},
		{2, "Alan Turing", "alan@example.com", "UK", day("2022-07-19"), []string{"early"}, 310},
		{3, "Grace Hopper", "grace@example.org", "US", day("2020-01-11"), []string{"vip"}, 2890.25},
		{4, "Linus Torvalds", "linus@example.fi", "FI", day("2023-05-02"), nil, 95.9},
		{5, "Margaret Hamilton", "margaret@example.org", "US", day("2019-09-30"), []string{"vip", "nasa"}, 4100},
		{6, "Ken Thompson", "ken@example.com", "US", day("2024-02-14"), []string{"unix"}, 0},
		{7, "Barbara Liskov", "barbara@example.edu", "US", day("2022-11-08"), []string{}, 640},
		{8, "Niklaus Wirth", "niklaus@example.ch", "CH", day("2021-06-21"), []string{"pascal"}, 780.75},
	}
	orders := []Order{
		{101, 1, []Item{{"BK-1", 2, 12.5}, {"PN-3", 1, 3.2}}, "shipped", day("2024-05-01")},
		{102, 3, []Item{{"LP-9", 1, 999}}, "delivered", day("2024-05-03")},
		{103, 5, []Item{{"BK-1", 1, 12.5}, {"MG-2", 4, 7.75}}, "pending", day("2024-05-04")},
		{104, 2, []Item{{"PN-3", 10, 3.2}}, "cancelled", day("2024-05-04")},
		{105, 1, []Item{{"LP-9", 1, 999}, {"BK-1", 3, 12.5}}, "pending", day("2024-05-06")},
		{106, 8, []Item{{"MG-2", 2, 7.75}}, "shipped", day("2024-05-07")},
		{107, 7, []Item{{"BK-7", 1, 45}}, "delivered", day("2024-05-09")},
		{108, 3, []Item{{"PN-3", 5, 3.2}, {"MG-2", 1, 7.75}}, "pending", day("2024-05-10")},
	}
	vars := []Variable{
		{"customers", customers},
		{"orders", orders},
		{"prices", map[string]float64{"BK-1": 12.5, "PN-3": 3.2, "LP-9": 999, "MG-2": 7.75, "BK-7": 45}},
		{"inventory", map[string]int{"BK-1": 14, "PN-3": 0, "LP-9": 3, "MG-2": 27, "BK-7": 1}},
		{"report", &Report{Title: "Weekly"}},
		{"text", "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away!\nContact: sales@example.com or support@example.org, tel +1-555-0100."},
		{"logs", []string{
			"2024-05-10T08:01:02Z INFO  api  GET /orders 200 12ms",
			"2024-05-10T08:01:05Z WARN  api  GET /orders/9 404 3ms",
			"2024-05-10T08:02:11Z ERROR db   timeout after 5000ms",
			"2024-05-10T08:03:40Z INFO  api  POST /orders 201 48ms",
			"2024-05-10T08:04:02Z ERROR api  POST /pay 502 230ms",
			"2024-05-10T08:05:00Z INFO  cron nightly job started",
		}},
		{"raw", `{"user":{"id":42,"name":"Zoe","roles":["admin","dev"]},"active":true,"score":17.5,"tags":{"team":"core","tz":"UTC"}}`},
		{"config", map[string]string{"currency": "EUR", "region": "eu-west", "retries": "3", "debug": "false"}},
		{"today", day("2024-05-12")},
		{"nums", []int{7, 3, 9, 1, 4, 9, 2}},
		{"scores", map[string][]int{"ada": {90, 85, 77}, "alan": {60, 72}, "grace": {88, 94, 91, 79}}},
		{"count", 3},
		{"threshold", 500.0},
		{"names", []string{"delta", "Alpha", "charlie", "bravo", "alpha"}},
	}
	return vars
}

// Actions are the shop's actions as Go functions, by name; sent collects
// the emails send_email sends.
func Actions(sent *[]string) map[string]any {
	weather := map[string]Weather{"Paris": {"Paris", 18.5, "cloudy"}, "London": {"London", 14, "rain"}, "Zurich": {"Zurich", 21, "sunny"}}
	return map[string]any{
		"get_weather": func(city string) (Weather, error) {
			w, ok := weather[city]
			if !ok {
				return Weather{}, fmt.Errorf("no weather for %q", city)
			}
			return w, nil
		},
		"lookup_customer": func(id int) (Customer, error) {
			for _, c := range Variables()[0].Value.([]Customer) {
				if c.ID == id {
					return c, nil
				}
			}
			return Customer{}, fmt.Errorf("customer %d not found", id)
		},
		"send_email": func(to, subject, body string) error {
			if !strings.Contains(to, "@") {
				return fmt.Errorf("invalid address %q", to)
			}
			*sent = append(*sent, to+": "+subject)
			return nil
		},
		"convert": func(amount float64, from, to string) (float64, error) {
			rates := map[string]float64{"EUR": 1, "USD": 1.08, "GBP": 0.86, "CHF": 0.98}
			f, ok1 := rates[from]
			t, ok2 := rates[to]
			if !ok1 || !ok2 {
				return 0, fmt.Errorf("unknown currency %s or %s", from, to)
			}
			return amount / f * t, nil
		},
		"fetch_page": func(url string) (string, error) {
			if !strings.HasPrefix(url, "https://") {
				return "", errors.New("only https URLs")
			}
			return "<html><head><title>Shop news</title></head><body><h1>Sale</h1><p>Books -20%</p><a href=\"/books\">Books</a><a href=\"/pens\">Pens</a></body></html>", nil
		},
	}
}
