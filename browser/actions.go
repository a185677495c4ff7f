package browser

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/byref/byref/action"
)

var browserParam = action.Param{Name: "browser", Description: "The browser (tab) to act on."}

// StartAction returns the browser_start action, which launches Chromium
// with opts and returns its first tab. It is the only browser action that
// needs no *Browser variable, so it is the only one a model sees until a
// browser exists.
func StartAction(opts Options) *action.Action {
	return action.MustNew(action.Spec{
		Name:        "browser_start",
		Description: "Start a new headless web browser, optionally opening a URL. The browser is returned as a variable that the other browser_* and computer_* actions take by reference. Close it with browser_close when done.",
		Func: func(ctx context.Context, url string) (*Browser, error) {
			b, err := Start(ctx, opts)
			if err != nil {
				return nil, err
			}
			if url != "" {
				if err := b.Goto(ctx, url); err != nil {
					_ = b.Close()
					return nil, err
				}
			}
			return b, nil
		},
		Params: []action.Param{{Name: "url", Description: "The URL to open; empty opens a blank page.", Default: ""}},
		Result: "The new browser.",
	})
}

// The browser actions. Each takes a *Browser by reference as its first
// parameter, "browser".
var (
	GotoAction = action.MustNew(action.Spec{
		Name:        "browser_goto",
		Description: "Load a URL in the browser and wait for the page to load.",
		Func:        func(ctx context.Context, b *Browser, url string) error { return b.Goto(ctx, url) },
		Params:      []action.Param{browserParam, {Name: "url", Description: "The address to load, e.g. https://example.com/page."}},
	})
	BackAction = action.MustNew(action.Spec{
		Name:        "browser_back",
		Description: "Go back to the previous page in the browser's history.",
		Func:        func(ctx context.Context, b *Browser) error { return b.Back(ctx) },
		Params:      []action.Param{browserParam},
	})
	ClickAction = action.MustNew(action.Spec{
		Name:        "browser_click",
		Description: "Click the first visible element matching a CSS selector, waiting for it to appear.",
		Func:        func(ctx context.Context, b *Browser, selector string) error { return b.Click(ctx, selector) },
		Params:      []action.Param{browserParam, {Name: "selector", Description: "A CSS selector, e.g. button[type=submit] or #login."}},
	})
	TypeAction = action.MustNew(action.Spec{
		Name:        "browser_type",
		Description: "Replace the content of the input or textarea matching a CSS selector with text, typed key by key.",
		Func:        func(ctx context.Context, b *Browser, selector, text string) error { return b.Type(ctx, selector, text) },
		Params: []action.Param{browserParam,
			{Name: "selector", Description: "A CSS selector of the field, e.g. input[name=email]."},
			{Name: "text", Description: "The text to type."}},
	})
	PressAction = action.MustNew(action.Spec{
		Name:        "browser_press",
		Description: "Press a key or key combination in the focused element.",
		Func:        func(ctx context.Context, b *Browser, keys string) error { return b.Press(ctx, keys) },
		Params:      []action.Param{browserParam, {Name: "key", Description: "A key name (Enter, Tab, Escape, Backspace, ArrowDown, PageDown, …), a character, or a combination such as ctrl+a."}},
	})
	WaitAction = action.MustNew(action.Spec{
		Name:        "browser_wait",
		Description: "Wait until an element matching a CSS selector is visible. Fails with a timeout naming the selector if none appears in time.",
		Func: func(ctx context.Context, b *Browser, selector string, seconds float64) error {
			if seconds > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(seconds*float64(time.Second)))
				defer cancel()
			}
			return b.Wait(ctx, selector)
		},
		Params: []action.Param{browserParam,
			{Name: "selector", Description: "A CSS selector."},
			{Name: "timeout_seconds", Description: "How long to wait at most, in seconds.", Default: 10}},
	})
	TextAction = action.MustNew(action.Spec{
		Name:        "browser_text",
		Description: "Read the visible text of the element matching a CSS selector, or of the whole page.",
		Func:        func(ctx context.Context, b *Browser, selector string) (string, error) { return b.Text(ctx, selector) },
		Params:      []action.Param{browserParam, {Name: "selector", Description: "A CSS selector; empty means the whole page.", Default: ""}},
		Result:      "The element's text.",
	})
	HTMLAction = action.MustNew(action.Spec{
		Name:        "browser_html",
		Description: "Read the outer HTML of the element matching a CSS selector, or of the whole document.",
		Func:        func(ctx context.Context, b *Browser, selector string) (string, error) { return b.HTML(ctx, selector) },
		Params:      []action.Param{browserParam, {Name: "selector", Description: "A CSS selector; empty means the whole document.", Default: ""}},
		Result:      "The element's HTML.",
	})
	SnapshotAction = action.MustNew(action.Spec{
		Name: "browser_snapshot",
		Description: "Take a compact snapshot of the page: its interactive elements, each with an ID such as e3 for browser_click_id and browser_type_id, and its visible text. " +
			"The snapshot is printed to stdout for you to read, and returned as a variable.",
		Func: func(ctx context.Context, b *Browser) (*Snapshot, error) {
			s, err := b.Snapshot(ctx)
			if err != nil {
				return nil, err
			}
			_, _ = io.WriteString(action.Stdout(ctx), s.String())
			return s, nil
		},
		Params: []action.Param{browserParam},
		Result: "The snapshot.",
	})
	ClickIDAction = action.MustNew(action.Spec{
		Name:        "browser_click_id",
		Description: "Click the element that the latest browser_snapshot listed under an ID.",
		Func:        func(ctx context.Context, b *Browser, id string) error { return b.ClickID(ctx, id) },
		Params:      []action.Param{browserParam, {Name: "id", Description: "The element's snapshot ID, e.g. e3."}},
	})
	TypeIDAction = action.MustNew(action.Spec{
		Name:        "browser_type_id",
		Description: "Replace the content of the field that the latest browser_snapshot listed under an ID with text, typed key by key.",
		Func:        func(ctx context.Context, b *Browser, id, text string) error { return b.TypeID(ctx, id, text) },
		Params: []action.Param{browserParam,
			{Name: "id", Description: "The field's snapshot ID, e.g. e2."},
			{Name: "text", Description: "The text to type."}},
	})
	ScrollAction = action.MustNew(action.Spec{
		Name:        "browser_scroll",
		Description: "Scroll the page by dx, dy pixels, or scroll the element matching a CSS selector into view.",
		Func: func(ctx context.Context, b *Browser, dx, dy int, selector string) error {
			if selector != "" {
				return b.ScrollTo(ctx, selector)
			}
			return b.Scroll(ctx, dx, dy)
		},
		Params: []action.Param{browserParam,
			{Name: "dx", Description: "Pixels to scroll right (negative: left).", Default: 0},
			{Name: "dy", Description: "Pixels to scroll down (negative: up).", Default: 0},
			{Name: "selector", Description: "A CSS selector to scroll into view instead; empty to scroll by dx, dy.", Default: ""}},
	})
	EvalAction = action.MustNew(action.Spec{
		Name:        "browser_eval",
		Description: "Evaluate a JavaScript expression in the page and return its value as JSON. A promise is awaited. A thrown exception fails the call with its message.",
		Func:        func(ctx context.Context, b *Browser, js string) (any, error) { return b.Eval(ctx, js) },
		Params:      []action.Param{browserParam, {Name: "js", Description: "A JavaScript expression, e.g. document.title or [...document.querySelectorAll('h2')].map(e => e.innerText)."}},
		Result:      "The expression's value, as JSON.",
	})
	ScreenshotAction = action.MustNew(action.Spec{
		Name:        "browser_screenshot",
		Description: "Take a PNG screenshot of the browser's viewport.",
		Func:        func(ctx context.Context, b *Browser) (Screenshot, error) { return b.Screenshot(ctx) },
		Params:      []action.Param{browserParam},
		Result:      "The PNG image.",
	})
	CloseAction = action.MustNew(action.Spec{
		Name:        "browser_close",
		Description: "Close the browser (every tab of a browser from browser_start) or the tab (from browser_new_tab).",
		Func:        func(b *Browser) error { return b.Close() },
		Params:      []action.Param{browserParam},
	})
	NewTabAction = action.MustNew(action.Spec{
		Name:        "browser_new_tab",
		Description: "Open a new tab in the same browser, optionally at a URL. The tab is returned as a new browser variable; the original stays as it is.",
		Func:        func(ctx context.Context, b *Browser, url string) (*Browser, error) { return b.NewTab(ctx, url) },
		Params:      []action.Param{browserParam, {Name: "url", Description: "The URL to open; empty opens a blank page.", Default: ""}},
		Result:      "The new tab.",
	})
)

// The computer-use actions: coordinates in CSS pixels of the viewport that
// computer_screenshot shows. See the package documentation for how OpenAI's
// and Anthropic's computer-use actions map onto them.
var (
	ComputerClickAction = action.MustNew(action.Spec{
		Name:        "computer_click",
		Description: "Click at a point of the browser's viewport (the screenshot's pixel coordinates).",
		Func: func(ctx context.Context, b *Browser, x, y int, button string, clicks int) error {
			return b.ClickAt(ctx, x, y, button, clicks)
		},
		Params: []action.Param{browserParam,
			{Name: "x", Description: "Pixels from the left edge."},
			{Name: "y", Description: "Pixels from the top edge."},
			{Name: "button", Description: "The mouse button.", Default: ButtonLeft, Enum: []any{ButtonLeft, ButtonRight, ButtonMiddle, ButtonBack, ButtonForward}},
			{Name: "clicks", Description: "1 for a click, 2 for a double click, 3 for a triple click.", Default: 1, Enum: []any{1, 2, 3}}},
	})
	ComputerMoveAction = action.MustNew(action.Spec{
		Name:        "computer_move",
		Description: "Move the mouse to a point of the viewport.",
		Func:        func(ctx context.Context, b *Browser, x, y int) error { return b.MoveMouse(ctx, x, y) },
		Params: []action.Param{browserParam,
			{Name: "x", Description: "Pixels from the left edge."},
			{Name: "y", Description: "Pixels from the top edge."}},
	})
	ComputerDragAction = action.MustNew(action.Spec{
		Name:        "computer_drag",
		Description: "Drag with the left button held along a path of points, from the first to the last.",
		Func:        func(ctx context.Context, b *Browser, path []Point) error { return b.Drag(ctx, path) },
		Params:      []action.Param{browserParam, {Name: "path", Description: "At least two points {x, y}: where to press, where to pass, where to release."}},
	})
	ComputerTypeAction = action.MustNew(action.Spec{
		Name:        "computer_type",
		Description: "Type text into whatever has the focus, key by key.",
		Func:        func(ctx context.Context, b *Browser, text string) error { return b.TypeText(ctx, text) },
		Params:      []action.Param{browserParam, {Name: "text", Description: "The text to type."}},
	})
	ComputerKeyAction = action.MustNew(action.Spec{
		Name:        "computer_key",
		Description: "Press a key or key combination, e.g. Enter, Tab, ctrl+a, shift+Tab.",
		Func:        func(ctx context.Context, b *Browser, keys string) error { return b.Press(ctx, keys) },
		Params:      []action.Param{browserParam, {Name: "keys", Description: "A key name or a combination joined with +, e.g. Return, ctrl+a."}},
	})
	ComputerScrollAction = action.MustNew(action.Spec{
		Name:        "computer_scroll",
		Description: "Turn the mouse wheel at a point: scroll what is under it by dx, dy pixels.",
		Func:        func(ctx context.Context, b *Browser, x, y, dx, dy int) error { return b.ScrollAt(ctx, x, y, dx, dy) },
		Params: []action.Param{browserParam,
			{Name: "x", Description: "Pixels from the left edge."},
			{Name: "y", Description: "Pixels from the top edge."},
			{Name: "dx", Description: "Pixels to scroll right (negative: left).", Default: 0},
			{Name: "dy", Description: "Pixels to scroll down (negative: up).", Default: 0}},
	})
	ComputerScreenshotAction = action.MustNew(action.Spec{
		Name:        "computer_screenshot",
		Description: "Take a PNG screenshot of the viewport, whose pixels are the coordinates of the computer_* actions.",
		Func:        func(ctx context.Context, b *Browser) (Screenshot, error) { return b.Screenshot(ctx) },
		Params:      []action.Param{browserParam},
		Result:      "The PNG image.",
	})
	ComputerWaitAction = action.MustNew(action.Spec{
		Name:        "computer_wait",
		Description: "Wait a moment for the page to settle.",
		Func: func(ctx context.Context, b *Browser, seconds float64) error {
			if seconds < 0 || seconds > 60 {
				return fmt.Errorf("seconds is %v; wait between 0 and 60 seconds", seconds)
			}
			return b.Sleep(ctx, time.Duration(seconds*float64(time.Second)))
		},
		Params: []action.Param{browserParam, {Name: "seconds", Description: "How long to wait.", Default: 1}},
	})
)

// BrowserActions are the browser_* actions but browser_start, in a stable
// order.
func BrowserActions() []*action.Action {
	return []*action.Action{GotoAction, BackAction, ClickAction, TypeAction, PressAction, WaitAction,
		TextAction, HTMLAction, SnapshotAction, ClickIDAction, TypeIDAction, ScrollAction, EvalAction,
		ScreenshotAction, NewTabAction, CloseAction}
}

// ComputerActions are the coordinate-based computer_* actions.
func ComputerActions() []*action.Action {
	return []*action.Action{ComputerClickAction, ComputerMoveAction, ComputerDragAction, ComputerTypeAction,
		ComputerKeyAction, ComputerScrollAction, ComputerScreenshotAction, ComputerWaitAction}
}

// NewActions returns browser_start (launching Chromium with opts), the
// browser_* actions and the computer_* actions.
func NewActions(opts Options) *action.Set {
	all := append([]*action.Action{StartAction(opts)}, BrowserActions()...)
	return action.MustSet(append(all, ComputerActions()...)...)
}

var defaultActions = sync.OnceValue(func() *action.Set { return NewActions(Options{}) })

// Actions returns NewActions(Options{}), built once and shared.
func Actions() *action.Set { return defaultActions() }
