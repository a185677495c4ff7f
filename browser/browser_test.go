package browser

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStartAndClose(t *testing.T) {
	needChromium(t)
	ctx := testCtx(t)
	b, err := Start(ctx, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	dir := b.ProfileDir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("profile dir: %v", err)
	}
	if pids := processesUsing("--user-data-dir=" + dir); len(pids) == 0 {
		t.Fatal("no Chromium process uses the profile directory")
	}
	if err := b.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	tab, err := b.NewTab(ctx, siteURL("/table"))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Preview(0); got != `Browser at `+siteURL("/")+` "Home"` {
		t.Errorf("Preview = %q", got)
	}
	if got := tab.Preview(0); got != `Browser tab at `+siteURL("/table")+` "Prices"` {
		t.Errorf("tab Preview = %q", got)
	}
	v := b.Version()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b.Version() == v {
		t.Error("Close did not change the version")
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile dir still there after Close: %v", err)
	}
	if pids := processesUsing("--user-data-dir=" + dir); len(pids) != 0 {
		t.Errorf("processes left after Close: %v", pids)
	}
	if got := tab.Preview(0); got != "Browser (closed)" {
		t.Errorf("tab Preview after Close = %q", got)
	}
	if err := tab.Goto(ctx, siteURL("/")); !errors.Is(err, ErrClosed) {
		t.Errorf("Goto on a tab of a closed browser: %v, want ErrClosed", err)
	}
}

func TestStartMissingChromium(t *testing.T) {
	opts := testOpts
	opts.ExecPath = "/nonexistent/chromium"
	_, err := Start(context.Background(), opts)
	if !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "apt-get install -y chromium") {
		t.Errorf("err = %v, want ErrNoChromium naming the install command", err)
	}
}

func TestStartCancelled(t *testing.T) {
	needChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, err := Start(ctx, testOpts); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
}

func TestLifetimeNotTiedToFirstContext(t *testing.T) {
	b := newTab(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := b.Goto(testCtx(t), siteURL("/table")); err != nil {
		t.Fatalf("the tab died with the first call's context: %v", err)
	}
}

func TestNavigationAndReading(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	text, err := b.Text(ctx, "h1")
	if err != nil || text != "Welcome" {
		t.Fatalf("Text(h1) = %q, %v", text, err)
	}
	all, err := b.Text(ctx, "")
	if err != nil || !strings.Contains(all, "Hello from the test site.") {
		t.Fatalf("Text() = %q, %v", all, err)
	}
	html, err := b.HTML(ctx, "h1")
	if err != nil || html != "<h1>Welcome</h1>" {
		t.Fatalf("HTML(h1) = %q, %v", html, err)
	}
	if err := b.Click(ctx, `a[href="/table"]`); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx, "#t"); err != nil {
		t.Fatal(err)
	}
	if b.URL() != siteURL("/table") {
		t.Errorf("URL = %q after the click", b.URL())
	}
	if err := b.Back(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	if got := b.URL(); got != siteURL("/") {
		t.Errorf("URL after Back = %q", got)
	}
	if err := b.Reload(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestFormTypeAndPress(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/form")); err != nil {
		t.Fatal(err)
	}
	if err := b.Type(ctx, "#email", "first"); err != nil {
		t.Fatal(err)
	}
	// Type replaces what the field held.
	if err := b.Type(ctx, "#email", "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Text(ctx, "#echo"); got != "ann@example.com" {
		t.Errorf("the page saw %q", got)
	}
	if err := b.Type(ctx, "#pw", "s3cret!"); err != nil {
		t.Fatal(err)
	}
	if err := b.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx, "#msg"); err != nil {
		t.Fatal(err)
	}
	msg, _ := b.Text(ctx, "#msg")
	if msg != "Signed in as ann@example.com with 7 characters" {
		t.Errorf("msg = %q", msg)
	}
}

func TestKeys(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/keys")); err != nil {
		t.Fatal(err)
	}
	if err := b.Click(ctx, "#k"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Return", "ctrl+a", "ArrowDown", "Page_Down", "x", "TAB"} {
		if err := b.Press(ctx, k); err != nil {
			t.Fatalf("Press(%q): %v", k, err)
		}
	}
	got, _ := b.Text(ctx, "#log")
	if want := "Enter a+ctrl ArrowDown PageDown x Tab"; got != want {
		t.Errorf("keys seen = %q, want %q", got, want)
	}
	if err := b.Press(ctx, "hyperdrive"); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("Press(hyperdrive) = %v", err)
	}
}

func TestWaitTimeoutNamesSelector(t *testing.T) {
	b := newTab(t)
	if err := b.Goto(testCtx(t), siteURL("/late")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := b.Wait(ctx, "#late"); err != nil {
		t.Fatalf("an element that appears after 300ms: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := b.Wait(ctx, "#never")
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), `"#never"`) {
		t.Fatalf("err = %v, want ErrTimeout naming #never", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Wait returned after %v, after the caller's deadline", d)
	}
	if ctx.Err() != nil {
		t.Error("the timeout was reported only after the caller's deadline")
	}
	// The tab is still usable.
	if err := b.Click(testCtx(t), "#late"); err != nil {
		t.Fatal(err)
	}
	if got := b.Title(); got != "clicked" {
		t.Logf("title = %q (the event may lag)", got)
	}
}

func TestEval(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/table")); err != nil {
		t.Fatal(err)
	}
	v, err := b.Eval(ctx, `[...document.querySelectorAll('#t tr')].slice(1).map(r => ({item: r.cells[0].innerText, price: +r.cells[1].innerText}))`)
	if err != nil {
		t.Fatal(err)
	}
	rows, ok := v.([]any)
	if !ok || len(rows) != 2 {
		t.Fatalf("Eval = %#v", v)
	}
	if r := rows[1].(map[string]any); r["item"] != "Pear" || r["price"] != 0.8 {
		t.Errorf("row = %#v", r)
	}
	if v, err := b.Eval(ctx, `Promise.resolve(42)`); err != nil || v != 42.0 {
		t.Errorf("promise = %#v, %v", v, err)
	}
	if v, err := b.Eval(ctx, `undefined`); err != nil || v != nil {
		t.Errorf("undefined = %#v, %v", v, err)
	}
	_, err = b.Eval(ctx, `(() => { throw new Error("boom") })()`)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("exception: err = %v, want one naming boom", err)
	}
	if _, err := b.Eval(ctx, `1 +`); err == nil || !strings.Contains(err.Error(), "SyntaxError") {
		t.Errorf("syntax error: err = %v", err)
	}
}

func TestScroll(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/medium")); err != nil {
		t.Fatal(err)
	}
	if err := b.Scroll(ctx, 0, 500); err != nil {
		t.Fatal(err)
	}
	if y, _ := b.Eval(ctx, `window.scrollY`); y != 500.0 {
		t.Errorf("scrollY = %v", y)
	}
	if err := b.ScrollTo(ctx, `a[href="/item/99"]`); err != nil {
		t.Fatal(err)
	}
	if y, _ := b.Eval(ctx, `window.scrollY`); y.(float64) <= 500 {
		t.Errorf("scrollY after ScrollTo = %v", y)
	}
}

func TestScreenshot(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	s, err := b.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Preview(0); got != "PNG 1280×800" {
		t.Errorf("Preview = %q", got)
	}
}

func TestScreenshotPreviewOffline(t *testing.T) {
	png := Screenshot("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x05\x00\x00\x00\x03\x20rest")
	if got := png.Preview(0); got != "PNG 1280×800" {
		t.Errorf("Preview = %q", got)
	}
	if got := Screenshot("GIF89a").Preview(0); got != "not a PNG (6 bytes)" {
		t.Errorf("Preview = %q", got)
	}
	if got := png.Preview(5); got != "PNG …" {
		t.Errorf("Preview(5) = %q", got)
	}
}

func TestTwoBrowsersTwoTabs(t *testing.T) {
	needChromium(t)
	ctx := testCtx(t)
	b1 := newTab(t)
	b2, err := Start(ctx, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	t2, err := b2.NewTab(ctx, siteURL("/form"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b1.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	if err := b2.Goto(ctx, siteURL("/table")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b     *Browser
		title string
	}{{b1, "Home"}, {b2, "Prices"}, {t2, "Sign in"}} {
		v, err := c.b.Eval(ctx, "document.title")
		if err != nil || v != c.title {
			t.Errorf("%s: title = %v, %v; want %q", c.b.Preview(0), v, err, c.title)
		}
	}
	// Closing a tab leaves its browser alone.
	if err := t2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b2.Text(ctx, "#t"); err != nil {
		t.Errorf("the browser after closing its tab: %v", err)
	}
	if _, err := t2.Text(ctx, "body"); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed tab: %v", err)
	}
}

func TestConcurrentTabs(t *testing.T) {
	b := sharedBrowser(t)
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tab, err := b.NewTab(ctx, siteURL("/table"))
			if err != nil {
				errs <- err
				return
			}
			defer tab.Close()
			// Two goroutines on one tab are serialised.
			done := make(chan error, 1)
			go func() { _, err := tab.Text(ctx, "#t"); done <- err }()
			_, err = tab.Eval(ctx, "1 + "+string(rune('0'+i)))
			if err == nil {
				err = <-done
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com":       "https://example.com",
		" http://a.b/c ":    "http://a.b/c",
		"about:blank":       "about:blank",
		"data:text/html,hi": "data:text/html,hi",
		"":                  "",
	} {
		if got := normalizeURL(in); got != want {
			t.Errorf("normalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocalOnly(t *testing.T) {
	b := newTab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// example.com resolves to nothing under LocalOnly: no packet leaves.
	err := b.Goto(ctx, "http://example.com/")
	if err == nil || !strings.Contains(err.Error(), "ERR_NAME_NOT_RESOLVED") {
		t.Errorf("Goto(example.com) = %v, want ERR_NAME_NOT_RESOLVED", err)
	}
}
