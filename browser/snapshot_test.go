package browser

import (
	"errors"
	"strings"
	"testing"
)

func TestSnapshotIDsStableAndUsable(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/")); err != nil {
		t.Fatal(err)
	}
	s1, err := b.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "Page \"Home\" at " + siteURL("/") + "\ne1 link \"Sign in\" href=/form\ne2 link \"Prices\" href=/table\nText:\nWelcome\nHello from the test site.\nSign in Prices\n"
	if got := s1.String(); got != want {
		t.Errorf("snapshot =\n%s\nwant\n%s", got, want)
	}
	s2, err := b.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s1.String() != s2.String() {
		t.Errorf("a second snapshot of the same page differs:\n%s\n%s", s1, s2)
	}
	if !strings.HasPrefix(s1.Preview(60), "Snapshot of "+siteURL("/")+": 2 elements") {
		t.Errorf("Preview = %q", s1.Preview(60))
	}
	if err := b.ClickID(ctx, "e2"); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(ctx, "#t"); err != nil {
		t.Fatal(err)
	}
	// IDs are not reused after a navigation: e1 is gone.
	err = b.ClickID(ctx, "e1")
	if !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "take a new snapshot") {
		t.Errorf("a stale ID: %v", err)
	}
	if err := b.Goto(ctx, siteURL("/form")); err != nil {
		t.Fatal(err)
	}
	s3, err := b.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s3.Elements) != 4 || s3.Elements[0].ID != "e3" {
		t.Fatalf("form snapshot:\n%s", s3)
	}
	if err := b.TypeID(ctx, s3.Elements[0].ID, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := b.ClickID(ctx, s3.Elements[2].ID); err != nil { // the checkbox
		t.Fatal(err)
	}
	s4, _ := b.Snapshot(ctx)
	if e := s4.Elements[0]; e.ID != "e3" || e.Value != "bob@example.com" || e.Role != "textbox" || e.Name != "Email" {
		t.Errorf("email field = %+v", e)
	}
	if e := s4.Elements[2]; !e.Checked || e.Role != "checkbox" || e.Name != "Remember me" {
		t.Errorf("checkbox = %+v", e)
	}
}

func TestSnapshotBounded(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/medium")); err != nil {
		t.Fatal(err)
	}
	s, err := b.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Elements) != MaxSnapshotElements || s.Omitted != 300-MaxSnapshotElements {
		t.Errorf("%d elements, %d omitted", len(s.Elements), s.Omitted)
	}
	if len([]rune(s.Text)) != MaxSnapshotText || !s.TextCut {
		t.Errorf("text of %d runes, cut=%v", len([]rune(s.Text)), s.TextCut)
	}
	if n := len(s.String()); n > 16<<10 {
		t.Errorf("the rendered snapshot is %d bytes, over the runtime's default output bound", n)
	}
}
