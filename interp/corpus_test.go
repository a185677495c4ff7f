package interp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var updateCorpus = flag.Bool("update", false, "rewrite the stdout and changes sections of testdata/corpus")

// The corpus: snippets of the kind models write in CodeAct style, over
// typed host variables of a small shop, with its actions as Go functions.
// Each file in testdata/corpus is a txtar archive: a comment, then
//
//	-- code --     the snippet
//	-- stdout --   what it prints
//	-- changes --  "created: a b" and "modified: c" (values that differ
//	               afterwards, by assignment or in place), sorted
//	-- error --    optional: a fragment of the error of a failing snippet
//
// Add a case by adding a file; go test -run TestCorpus -update fills in
// stdout and changes, to be reviewed.

type Customer struct {
	ID      int
	Name    string
	Email   string
	Country string
	Since   time.Time
	Tags    []string
	Spent   float64
}

type Item struct {
	SKU   string
	Qty   int
	Price float64
}

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

type Report struct {
	Title string
	Lines []string
}

// Add appends a line to the report.
func (r *Report) Add(line string) { r.Lines = append(r.Lines, line) }

type Weather struct {
	City  string
	TempC float64
	Sky   string
}

var shopSymbols = Exports{"example.com/shop/shop": {
	"Customer": reflect.ValueOf((*Customer)(nil)),
	"Item":     reflect.ValueOf((*Item)(nil)),
	"Order":    reflect.ValueOf((*Order)(nil)),
	"Report":   reflect.ValueOf((*Report)(nil)),
	"Weather":  reflect.ValueOf((*Weather)(nil)),
}}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// shopVars returns fresh values of the corpus variables, in a fixed order.
func shopVars() []Var {
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
	vars := []Var{
		{"customers", reflect.ValueOf(customers)},
		{"orders", reflect.ValueOf(orders)},
		{"prices", reflect.ValueOf(map[string]float64{"BK-1": 12.5, "PN-3": 3.2, "LP-9": 999, "MG-2": 7.75, "BK-7": 45})},
		{"inventory", reflect.ValueOf(map[string]int{"BK-1": 14, "PN-3": 0, "LP-9": 3, "MG-2": 27, "BK-7": 1})},
		{"report", reflect.ValueOf(&Report{Title: "Weekly"})},
		{"text", reflect.ValueOf("The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away!\nContact: sales@example.com or support@example.org, tel +1-555-0100.")},
		{"logs", reflect.ValueOf([]string{
			"2024-05-10T08:01:02Z INFO  api  GET /orders 200 12ms",
			"2024-05-10T08:01:05Z WARN  api  GET /orders/9 404 3ms",
			"2024-05-10T08:02:11Z ERROR db   timeout after 5000ms",
			"2024-05-10T08:03:40Z INFO  api  POST /orders 201 48ms",
			"2024-05-10T08:04:02Z ERROR api  POST /pay 502 230ms",
			"2024-05-10T08:05:00Z INFO  cron nightly job started",
		})},
		{"raw", reflect.ValueOf(`{"user":{"id":42,"name":"Zoe","roles":["admin","dev"]},"active":true,"score":17.5,"tags":{"team":"core","tz":"UTC"}}`)},
		{"config", reflect.ValueOf(map[string]string{"currency": "EUR", "region": "eu-west", "retries": "3", "debug": "false"})},
		{"today", reflect.ValueOf(day("2024-05-12"))},
		{"nums", reflect.ValueOf([]int{7, 3, 9, 1, 4, 9, 2})},
		{"scores", reflect.ValueOf(map[string][]int{"ada": {90, 85, 77}, "alan": {60, 72}, "grace": {88, 94, 91, 79}})},
		{"count", reflect.ValueOf(3)},
		{"threshold", reflect.ValueOf(500.0)},
		{"names", reflect.ValueOf([]string{"delta", "Alpha", "charlie", "bravo", "alpha"})},
	}
	return vars
}

// shopFuncs are the shop's actions as snippets see them; sent collects
// the emails.
func shopFuncs(sent *[]string) map[string]reflect.Value {
	weather := map[string]Weather{"Paris": {"Paris", 18.5, "cloudy"}, "London": {"London", 14, "rain"}, "Zurich": {"Zurich", 21, "sunny"}}
	return map[string]reflect.Value{
		"get_weather": reflect.ValueOf(func(city string) (Weather, error) {
			w, ok := weather[city]
			if !ok {
				return Weather{}, fmt.Errorf("no weather for %q", city)
			}
			return w, nil
		}),
		"lookup_customer": reflect.ValueOf(func(id int) (Customer, error) {
			for _, c := range shopVars()[0].Value.Interface().([]Customer) {
				if c.ID == id {
					return c, nil
				}
			}
			return Customer{}, fmt.Errorf("customer %d not found", id)
		}),
		"send_email": reflect.ValueOf(func(to, subject, body string) error {
			if !strings.Contains(to, "@") {
				return fmt.Errorf("invalid address %q", to)
			}
			*sent = append(*sent, to+": "+subject)
			return nil
		}),
		"convert": reflect.ValueOf(func(amount float64, from, to string) (float64, error) {
			rates := map[string]float64{"EUR": 1, "USD": 1.08, "GBP": 0.86, "CHF": 0.98}
			f, ok1 := rates[from]
			t, ok2 := rates[to]
			if !ok1 || !ok2 {
				return 0, fmt.Errorf("unknown currency %s or %s", from, to)
			}
			return amount / f * t, nil
		}),
		"fetch_page": reflect.ValueOf(func(url string) (string, error) {
			if !strings.HasPrefix(url, "https://") {
				return "", errors.New("only https URLs")
			}
			return "<html><head><title>Shop news</title></head><body><h1>Sale</h1><p>Books -20%</p><a href=\"/books\">Books</a><a href=\"/pens\">Pens</a></body></html>", nil
		}),
	}
}

type corpusCase struct {
	name, comment, code, stdout, changes, err string
	hasErr                                    bool
}

func parseCase(name string, data []byte) (corpusCase, error) {
	c := corpusCase{name: name}
	sections := map[string]*strings.Builder{}
	var comment strings.Builder
	into := &comment
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "-- "); ok && strings.HasSuffix(h, " --") {
			h = strings.TrimSuffix(h, " --")
			if _, dup := sections[h]; dup {
				return c, fmt.Errorf("%s: section %q twice", name, h)
			}
			sections[h] = &strings.Builder{}
			into = sections[h]
			continue
		}
		into.WriteString(line)
	}
	c.comment = strings.TrimSpace(comment.String())
	for h, b := range sections {
		switch h {
		case "code":
			c.code = b.String()
		case "stdout":
			c.stdout = b.String()
		case "changes":
			c.changes = b.String()
		case "error":
			c.err, c.hasErr = strings.TrimSpace(b.String()), true
		default:
			return c, fmt.Errorf("%s: unknown section %q", name, h)
		}
	}
	if c.code == "" {
		return c, fmt.Errorf("%s: no code section", name)
	}
	return c, nil
}

func (c corpusCase) format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n-- code --\n%s", c.comment, c.code)
	fmt.Fprintf(&b, "-- stdout --\n%s", c.stdout)
	fmt.Fprintf(&b, "-- changes --\n%s", c.changes)
	if c.hasErr {
		fmt.Fprintf(&b, "-- error --\n%s\n", c.err)
	}
	return b.Bytes()
}

// changesOf describes what an Eval created and changed, compared with a
// fresh fixture.
func changesOf(res Result, fresh []Var) string {
	var modified []string
	for _, v := range fresh {
		got, ok := res.Values[v.Name]
		if ok && !reflect.DeepEqual(got.Interface(), v.Value.Interface()) {
			modified = append(modified, v.Name)
		}
	}
	created := slices.Clone(res.Created)
	sort.Strings(created)
	return fmt.Sprintf("created: %s\nmodified: %s\n", strings.Join(created, " "), strings.Join(modified, " "))
}

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	return files
}

// TestCorpus runs every corpus snippet on a fresh interpreter state of its
// own variables and checks its output and exactly which variables it
// created and changed.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	if len(files) < 150 {
		t.Errorf("the corpus has %d snippets, want at least 150", len(files))
	}
	in, err := New(Options{Symbols: []Exports{shopSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCase(name, data)
			if err != nil {
				t.Fatal(err)
			}
			var sent []string
			vars := shopVars()
			res, err := in.Eval(context.Background(), Input{Code: c.code, Vars: vars, Funcs: shopFuncs(&sent)})
			stdout := res.Stdout
			if len(sent) > 0 {
				stdout += "[sent] " + strings.Join(sent, "; ") + "\n"
			}
			if err != nil {
				// What a failed snippet leaves behind: the variables as
				// given, which must be as they were.
				res.Values, res.Created = map[string]reflect.Value{}, nil
				for _, v := range vars {
					res.Values[v.Name] = v.Value
				}
			}
			changes := changesOf(res, shopVars())
			if *updateCorpus {
				c.stdout, c.changes = stdout, changes
				if err != nil && !c.hasErr {
					t.Errorf("failed: %v", err)
				}
				if err := os.WriteFile(f, c.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			switch {
			case c.hasErr && err == nil:
				t.Errorf("succeeded, want an error containing %q", c.err)
			case c.hasErr && !strings.Contains(err.Error(), c.err):
				t.Errorf("error %q, want it to contain %q", err, c.err)
			case !c.hasErr && err != nil:
				t.Fatalf("failed: %v", err)
			}
			if stdout != c.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, c.stdout)
			}
			if changes != c.changes {
				t.Errorf("changes:\n%s\nwant:\n%s", changes, c.changes)
			}
		})
	}
}
