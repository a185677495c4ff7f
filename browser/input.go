package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// namedKeys maps key names, lowercased with "_", "-" and spaces removed, to
// chromedp's key runes. It accepts the DOM names ("Enter", "ArrowDown"),
// xdotool's (Anthropic: "Return", "BackSpace", "Page_Down", "Up") and
// OpenAI's upper-case ones ("ENTER", "ESC", "SPACE").
var namedKeys = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "kpenter": kb.Enter,
	"tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "del": kb.Delete,
	"space": " ", "spacebar": " ",
	"arrowup": kb.ArrowUp, "up": kb.ArrowUp,
	"arrowdown": kb.ArrowDown, "down": kb.ArrowDown,
	"arrowleft": kb.ArrowLeft, "left": kb.ArrowLeft,
	"arrowright": kb.ArrowRight, "right": kb.ArrowRight,
	"home": kb.Home, "end": kb.End,
	"pageup": kb.PageUp, "prior": kb.PageUp, "pagedown": kb.PageDown, "next": kb.PageDown,
	"insert": kb.Insert,
	"f1":     kb.F1, "f2": kb.F2, "f3": kb.F3, "f4": kb.F4, "f5": kb.F5, "f6": kb.F6,
	"f7": kb.F7, "f8": kb.F8, "f9": kb.F9, "f10": kb.F10, "f11": kb.F11, "f12": kb.F12,
}

var modifierKeys = map[string]chromedp.Modifier{
	"ctrl": chromedp.ModifierCtrl, "control": chromedp.ModifierCtrl,
	"alt": chromedp.ModifierAlt, "option": chromedp.ModifierAlt,
	"shift": chromedp.ModifierShift,
	"meta":  chromedp.ModifierMeta, "cmd": chromedp.ModifierMeta, "command": chromedp.ModifierMeta,
	"super": chromedp.ModifierMeta, "win": chromedp.ModifierMeta,
}

func keyName(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
}

// parseKeys turns "Enter", "ctrl+a" or "Control+Shift+ArrowLeft" into the
// key to send and its modifiers.
func parseKeys(keys string) (string, chromedp.Modifier, error) {
	keys = strings.TrimSpace(keys)
	if keys == "" {
		return "", 0, fmt.Errorf("no key given; pass a key name such as Enter, Tab, ArrowDown or ctrl+a")
	}
	if keys == "+" {
		return "+", 0, nil
	}
	parts := strings.Split(keys, "+")
	var mods chromedp.Modifier
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierKeys[keyName(p)]
		if !ok {
			return "", 0, fmt.Errorf("%q in %q is not a modifier; use ctrl, alt, shift or meta", p, keys)
		}
		mods |= m
	}
	last := parts[len(parts)-1]
	if k, ok := namedKeys[keyName(last)]; ok {
		return k, mods, nil
	}
	if r := []rune(last); len(r) == 1 {
		if mods != 0 {
			return strings.ToLower(last), mods, nil
		}
		return last, mods, nil
	}
	if _, ok := modifierKeys[keyName(last)]; ok && len(parts) == 1 {
		return "", 0, fmt.Errorf("%q alone is a modifier; combine it with a key, e.g. %s+a", last, last)
	}
	return "", 0, fmt.Errorf("unknown key %q; use a single character or a name such as Enter, Tab, Escape, Backspace, Delete, ArrowUp, ArrowDown, Home, End, PageUp, PageDown, F1…F12, optionally with modifiers (ctrl+a)", last)
}

// Press presses a key or a combination in the focused element: "Enter",
// "Tab", "ArrowDown", "ctrl+a", "shift+Tab". xdotool names ("Return",
// "BackSpace") work too.
func (b *Browser) Press(ctx context.Context, keys string) error {
	key, mods, err := parseKeys(keys)
	if err != nil {
		return &Error{Op: "press", Selector: keys, Err: err}
	}
	defer b.version.Add(1)
	var opts []chromedp.KeyOption
	if mods != 0 {
		opts = append(opts, chromedp.KeyModifiers(mods))
	}
	_, err = run(ctx, b, "press", keys, "", settle(chromedp.KeyEvent(key, opts...)))
	return err
}

// TypeText types text into whatever has the focus, key by key.
func (b *Browser) TypeText(ctx context.Context, text string) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "type", "", "", chromedp.KeyEvent(text))
	return err
}

// Point is a position in the viewport, in CSS pixels from its top left.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Mouse buttons accepted by ClickAt.
const (
	ButtonLeft    = "left"
	ButtonRight   = "right"
	ButtonMiddle  = "middle"
	ButtonBack    = "back"
	ButtonForward = "forward"
)

func mouseButton(name string) (input.MouseButton, error) {
	switch strings.ToLower(name) {
	case "", ButtonLeft:
		return input.MouseButtonLeft, nil
	case ButtonRight:
		return input.MouseButtonRight, nil
	case ButtonMiddle, "wheel":
		return input.MouseButtonMiddle, nil
	case ButtonBack:
		return input.MouseButtonBack, nil
	case ButtonForward:
		return input.MouseButtonForward, nil
	}
	return "", fmt.Errorf("unknown mouse button %q; use left, right, middle, back or forward", name)
}

func mouse(typ input.DispatchMouseEventType, x, y float64, opts ...chromedp.MouseOption) chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(typ, x, y, opts...)
}

// ClickAt clicks at x, y with a button ("left" when empty) clicks times (1
// for a click, 2 for a double click, 3 for a triple click).
func (b *Browser) ClickAt(ctx context.Context, x, y int, button string, clicks int) error {
	btn, err := mouseButton(button)
	if err != nil {
		return &Error{Op: "click_at", Err: err}
	}
	if clicks <= 0 {
		clicks = 1
	}
	if clicks > 3 {
		return &Error{Op: "click_at", Err: fmt.Errorf("clicks is %d; use 1, 2 or 3", clicks)}
	}
	defer b.version.Add(1)
	fx, fy := float64(x), float64(y)
	steps := []chromedp.Action[chromedp.Void]{mouse(chromedp.MouseMoved, fx, fy)}
	for i := 1; i <= clicks; i++ {
		steps = append(steps,
			mouse(chromedp.MousePressed, fx, fy, chromedp.ButtonType(btn), chromedp.ClickCount(i)),
			mouse(chromedp.MouseReleased, fx, fy, chromedp.ButtonType(btn), chromedp.ClickCount(i)))
	}
	_, err = run(ctx, b, "click_at", "", "", settle(chromedp.Steps(steps...)))
	return err
}

// MoveMouse moves the mouse to x, y.
func (b *Browser) MoveMouse(ctx context.Context, x, y int) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "move", "", "", mouse(chromedp.MouseMoved, float64(x), float64(y)))
	return err
}

// Drag presses the left button at the first point of path, moves through
// the others with the button held and releases it at the last, as a hand on
// a mouse would: the page sees mousedown, mousemove (buttons 1) at each
// point, mouseup and, when the ends are on one element, click.
//
// When the press lands on something the page lets the user drag with HTML5
// drag and drop (a draggable element, or selected text: after a double click
// the press lands on the selection), the browser starts a drag operation
// instead, in which the page gets dragstart and then no more mouse events.
// Headless Chromium would end that operation at once (dragend, no drop), so
// Drag intercepts it and plays it through: dragenter and dragover at each
// remaining point, drop at the last, then dragend.
func (b *Browser) Drag(ctx context.Context, path []Point) error {
	if len(path) < 2 {
		return &Error{Op: "drag", Err: fmt.Errorf("the path has %d points; give at least a start and an end", len(path))}
	}
	defer b.version.Add(1)
	_, err := run(ctx, b, "drag", "", "", chromedp.Steps(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return drag(ctx, t, path)
	}), nextFrame))
	return err
}

// drag dispatches the events of Drag on t.
func drag(ctx context.Context, t *chromedp.Target, path []Point) (err error) {
	intercepted, stop := t.Subscribe(input.DragIntercepted.Method)
	defer stop()
	if _, err := cdp.Call(ctx, t, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return err
	}
	defer func() {
		// Not under ctx, which may be done: the tab must not keep
		// intercepting drags.
		_, _ = cdp.Call(context.WithoutCancel(ctx), t, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
	}()
	mouse := func(typ input.DispatchMouseEventType, p Point, buttons int64) error {
		_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: float64(p.X), Y: float64(p.Y), Button: input.MouseButtonLeft, Buttons: buttons, ClickCount: 1,
		})
		return err
	}
	dragEvent := func(typ input.DispatchDragEventType, p Point, data *input.DragData) error {
		_, err := cdp.Call(ctx, t, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: float64(p.X), Y: float64(p.Y), Data: data})
		return err
	}
	// started returns the data of a drag operation the browser started, if
	// it started one.
	started := func() (*input.DragData, error) {
		select {
		case raw, ok := <-intercepted:
			if !ok {
				return nil, nil
			}
			var ev input.EventDragIntercepted
			if err := jsonv2.Unmarshal(raw, &ev); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", input.DragIntercepted.Method, err)
			}
			if ev.Data == nil {
				ev.Data = &input.DragData{}
			}
			return ev.Data, nil
		default:
			return nil, nil
		}
	}

	// mouseMoved without a button, so that mouseover and mouseenter come
	// first, as they would for a real pointer.
	p0 := path[0]
	if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: chromedp.MouseMoved, X: float64(p0.X), Y: float64(p0.Y)}); err != nil {
		return err
	}
	if err := mouse(chromedp.MousePressed, p0, 1); err != nil {
		return err
	}
	var data *input.DragData
	for i, p := range path[1:] {
		if data == nil {
			if err := mouse(chromedp.MouseMoved, p, 1); err != nil {
				return err
			}
			if data, err = started(); err != nil {
				return err
			}
			if data == nil && i == len(path)-2 {
				// The intercepted drag can trail the move's reply: wait
				// for the page to render a frame and look again.
				if _, err := nextFrame(ctx, t); err != nil {
					return err
				}
				if data, err = started(); err != nil {
					return err
				}
			}
			if data == nil {
				continue
			}
		}
		if err := dragEvent(input.DispatchDragEventTypeDragEnter, p, data); err != nil {
			return err
		}
		if err := dragEvent(input.DispatchDragEventTypeDragOver, p, data); err != nil {
			return err
		}
	}
	pn := path[len(path)-1]
	if data != nil {
		if err := dragEvent(input.DispatchDragEventTypeDrop, pn, data); err != nil {
			_ = dragEvent(input.DispatchDragEventTypeDragCancel, pn, data)
			return err
		}
	}
	return mouse(chromedp.MouseReleased, pn, 0)
}

// ScrollAt turns the mouse wheel at x, y by dx, dy pixels (positive is
// right, down), scrolling whatever is under the pointer.
func (b *Browser) ScrollAt(ctx context.Context, x, y, dx, dy int) error {
	defer b.version.Add(1)
	_, err := run(ctx, b, "scroll_at", "", "", chromedp.Steps(
		mouse(chromedp.MouseMoved, float64(x), float64(y)),
		// cdproto omits zero deltas, which Chromium refuses: send the
		// command with explicit fields.
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			return t.Call(ctx, input.DispatchMouseEvent.Method, map[string]any{
				"type": chromedp.MouseWheel, "x": x, "y": y, "deltaX": dx, "deltaY": dy,
			}, nil)
		}),
		nextFrame,
	))
	return err
}

// Sleep waits for d or until ctx is done, for a page that needs time to
// settle.
func (b *Browser) Sleep(ctx context.Context, d time.Duration) error {
	if b.isClosed() {
		return &Error{Op: "wait", Err: ErrClosed}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return &Error{Op: "wait", Err: ctx.Err()}
	}
}

// nextFrame waits for two animation frames: the wheel and moves with a
// button held are handled asynchronously, and what comes next (a
// screenshot, a read) must see their effect.
var nextFrame = chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise)
