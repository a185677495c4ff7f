package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// normalizeURL adds https:// to an address without a scheme ("example.com").
func normalizeURL(url string) string {
	url = strings.TrimSpace(url)
	if url == "" || strings.Contains(url, "://") || strings.HasPrefix(url, "about:") ||
		strings.HasPrefix(url, "data:") || strings.HasPrefix(url, "javascript:") || strings.HasPrefix(url, "file:") {
		return url
	}
	return "https://" + url
}

// localSchemes reach the host's files or the browser's internals; a model
// must not open them.
var localSchemes = []string{"file:", "chrome:", "chrome-extension:", "devtools:", "view-source:", "filesystem:"}

// checkURL refuses a URL with a local scheme, unless the browser's options
// allow it.
func (b *Browser) checkURL(op, url string) error {
	if b.proc.opts.AllowLocalURLs {
		return nil
	}
	lower := strings.ToLower(url)
	for _, s := range localSchemes {
		if strings.HasPrefix(lower, s) {
			return &Error{Op: op, Err: fmt.Errorf("%q: %s URLs reach this machine's files or the browser's internals and are refused (Options.AllowLocalURLs allows them)", url, strings.TrimSuffix(s, ":"))}
		}
	}
	return nil
}

// Goto loads url in the tab and waits for its load event. An address without
// a scheme gets https://.
func (b *Browser) Goto(ctx context.Context, url string) error {
	url = normalizeURL(url)
	if url == "" {
		return &Error{Op: "goto", Err: fmt.Errorf("the URL is empty")}
	}
	if err := b.checkURL("goto", url); err != nil {
		return err
	}
	defer b.version.Add(1)
	_, err := run(ctx, b, "goto", url, "the page did not load", chromedp.Navigate(url))
	return err
}

// Back goes back one page in the tab's history.
func (b *Browser) Back(ctx context.Context) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "back", "", "the previous page did not load", chromedp.NavigateBack())
	return err
}

// Reload reloads the page.
func (b *Browser) Reload(ctx context.Context) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "reload", "", "the page did not load", chromedp.Reload())
	return err
}

const noMatch = "no visible element matched"

// Click clicks the center of the first visible element matching the CSS
// selector, waiting for one to appear.
func (b *Browser) Click(ctx context.Context, selector string) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "click", selector, noMatch, settle(chromedp.Click(chromedp.CSS(selector), chromedp.NodeVisible)))
	return err
}

// clearFocusedJS empties the focused form field.
const clearFocusedJS = `(() => {
	const el = document.activeElement;
	if (el && 'value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); }
	else if (el && el.isContentEditable) el.textContent = '';
})()`

// Type replaces the content of the first visible element matching the CSS
// selector (an input or a textarea) with text, typed key
// by key so the page sees real key events.
func (b *Browser) Type(ctx context.Context, selector, text string) error {
	defer b.version.Add(1)
	css := chromedp.CSS(selector)
	_, err := run(ctx, b, "type", selector, noMatch, chromedp.Steps(
		chromedp.Focus(css, chromedp.NodeVisible),
		chromedp.Evaluate[chromedp.Void](clearFocusedJS),
		chromedp.SendKeys(css, text, chromedp.NodeVisible),
	))
	return err
}

// Wait waits until an element matching the CSS selector is visible. When
// none appears before the deadline it returns an error naming the selector
// that wraps ErrTimeout.
func (b *Browser) Wait(ctx context.Context, selector string) error {
	_, err := run(ctx, b, "wait", selector, noMatch, chromedp.WaitVisible(chromedp.CSS(selector)))
	return err
}

// Text returns the rendered text (innerText) of the first element matching
// the CSS selector; "" or "body" means the whole page.
func (b *Browser) Text(ctx context.Context, selector string) (string, error) {
	if selector == "" {
		selector = "body"
	}
	return run(ctx, b, "text", selector, "no element matched", chromedp.Text(chromedp.CSS(selector), chromedp.NodeReady))
}

// HTML returns the outer HTML of the first element matching the CSS
// selector; "" means the whole document.
func (b *Browser) HTML(ctx context.Context, selector string) (string, error) {
	if selector == "" {
		selector = "html"
	}
	return run(ctx, b, "html", selector, "no element matched", chromedp.OuterHTML(chromedp.CSS(selector), chromedp.NodeReady))
}

// Scroll scrolls the page by dx, dy CSS pixels (positive is right, down).
func (b *Browser) Scroll(ctx context.Context, dx, dy int) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "scroll", "", "", chromedp.Evaluate[chromedp.Void](fmt.Sprintf("window.scrollBy(%d, %d)", dx, dy)))
	return err
}

// ScrollTo scrolls the first element matching the CSS selector into view.
func (b *Browser) ScrollTo(ctx context.Context, selector string) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "scroll", selector, "no element matched", chromedp.ScrollIntoView(chromedp.CSS(selector)))
	return err
}

// Eval evaluates a JavaScript expression in the page, awaits it when it is a
// promise, and returns its value decoded from JSON: nil, bool, float64,
// string, []any or map[string]any. undefined gives nil. An exception thrown
// by the script is returned as the error, with its message.
func (b *Browser) Eval(ctx context.Context, js string) (any, error) {
	defer b.version.Add(1)
	raw, err := evalJSON(ctx, b, "eval", js)
	if err != nil || raw == nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, &Error{Op: "eval", Err: fmt.Errorf("the result is not JSON: %w", err)}
	}
	return v, nil
}

// evalJSON evaluates js and returns its value as JSON text, nil for
// undefined.
func evalJSON(ctx context.Context, b *Browser, op, js string) (json.RawMessage, error) {
	obj, err := run(ctx, b, op, "", "the script did not finish", chromedp.Evaluate[*runtime.RemoteObject](js,
		chromedp.EvalAwaitPromise, func(p *runtime.EvaluateParams) {
			t := true
			p.ReturnByValue = &t
		}))
	if err != nil {
		return nil, err
	}
	if obj == nil || obj.Type == "undefined" || len(obj.Value) == 0 {
		return nil, nil
	}
	return json.RawMessage(obj.Value), nil
}

// Screenshot captures the viewport as a PNG.
func (b *Browser) Screenshot(ctx context.Context) (Screenshot, error) {
	png, err := run(ctx, b, "screenshot", "", "", chromedp.CaptureScreenshot())
	return Screenshot(png), err
}

// navGrace is how long an input action waits for the page to ask for a
// navigation after the input was delivered. Chromium reports a link click's
// or a form submission's navigation within a few milliseconds of the
// click's acknowledgement, sometimes just after it.
const navGrace = 50 * time.Millisecond

// navStartLimit is how long a requested navigation may take to start
// loading before it is taken as one that will not (a download, a 204 No
// Content, a navigation the page cancelled).
const navStartLimit = 2 * time.Second

// settle runs the input action a, then, when a made the page navigate (a
// clicked link, a submitted form), waits until the new page has loaded, so
// that the next action sees it as Goto would leave it. When a navigates
// nothing, it costs navGrace.
func settle[T any](a chromedp.Action[T]) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		requested, stopReq := t.Subscribe(page.FrameRequestedNavigation.Method)
		defer stopReq()
		startedLoading, stopStart := t.Subscribe(page.FrameStartedLoading.Method)
		defer stopStart()
		stoppedLoading, stopStop := t.Subscribe(page.FrameStoppedLoading.Method)
		defer stopStop()
		v, err := a(ctx, t)
		if err != nil {
			return v, err
		}
		frameOf := func(raw []byte) cdp.FrameID {
			var ev struct {
				FrameID cdp.FrameID `json:"frameId"`
			}
			_ = json.Unmarshal(raw, &ev)
			return ev.FrameID
		}
		// Which frames navigate: those that asked to, or started loading.
		frames := map[cdp.FrameID]bool{}
		grace := time.NewTimer(navGrace)
		defer grace.Stop()
	wait:
		for {
			select {
			case raw := <-requested:
				frames[frameOf(raw)] = true
				break wait
			case raw := <-startedLoading:
				frames[frameOf(raw)] = true
				break wait
			case <-grace.C:
				return v, nil
			case <-ctx.Done():
				return v, ctx.Err()
			}
		}
		// Wait for every navigating frame to stop loading; give up on one
		// that does not start loading at all.
		started := false
		noStart := time.NewTimer(navStartLimit)
		defer noStart.Stop()
		for len(frames) > 0 {
			select {
			case raw := <-requested:
				frames[frameOf(raw)] = true
			case raw := <-startedLoading:
				frames[frameOf(raw)] = true
				started = true
			case raw := <-stoppedLoading:
				delete(frames, frameOf(raw))
			case <-noStart.C:
				if !started {
					return v, nil
				}
			case <-ctx.Done():
				return v, fmt.Errorf("the page it opened did not load: %w", ctx.Err())
			}
		}
		return v, nil
	}
}
