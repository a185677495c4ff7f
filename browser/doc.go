// Package browser drives Chromium through chromedp, with the browser held as
// an ordinary variable: the model starts one with browser_start, the result
// lands in a variable (browser_start_result, as the runtime names it), and
// every other action takes it by reference
// ("<<var:browser_start_result>>"). A *Browser is not JSON-representable (its
// fields are unexported), so its parameters are reference-only, and with
// these actions registered and no browser variable the model is offered
// only browser_start.
//
// # Browsers and tabs
//
// Start launches a headless Chromium with a fresh profile directory and
// returns its first tab. NewTab opens another tab of the same process, as a
// Browser of its own, so several browsers and tabs coexist as separate
// variables. The process lives until Close is called on the Browser that
// Start returned, which also closes its tabs and removes the profile
// directory; it is never tied to the context of a call. Each method takes
// its deadline from its context, bounded by Options.Timeout, and ends a
// little before the context's deadline so that it reports its own error: a
// selector that never appears fails that call with an error naming the
// selector and wrapping ErrTimeout, and the browser stays usable.
//
// A host that lets the model start browsers closes the *Browser variables
// left at the end of a run.
//
// # Actions
//
// NewActions (or Actions, with default options) returns them all:
//
//	browser_start(url)                  → *Browser
//	browser_goto(browser, url)
//	browser_back(browser)
//	browser_click(browser, selector)
//	browser_type(browser, selector, text)
//	browser_press(browser, key)
//	browser_wait(browser, selector, timeout_seconds)
//	browser_text(browser, selector)     → string
//	browser_html(browser, selector)     → string
//	browser_snapshot(browser)           → *Snapshot (also printed for the model)
//	browser_click_id(browser, id)
//	browser_type_id(browser, id, text)
//	browser_scroll(browser, dx, dy, selector)
//	browser_eval(browser, js)           → any (the JSON value)
//	browser_screenshot(browser)         → Screenshot
//	browser_new_tab(browser, url)       → *Browser
//	browser_close(browser)
//
// Every method of *Browser does the same from Go (a host, or a snippet
// holding the variable): Goto, Back, Click, Type, Press, Wait, Text, HTML,
// Snapshot, ClickID, TypeID, Scroll, ScrollTo, Eval, Screenshot, NewTab,
// Close, and the computer-use methods below.
//
// Click, ClickID, Press and ClickAt wait for a navigation they cause (a
// link, a form submitted) to load, so the next action sees the new page;
// when nothing navigates they cost about 50ms more than the input itself.
//
// A Snapshot lists the page's visible interactive elements with short IDs
// (e1, e2, …) and its visible text, bounded by MaxSnapshotElements and
// MaxSnapshotText. An element keeps its ID across snapshots while it stays
// in the page; IDs are never reused in a tab, so an ID from a page that is
// gone fails with ErrUnknownID. Password values show as "••••".
//
// # Computer use
//
// The computer_* actions work in viewport coordinates (CSS pixels, 1280×800
// by default, the size of computer_screenshot), so providers' computer-use
// tools map onto them (MapOpenAIAction, MapAnthropicAction):
//
//	OpenAI computer_call      Anthropic computer tool        byref action
//	click {x,y,button}        left_click, right_click,       computer_click(x, y, button, clicks=1)
//	                          middle_click {coordinate}
//	double_click {x,y}        double_click                   computer_click(…, clicks=2)
//	                          triple_click                   computer_click(…, clicks=3)
//	move {x,y}                mouse_move                     computer_move(x, y)
//	drag {path}               left_click_drag                computer_drag(path)
//	                          {start_coordinate, coordinate}
//	type {text}               type {text}                    computer_type(text)
//	keypress {keys:[…]}       key {text: "ctrl+a"}           computer_key(keys) — keys joined by "+"
//	scroll {x,y,scroll_x,     scroll {coordinate,            computer_scroll(x, y, dx, dy);
//	        scroll_y}           scroll_direction,            Anthropic's amount is in wheel
//	                            scroll_amount}               clicks of ScrollClick pixels
//	screenshot                screenshot                     computer_screenshot
//	wait                      wait {duration}                computer_wait(seconds)
//
// Anthropic's cursor_position, hold_key and left_mouse_down/up have no
// equivalent and map to ErrUnsupportedAction. Key names may be DOM names
// (Enter, ArrowDown), xdotool names (Return, BackSpace, Page_Down) or
// OpenAI's (ENTER, CTRL), with modifiers joined by "+".
//
// # Snippets
//
// A Go snippet holding a *Browser variable calls its methods with the
// step's context, ctx: title, err := web.Text(ctx, "h1"). Give the runtime
// Symbols (interp.Options{Symbols: []interp.Exports{browser.Symbols}}) and
// snippets can also name the package's types and values: *browser.Snapshot,
// browser.Point{X: 1, Y: 2}, errors.Is(err, browser.ErrTimeout).
//
// # Chromium
//
// The package expects Debian's chromium package at /usr/bin/chromium (or
// $BYREF_CHROMIUM, or Options.ExecPath); scripts/install-chromium.sh
// installs it (see InstallCommand). Start runs it with --headless,
// --no-sandbox (so it works as root), --disable-gpu,
// --disable-background-networking, --disable-component-update,
// --disable-sync, --disable-quic, --no-first-run, --disable-default-apps and
// a temporary --user-data-dir; Options.LocalOnly adds a host-resolver rule
// that leaves only localhost reachable. FindChromium tells whether the
// binary is there before anything starts.
//
// chromedp is pinned at v0.22.1 (cdproto v0.159.0), the generic API in which
// an action is a func returning a typed value (chromedp.Action[T]) rather
// than v0.14's Run(ctx, actions...) with out-pointers; it matches this
// package's methods, which return values. chromedp's types stay inside the
// package. docs/decisions/2026-11-21-chromedp.md records the choice, the
// flags and the measurements.
package browser
