package browser

import (
	"testing"
)

// The latency of each action on a local page, in one tab of a shared
// Chromium. Run with: go test -run xxx -bench . -benchtime=10x ./browser/

func BenchmarkStartClose(b *testing.B) {
	needChromium(b)
	ctx := testCtx(b)
	b.ReportAllocs()
	for b.Loop() {
		br, err := Start(ctx, testOpts)
		if err != nil {
			b.Fatal(err)
		}
		if err := br.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTab returns a tab showing the bench page.
func benchTab(b *testing.B) *Browser {
	b.Helper()
	tab := newTab(b)
	if err := tab.Goto(testCtx(b), siteURL("/bench")); err != nil {
		b.Fatal(err)
	}
	return tab
}

// bench times f on a tab showing the bench page.
func bench(b *testing.B, f func(tab *Browser) error) {
	tab := benchTab(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := f(tab); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGoto(b *testing.B) {
	ctx := testCtx(b)
	url := siteURL("/bench")
	bench(b, func(tab *Browser) error { return tab.Goto(ctx, url) })
}

func BenchmarkBack(b *testing.B) {
	ctx := testCtx(b)
	tab := benchTab(b)
	next := siteURL("/bench2")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := tab.Goto(ctx, next); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := tab.Back(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// A click on a button that does not navigate: it includes the navGrace the
// click waits for a navigation.
func BenchmarkClick(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Click(ctx, "#b") })
}

// A click on a link: the click, and the load of the page it opens.
func BenchmarkClickNavigate(b *testing.B) {
	ctx := testCtx(b)
	tab := benchTab(b)
	url := siteURL("/bench")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := tab.Goto(ctx, url); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := tab.Click(ctx, "#next"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkType(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Type(ctx, "#q", "hello world") })
}

func BenchmarkPress(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Press(ctx, "ArrowLeft") })
}

func BenchmarkWait(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Wait(ctx, "#p") })
}

func BenchmarkText(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { _, err := tab.Text(ctx, "#p"); return err })
}

func BenchmarkHTML(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { _, err := tab.HTML(ctx, ""); return err })
}

func BenchmarkSnapshot(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { _, err := tab.Snapshot(ctx); return err })
}

// A snapshot of a page of 100 rows, each a link, a field and a button.
func BenchmarkSnapshotMedium(b *testing.B) {
	tab := newTab(b)
	ctx := testCtx(b)
	if err := tab.Goto(ctx, siteURL("/medium")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tab.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// snapshotID returns the ID a snapshot of tab gives the element named name.
func snapshotID(b *testing.B, tab *Browser, name string) string {
	b.Helper()
	s, err := tab.Snapshot(testCtx(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range s.Elements {
		if e.Name == name {
			return e.ID
		}
	}
	b.Fatalf("no element %q in %s", name, s)
	return ""
}

func BenchmarkClickID(b *testing.B) {
	ctx := testCtx(b)
	tab := benchTab(b)
	id := snapshotID(b, tab, "Press")
	b.ReportAllocs()
	for b.Loop() {
		if err := tab.ClickID(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTypeID(b *testing.B) {
	ctx := testCtx(b)
	tab := benchTab(b)
	id := snapshotID(b, tab, "q")
	b.ReportAllocs()
	for b.Loop() {
		if err := tab.TypeID(ctx, id, "hello world"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScroll(b *testing.B) {
	ctx := testCtx(b)
	dy := 100
	bench(b, func(tab *Browser) error { dy = -dy; return tab.Scroll(ctx, 0, dy) })
}

func BenchmarkScrollTo(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.ScrollTo(ctx, "#next") })
}

func BenchmarkEval(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error {
		_, err := tab.Eval(ctx, "({title: document.title, n: document.querySelectorAll('*').length})")
		return err
	})
}

func BenchmarkScreenshot(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { _, err := tab.Screenshot(ctx); return err })
}

// Opening a tab at a URL and closing it.
func BenchmarkNewTabClose(b *testing.B) {
	ctx := testCtx(b)
	url := siteURL("/bench")
	bench(b, func(tab *Browser) error {
		t, err := tab.NewTab(ctx, url)
		if err != nil {
			return err
		}
		return t.Close()
	})
}

func BenchmarkComputerClick(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.ClickAt(ctx, 600, 500, ButtonLeft, 1) })
}

func BenchmarkComputerMove(b *testing.B) {
	ctx := testCtx(b)
	x := 100
	bench(b, func(tab *Browser) error { x = 300 - x; return tab.MoveMouse(ctx, x, 400) })
}

func BenchmarkComputerDrag(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Drag(ctx, []Point{{600, 400}, {650, 420}, {700, 440}}) })
}

func BenchmarkComputerType(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.TypeText(ctx, "hello world") })
}

func BenchmarkComputerKey(b *testing.B) {
	ctx := testCtx(b)
	bench(b, func(tab *Browser) error { return tab.Press(ctx, "ctrl+a") })
}

func BenchmarkComputerScroll(b *testing.B) {
	ctx := testCtx(b)
	dy := 100
	bench(b, func(tab *Browser) error { dy = -dy; return tab.ScrollAt(ctx, 640, 400, 0, dy) })
}
