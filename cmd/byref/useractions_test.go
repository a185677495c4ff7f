package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The user's own module: a package of actions (an exported function that
// takes a struct of the package, a method, a closure) and a program of
// package main that adds an action and a type of its own, runs two agents
// on scripted models and records them into a SQLite file.
var userModule = map[string]string{
	"shop/shop.go": `// Package shop is a user's domain: its types and actions.
package shop

import (
	"context"
	"fmt"
	"strings"

	"github.com/byref/byref/action"
)

// Item is a line of the catalog.
type Item struct {
	Name  string   ` + "`json:\"name\"`" + `
	Price float64  ` + "`json:\"price\"`" + `
	Tags  []string ` + "`json:\"tags,omitempty\"`" + `
}

// Query is what Search looks for.
type Query struct {
	Text string ` + "`json:\"text\"`" + `
	Kind *string ` + "`json:\"kind,omitempty\"`" + `
}

var catalog = []Item{{"green tea", 4.5, []string{"tea"}}, {"black tea", 3.25, []string{"tea"}}, {"coffee", 7, nil}, {"tea pot", 20, []string{"tea", "pot"}}}

// Search returns up to limit items whose name holds the query's text.
func Search(ctx context.Context, q Query, limit int) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Item
	for _, it := range catalog {
		if strings.Contains(it.Name, q.Text) && len(out) < limit {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("nothing matches %q", q.Text)
	}
	return out, nil
}

// Page says where a listing starts.
type Page struct {
	Offset int ` + "`json:\"offset\"`" + `
}

// FindArgs are the arguments of Find, one per field.
type FindArgs struct {
	Text string ` + "`json:\"text\"`" + `
	Max  int    ` + "`json:\"max,omitempty\"`" + `
	Page
}

// Find lists the items whose name holds Text, from Offset on.
func Find(ctx context.Context, args FindArgs) ([]Item, error) {
	var out []Item
	for _, it := range catalog {
		if strings.Contains(it.Name, args.Text) {
			out = append(out, it)
		}
	}
	if args.Offset > len(out) {
		return nil, nil
	}
	out = out[args.Offset:]
	if args.Max > 0 && len(out) > args.Max {
		out = out[:args.Max]
	}
	return out, nil
}

// Cart sums what is added to it.
type Cart struct{ total float64 }

// Add adds items and returns the cart's total.
func (c *Cart) Add(items []Item) float64 {
	for _, it := range items {
		c.total += it.Price
	}
	return c.total
}

// NewDiscount returns a closure that takes pct percent off a total.
func NewDiscount(pct float64) func(total float64) float64 {
	return func(total float64) float64 { return total * (100 - pct) / 100 }
}

// Actions is the shop's action set: one cart per set.
func Actions() *action.Set {
	cart := &Cart{}
	return action.MustSet(
		action.MustNew(action.Spec{Name: "search", Description: "Search the catalog.", Func: Search,
			Params: []action.Param{{Name: "q"}, {Name: "limit", Default: 10}}}),
		action.MustNew(action.Spec{Name: "find", Description: "Find items.", Func: Find,
			Params: []action.Param{{Name: "text"}, {Name: "max", Optional: true}, {Name: "offset", Optional: true}}}),
		action.MustNew(action.Spec{Name: "add", Description: "Add items to the cart.", Func: cart.Add, Params: []action.Param{{Name: "items"}}}),
		action.MustNew(action.Spec{Name: "discount", Description: "Take 10% off.", Func: NewDiscount(10), Params: []action.Param{{Name: "total"}}}),
	)
}
`,
	"record/main.go": `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"example.com/shopapp/shop"
	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

func record(store run.Store, actions *action.Set, vars []variable.Spec, responses ...llm.Response) (run.ID, json.RawMessage) {
	rt, err := agent.New(agent.Options{Model: llm.NewScripted(responses...), Actions: actions, Store: store, Variables: vars})
	if err != nil {
		panic(err)
	}
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "shop"})
	if err != nil || o.Status != run.StatusCompleted {
		panic(fmt.Sprint(o, err))
	}
	return o.RunID, o.Result
}

func call(id, name, args string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Arguments: args} }

func main() {
	store, err := sqlite.Open(os.Args[1], sqlite.Options{})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	kind := "tea"
	id, result := record(store, shop.Actions(), []variable.Spec{{Name: "pref", Value: shop.Query{Text: "tea", Kind: &kind}}, {Name: "budget", Value: 30.0}},
		llm.Response{Text: "Search twice.", ToolCalls: []llm.ToolCall{
			call("c1", "search", ` + "`" + `{"q":{"text":"tea","kind":"tea"},"limit":2}` + "`" + `),
			call("c2", "search", ` + "`" + `{"q":"<<var:pref>>"}` + "`" + `),
		}},
		llm.Response{Text: "Add the first, then discount.", ToolCalls: []llm.ToolCall{
			call("c3", "add", ` + "`" + `{"items":"<<var:search_result>>"}` + "`" + `),
			call("c4", "discount", ` + "`" + `{"total":"<<var:add_result>>"}` + "`" + `),
			call("c5", "find", ` + "`" + `{"text":"tea","offset":1}` + "`" + `),
		}},
		llm.Response{Text: "Summarise in Go.\n` + "```" + `go\nvar names []string\nfor _, it := range search_result {\n\tnames = append(names, strings.ToUpper(it.Name))\n}\nmore, _ := find(\"pot\", 5, 0)\nsummary := fmt.Sprintf(\"%s: %.2f of %.0f, %d more, %d found\", strings.Join(names, \",\"), discount_result, budget, len(more), len(find_result))\n` + "```" + `"},
		llm.CallTool("terminate", ` + "`" + `{"success":true,"result":"<<var:summary>>"}` + "`" + `),
	)
	fmt.Printf("shop %s %s\n", id, result)

	notes := action.MustSet(
		action.MustNew(action.Spec{Name: "search", Description: "Search the catalog.", Func: shop.Search, Params: []action.Param{{Name: "q"}, {Name: "limit", Default: 10}}}),
		action.MustNew(action.Spec{Name: "annotate", Description: "Annotate items.", Func: annotate, Params: []action.Param{{Name: "items"}, {Name: "prefix"}}}),
	)
	id, result = record(store, notes, []variable.Spec{{Name: "prefix", Value: note{Text: "found", Count: 1}}},
		llm.CallTool("search", ` + "`" + `{"q":{"text":"o","kind":"any"},"limit":3}` + "`" + `),
		llm.CallTool("annotate", ` + "`" + `{"items":"<<var:search_result>>","prefix":"<<var:prefix>>"}` + "`" + `),
		llm.CallTool("terminate", ` + "`" + `{"success":true,"result":"<<var:annotate_result>>"}` + "`" + `),
	)
	fmt.Printf("notes %s %s\n", id, result)
}
`,
}

// notesGo is the user's package main's own type and action, in the file
// the replay of a run that used them sits beside.
const notesGo = `package main

import (
	"fmt"

	"example.com/shopapp/shop"
)

type note struct {
	Text  string
	Count int
	Names []string
}

func annotate(items []shop.Item, prefix note) note {
	n := note{Text: fmt.Sprintf("%s %d", prefix.Text, len(items)), Count: prefix.Count + len(items)}
	for _, it := range items {
		n.Names = append(n.Names, it.Name)
	}
	return n
}
`

// writeModule writes the user's module, requiring this one (replaced by
// the working tree), and returns its directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	all := map[string]string{
		"go.mod": "module example.com/shopapp\n\ngo 1.24\n\nrequire github.com/byref/byref v0.0.0\n\nreplace github.com/byref/byref => " + root + "\n",
		"go.sum": string(sum),
	}
	for name, body := range files {
		all[name] = body
	}
	for name, body := range all {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goBuildRun builds the package in dir/pkg and runs it with args; it
// returns the output and whether the program succeeded.
func goBuildRun(t *testing.T, dir, pkg string, args ...string) (string, bool) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prog")
	build := exec.Command("go", "build", "-o", bin, "./"+pkg)
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", pkg, err, out)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err == nil
}

// replayResult is the result a replay program printed.
func replayResult(t *testing.T, out string) json.RawMessage {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the replay's last line is not its JSON: %v\n%s", err, out)
	}
	return got.Result
}

func sameJSONValue(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestReplayOfUserActions: runs that used a user's own actions (from the
// user's own module: an exported function taking the user's struct type,
// a method, a closure; and an unexported function and a type of the user's
// package main) replay with the built byref binary and from the
// inspector, with no action set: the printed programs build with go build
// and print the runs' results.
func TestReplayOfUserActions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the user's programs")
	}
	files := map[string]string{}
	for name, body := range userModule {
		files[name] = body
	}
	files["record/notes.go"] = notesGo
	dir := writeModule(t, files)
	db := filepath.Join(t.TempDir(), "runs.db")
	out, ok := goBuildRun(t, dir, "record", db)
	if !ok {
		t.Fatalf("the recorder failed:\n%s", out)
	}
	runs := map[string][2]string{} // name -> ID, result
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) == 3 {
			runs[f[0]] = [2]string{f[1], f[2]}
		}
	}
	shopRun, notesRun := runs["shop"], runs["notes"]
	if shopRun[0] == "" || notesRun[0] == "" {
		t.Fatalf("the recorder printed %s", out)
	}

	// The shop run: its closure and method are looked up in the action
	// set --actions names; its exported function is called by import path.
	src, code := byref(t, "", "replay", shopRun[0], "--db", db, "--actions", "example.com/shopapp/shop.Actions")
	if code != 0 {
		t.Fatalf("byref replay: exit %d:\n%s", code, src)
	}
	for _, want := range []string{`shop.Search(ctx, shop.Query{Text: "tea", Kind: replay.Ptr[string]("tea")}, 2)`, "shop.Search(ctx, pref, 10)",
		"Add func([]shop.Item) float64", "Discount func(float64) float64", `pref := shop.Query{Text: "tea", Kind: replay.Ptr[string]("tea")}`,
		`replay.Func[func(float64) float64](set, "discount")`,
		"findArgs := shop.FindArgs{Text: \"tea\"}\n\tfindArgs.Page.Offset = 1\n\tfind_result, err := shop.Find(ctx, findArgs)",
		"findArgs2 := shop.FindArgs{Text: text_, Max: max_}\n\t\tfindArgs2.Page.Offset = offset_\n\t\treturn shop.Find(ctx, findArgs2)"} {
		if !strings.Contains(src, want) {
			t.Errorf("the shop replay has no %q:\n%s", want, src)
		}
	}
	writeFile(t, filepath.Join(dir, "replayshop", "main.go"), src)
	got, ok := goBuildRun(t, dir, "replayshop")
	if !ok || !sameJSONValue(replayResult(t, got), json.RawMessage(shopRun[1])) {
		t.Fatalf("the shop replay printed %s, want the result %s\n%s", got, shopRun[1], src)
	}

	// Without --actions, main says which fields to fill, and the replay
	// refuses to start with them empty, naming the fix.
	bare, code := byref(t, "", "replay", shopRun[0], "--db", db)
	if code != 0 || !strings.Contains(bare, "// Fill actions with the functions of the run's actions") {
		t.Fatalf("byref replay with no --actions: exit %d:\n%s", code, bare)
	}
	writeFile(t, filepath.Join(dir, "replaybare", "main.go"), bare)
	if got, ok := goBuildRun(t, dir, "replaybare"); ok || !strings.Contains(got, "actions.Add is nil; set it to the function of the action add") {
		t.Errorf("the replay with empty actions printed %s", got)
	}

	// The notes run used a type and an unexported function of package
	// main: its replay is a file of package main, beside the user's own.
	notes, code := byref(t, "", "replay", notesRun[0], "--db", db)
	if code != 0 {
		t.Fatalf("byref replay: exit %d:\n%s", code, notes)
	}
	for _, want := range []string{"package main", "prefix note", "annotate(search_result, prefix)", "func ReplayMain()", `prefix := note{Text: "found", Count: 1}`} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes replay has no %q:\n%s", want, notes)
		}
	}
	writeFile(t, filepath.Join(dir, "replaynotes", "notes.go"), notesGo)
	writeFile(t, filepath.Join(dir, "replaynotes", "main.go"), "package main\n\nfunc main() { ReplayMain() }\n")
	writeFile(t, filepath.Join(dir, "replaynotes", "replay.go"), notes)
	got, ok = goBuildRun(t, dir, "replaynotes")
	if !ok || !sameJSONValue(replayResult(t, got), json.RawMessage(notesRun[1])) {
		t.Fatalf("the notes replay printed %s, want the result %s\n%s", got, notesRun[1], notes)
	}

	// The inspector serves the same programs; the shop's, with the action
	// set named, builds and prints the run's result.
	s := serve(t, "--db", db)
	defer s.stop()
	for _, c := range []struct{ path, want string }{
		{shopRun[0] + "/replay", bare}, {notesRun[0] + "/replay", notes},
		{shopRun[0] + "/replay?actions=example.com/shopapp/shop.Actions", src},
	} {
		resp, err := http.Get(s.base + "/ui/api/runs/" + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != c.want {
			t.Errorf("the inspector's replay %s: %s, and it differs from byref replay's:\n%s", c.path, resp.Status, b)
		}
		if strings.Contains(c.path, "actions=") {
			writeFile(t, filepath.Join(dir, "replayserved", "main.go"), string(b))
			if got, ok := goBuildRun(t, dir, "replayserved"); !ok || !sameJSONValue(replayResult(t, got), json.RawMessage(shopRun[1])) {
				t.Errorf("the inspector's shop replay printed %s, want the result %s", got, shopRun[1])
			}
		}
	}
	resp, err := http.Get(s.base + "/ui/api/runs/" + shopRun[0] + "/replay?actions=x%22%29%3B+panic%281%29+%2F%2F.F")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("an action set function that is no Go name: %s, want 422", resp.Status)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
