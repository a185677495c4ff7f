package browser

import "testing"

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

func BenchmarkClick(b *testing.B) {
	tab := newTab(b)
	ctx := testCtx(b)
	if err := tab.Goto(ctx, siteURL("/late")); err != nil {
		b.Fatal(err)
	}
	if err := tab.Wait(ctx, "#late"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := tab.Click(ctx, "#late"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStartClose(b *testing.B) {
	needChromium(b)
	ctx := testCtx(b)
	b.ReportAllocs()
	for b.Loop() {
		br, err := Start(ctx, testOpts)
		if err != nil {
			b.Fatal(err)
		}
		br.Close()
	}
}
