package eval_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/browser"
	"github.com/byref/byref/eval"
)

// TestHTMLInChromium opens the HTML report of a 50-case run in Chromium,
// served from 127.0.0.1, and checks what a person sees: the four plots,
// drawn (their bars' colours are in the screenshot), and a failing case's
// trajectory. The screenshots are kept as test artifacts.
func TestHTMLInChromium(t *testing.T) {
	opts := browser.Options{LocalOnly: true, Timeout: 15 * time.Second, TempDir: t.TempDir()}
	if _, err := browser.FindChromium(opts); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err) // the error names the install command
	}
	r, err := eval.Run(context.Background(), manyCases(50), eval.Options{Model: goodModel(), Repetitions: 2, Price: price})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Goto(ctx, srv.URL+"/report.html"); err != nil {
		t.Fatal(err)
	}
	eval := func(js string) any {
		t.Helper()
		v, err := b.Eval(ctx, js)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	if n := eval(`[...document.querySelectorAll("figure svg")].filter(s => s.getBoundingClientRect().width > 400 && s.querySelectorAll("rect").length == 50).length`); n != 4.0 {
		t.Fatalf("%v plots of 50 bars on the page, want 4", n)
	}
	top := shot(t, b, ctx, "plots")
	green, red := colours(top)
	if green < 500 || red < 100 {
		t.Errorf("the plots are not drawn: %d green and %d red pixels in the screenshot", green, red)
	}

	// The first failing trial's trajectory, scrolled into view.
	if v := eval(`(() => { const s = document.querySelector("section.trial"); if (!s) return ""; s.scrollIntoView(); const r = s.getBoundingClientRect(); return r.top > -2 && r.top < innerHeight ? s.innerText : "top " + r.top + " of " + innerHeight })()`); v == "" {
		t.Fatal("no failing trial in view")
	} else if s := v.(string); strings.HasPrefix(s, "top ") || !bytes.Contains([]byte(s), []byte("Trajectory")) || !bytes.Contains([]byte(s), []byte("word_count")) || !bytes.Contains([]byte(s), []byte("result equals 1")) {
		t.Fatalf("the failing trial shows:\n%s", s)
	}
	shot(t, b, ctx, "failing-trial")
}

// shot saves a screenshot as a test artifact and returns it decoded.
func shot(t *testing.T, b *browser.Browser, ctx context.Context, name string) image.Image {
	t.Helper()
	data, err := b.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// colours counts the pixels of the plots' pass (#3a7d44) and fail
// (#c0392b) bars.
func colours(img image.Image) (green, red int) {
	near := func(a, b uint32) bool { return a>>8 >= b-6 && a>>8 <= b+6 }
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			switch {
			case near(r, 0x3a) && near(g, 0x7d) && near(b, 0x44):
				green++
			case near(r, 0xc0) && near(g, 0x39) && near(b, 0x2b):
				red++
			}
		}
	}
	return green, red
}
