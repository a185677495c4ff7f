package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// testOpts is what every test browser starts with: only 127.0.0.1 is
// reachable, and profile directories go to a directory TestMain checks.
var testOpts = Options{LocalOnly: true, Timeout: 10 * time.Second}

func TestMain(m *testing.M) {
	parent, err := os.MkdirTemp("", "byref-browser-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testOpts.TempDir = parent
	code := m.Run()
	closeShared()
	if leaks := leaked(parent); leaks != "" {
		fmt.Fprintln(os.Stderr, "browser: leak check failed:", leaks)
		killLeftovers(parent)
		code = 1
	}
	os.RemoveAll(parent)
	os.Exit(code)
}

// leaked describes the Chromium processes and profile directories left
// under parent.
func leaked(parent string) string {
	var out []string
	// Processes can take a moment to be reaped after Close returns.
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := processesUsing("--user-data-dir=" + parent)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			out = append(out, fmt.Sprintf("Chromium processes still running: %v", pids))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if entries, _ := os.ReadDir(parent); len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		out = append(out, "profile directories left: "+strings.Join(names, ", "))
	}
	return strings.Join(out, "; ")
}

// needChromium skips the test when Chromium is missing, or fails it in CI.
func needChromium(tb testing.TB) {
	tb.Helper()
	path := testOpts.withDefaults().ExecPath
	if _, err := exec.LookPath(path); err == nil {
		return
	}
	msg := fmt.Sprintf("Chromium not found at %s; install it with scripts/install-chromium.sh (%s) or set $BYREF_CHROMIUM", path, InstallCommand)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

var shared struct {
	once sync.Once
	b    *Browser
	err  error
}

// sharedBrowser is one Chromium for the whole test binary.
func sharedBrowser(tb testing.TB) *Browser {
	tb.Helper()
	needChromium(tb)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shared.b, shared.err = Start(ctx, testOpts)
	})
	if shared.err != nil {
		tb.Fatalf("starting Chromium: %v", shared.err)
	}
	return shared.b
}

func closeShared() {
	if shared.b != nil {
		shared.b.Close()
	}
}

// newTab opens a tab of the shared browser, closed when the test ends.
func newTab(tb testing.TB) *Browser {
	tb.Helper()
	b := sharedBrowser(tb)
	t, err := b.NewTab(testCtx(tb), "")
	if err != nil {
		tb.Fatalf("NewTab: %v", err)
	}
	tb.Cleanup(func() { t.Close() })
	return t
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// pages are the test site's pages.
var pages = map[string]string{
	"/": `<!doctype html><title>Home</title>
<h1>Welcome</h1>
<p>Hello from the test site.</p>
<a href="/form">Sign in</a> <a href="/table">Prices</a>`,
	"/form": `<!doctype html><title>Sign in</title>
<form action="/done" method="get">
<label for="email">Email</label> <input id="email" name="email">
<label for="pw">Password</label> <input id="pw" name="pw" type="password">
<label><input type="checkbox" name="remember" id="remember"> Remember me</label>
<button type="submit" id="go">Sign in</button>
</form>
<p id="echo"></p>
<script>document.getElementById('email').addEventListener('input', e => document.getElementById('echo').textContent = e.target.value)</script>`,
	"/done": `<!doctype html><title>Done</title><p id="msg">Signed in</p>
<script>const q = new URLSearchParams(location.search); document.getElementById('msg').textContent = 'Signed in as ' + q.get('email') + ' with ' + (q.get('pw') || '').length + ' characters';</script>`,
	"/table": `<!doctype html><title>Prices</title>
<table id="t"><tr><th>Item</th><th>Price</th></tr><tr><td>Apple</td><td>1.20</td></tr><tr><td>Pear</td><td>0.80</td></tr></table>`,
	"/late": `<!doctype html><title>Late</title><div id="box"></div>
<script>setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'Late button'; b.onclick = () => document.title = 'clicked'; document.getElementById('box').appendChild(b) }, 300)</script>`,
	"/keys": `<!doctype html><title>Keys</title><input id="k" autofocus><p id="log"></p>
<script>document.getElementById('k').addEventListener('keydown', e => document.getElementById('log').textContent += e.key + (e.ctrlKey ? '+ctrl' : '') + ' ')</script>`,
	"/canvas": `<!doctype html><title>Canvas</title><style>body{margin:0}</style>
<div id="pad" style="position:absolute;left:100px;top:100px;width:200px;height:100px;background:#ccc"></div>
<div style="height:3000px"></div>
<script>
const log = [];
const pad = document.getElementById('pad');
pad.addEventListener('click', e => log.push('click ' + e.clientX + ',' + e.clientY + ' ' + e.detail));
pad.addEventListener('dblclick', e => log.push('dblclick'));
pad.addEventListener('contextmenu', e => { e.preventDefault(); log.push('right'); });
pad.addEventListener('mousedown', e => log.push('down ' + e.clientX + ',' + e.clientY));
pad.addEventListener('mouseup', e => log.push('up ' + e.clientX + ',' + e.clientY));
pad.addEventListener('mousemove', e => e.buttons && log.push('move ' + e.clientX + ',' + e.clientY + ' buttons=' + e.buttons));
for (const ev of ['dragstart', 'dragenter', 'drop', 'dragend']) pad.addEventListener(ev, e => log.push(ev));
window.log = log;
</script>`,
	"/bench": `<!doctype html><title>Bench</title><style>body{margin:0}</style>
<h1>Bench</h1><p id="p">Some text to read.</p>
<input id="q" name="q"> <button id="b" type="button" onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Press</button>
<a id="next" href="/bench2">Next</a>
<div style="height:3000px"></div>`,
	"/bench2": `<!doctype html><title>Bench 2</title><h1>Bench 2</h1>`,
	"/dnd": `<!doctype html><title>DnD</title><style>body{margin:0} div{position:absolute;width:100px;height:100px}</style>
<div id="item" draggable="true" style="left:50px;top:50px;background:#fc9">Item</div>
<div id="zone" style="left:300px;top:50px;background:#9cf"></div>
<script>
const log = [];
const item = document.getElementById('item'), zone = document.getElementById('zone');
item.addEventListener('dragstart', e => { e.dataTransfer.setData('text/plain', 'item-1'); log.push('dragstart item'); });
item.addEventListener('dragend', e => log.push('dragend item ' + e.dataTransfer.dropEffect));
zone.addEventListener('dragenter', e => { e.preventDefault(); log.push('dragenter zone'); });
zone.addEventListener('dragover', e => e.preventDefault());
zone.addEventListener('drop', e => { e.preventDefault(); log.push('drop zone ' + e.dataTransfer.getData('text/plain') + ' ' + e.clientX + ',' + e.clientY); });
window.log = log;
</script>`,
}

// medium is a page with 100 rows of links, inputs and text.
func medium() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Medium</title><h1>Catalogue</h1><form>`)
	for i := range 100 {
		fmt.Fprintf(&b, `<div class="row"><a href="/item/%d">Item %d</a> <span>Some description of item number %d, with a few words.</span> <input name="q%d" placeholder="Quantity %d"> <button type="button">Add %d</button></div>`, i, i, i, i, i, i)
	}
	b.WriteString(`</form>`)
	return b.String()
}

var testSite = sync.OnceValue(func() *httptest.Server {
	mediumPage := medium()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		page, ok := pages[r.URL.Path]
		if r.URL.Path == "/medium" {
			page, ok = mediumPage, true
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	return httptest.NewServer(mux) // 127.0.0.1; never closed, it dies with the test binary
})

func siteURL(path string) string { return testSite().URL + path }
