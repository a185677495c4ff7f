package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Defaults of Options.
const (
	DefaultExecPath = "/usr/bin/chromium"
	DefaultWidth    = 1280
	DefaultHeight   = 800
	DefaultTimeout  = 15 * time.Second
)

// InstallCommand is the command that installs the Chromium the package
// expects, on Debian and Ubuntu. scripts/install-chromium.sh runs it.
const InstallCommand = "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium"

// Options configures Start. The zero value is valid: a headless Chromium at
// $BYREF_CHROMIUM or /usr/bin/chromium with a 1280×800 viewport.
type Options struct {
	// ExecPath is the Chromium or Chrome binary. Empty means $BYREF_CHROMIUM,
	// or DefaultExecPath when that is unset.
	ExecPath string
	// Visible opens a window instead of running headless (the default). It
	// needs a display.
	Visible bool
	// Width and Height are the viewport in CSS pixels, which is also the size
	// of screenshots and the coordinate space of the computer_* actions.
	// Zero means 1280×800.
	Width, Height int
	// Flags are extra command-line flags, each "--name" or "--name=value".
	// They are added after the defaults and override a default of the same
	// name.
	Flags []string
	// LocalOnly makes every host name but localhost and 127.0.0.1 resolve to
	// nothing, so pages cannot reach outside the machine. Tests use it.
	LocalOnly bool
	// Timeout bounds each action when the caller's context has no earlier
	// deadline; an action waiting for a selector that never appears fails
	// after it. Zero means DefaultTimeout.
	Timeout time.Duration
	// TempDir is where the fresh profile directory of each browser is made
	// (and removed on Close). Empty means os.TempDir().
	TempDir string
	// AllowLocalURLs lets Goto and NewTab open file:, chrome:, devtools:
	// and view-source: URLs, which reach this machine's files or the
	// browser's internals. Off by default: a model must not read the
	// host's files through the browser.
	AllowLocalURLs bool
}

func (o Options) withDefaults() Options {
	if o.ExecPath == "" {
		o.ExecPath = os.Getenv("BYREF_CHROMIUM")
	}
	if o.ExecPath == "" {
		o.ExecPath = DefaultExecPath
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Height <= 0 {
		o.Height = DefaultHeight
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// Sentinel errors. Errors returned by methods wrap one of them where one
// applies, so errors.Is works.
var (
	// ErrNoChromium means the browser binary is missing.
	ErrNoChromium = errors.New("browser: Chromium not found")
	// ErrClosed means the browser or tab was closed.
	ErrClosed = errors.New("browser: closed")
	// ErrTimeout means an action ran out of time, typically waiting for a
	// selector that never matched.
	ErrTimeout = errors.New("browser: timed out")
	// ErrUnknownID means a snapshot ID names no element on the current page.
	ErrUnknownID = errors.New("browser: unknown element ID")
)

// Error describes a failed browser operation. It unwraps to the cause, which
// is often ErrTimeout, ErrClosed or a context error.
type Error struct {
	Op       string // the method: "click", "goto", …
	Selector string // the selector or snapshot ID involved, if any
	Err      error
}

// Error names the operation, the selector if any, and what went wrong.
func (e *Error) Error() string {
	if e.Selector != "" {
		return fmt.Sprintf("%s %q: %v", e.Op, e.Selector, e.Err)
	}
	return e.Op + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// timeoutError is the cause of an action that ran out of time.
type timeoutError struct {
	after time.Duration
	what  string // what did not happen, e.g. "no element matched"
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s within %s (timed out)", e.what, e.after.Round(time.Millisecond))
}

func (e *timeoutError) Is(target error) bool { return target == ErrTimeout }

// process is one Chromium process, shared by the tabs made from it.
type process struct {
	opts        Options
	dir         string // the profile directory, removed on close
	allocCancel context.CancelFunc
	browserCtx  context.Context // the chromedp context of the first tab

	mu     sync.Mutex
	closed bool
	tabs   []*Browser
	byID   map[target.ID]*Browser
}

// Browser is a tab of a Chromium process: the first one Start opened, or one
// NewTab added. It is an ordinary variable value: actions take it by
// reference, snippets call its methods. Its methods are safe for concurrent
// use; actions on one tab run one at a time.
//
// The process lives until Close is called on the Browser that Start returned
// (which closes every tab), independent of any context passed to a method.
// Each method takes its deadline from its context, bounded by
// Options.Timeout.
type Browser struct {
	proc   *process
	ctx    context.Context // the tab's chromedp context, never done until Close
	cancel context.CancelFunc
	first  bool
	id     target.ID
	sem    chan struct{} // one action at a time on this tab

	version atomic.Uint64
	nextID  int // the next snapshot element number; guarded by sem

	mu     sync.Mutex // guards the fields below
	url    string
	title  string
	closed bool
}

// Start launches Chromium with a fresh profile directory and returns its
// first tab, showing about:blank. ctx bounds the start only: the browser
// lives until Close. Flags: --headless (unless Options.Visible),
// --no-sandbox, --disable-gpu, --disable-background-networking,
// --disable-component-update, --disable-sync, --disable-quic,
// --no-first-run, --disable-default-apps and a --user-data-dir that Close
// removes.
func Start(ctx context.Context, opts Options) (*Browser, error) {
	opts = opts.withDefaults()
	if _, err := FindChromium(opts); err != nil {
		return nil, &Error{Op: "start", Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "start", Err: err}
	}
	dir, err := os.MkdirTemp(opts.TempDir, "byref-chromium-")
	if err != nil {
		return nil, &Error{Op: "start", Err: err}
	}
	p := &process{opts: opts, dir: dir, byID: map[target.ID]*Browser{}}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), p.allocatorOptions()...)
	p.allocCancel = allocCancel
	tabCtx, tabCancel := chromedp.NewContext(allocCtx)
	p.browserCtx = tabCtx
	b := makeTab(p, tabCtx, tabCancel, true)

	// The first Run allocates the browser, whose life is that of the
	// context of the call: tabCtx, never the caller's ctx.
	started := make(chan error, 1)
	go func() {
		_, err := chromedp.Run(tabCtx, b.setup())
		started <- err
	}()
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		err = chromedp.ListenBrowser(tabCtx, p.onEvent)
	}
	if err != nil {
		p.shutdown()
		<-started
		return nil, &Error{Op: "start", Err: err}
	}
	b.id = chromedp.FromContext(tabCtx).Target.TargetID
	p.register(b)
	b.setPage("about:blank", "")
	return b, nil
}

// FindChromium returns the path of the browser binary Start would run with
// opts: Options.ExecPath, $BYREF_CHROMIUM or DefaultExecPath, looked up in
// $PATH when it has no slash. When it is missing, the error wraps
// ErrNoChromium and names the install command, so a program or a test can
// check before it starts anything.
func FindChromium(opts Options) (string, error) {
	opts = opts.withDefaults()
	path, err := exec.LookPath(opts.ExecPath)
	if err != nil {
		return "", fmt.Errorf("%w at %s (set Options.ExecPath or $BYREF_CHROMIUM, or install it: %s): %v", ErrNoChromium, opts.ExecPath, InstallCommand, err)
	}
	return path, nil
}

func (p *process) allocatorOptions() []chromedp.ExecAllocatorOption {
	o := p.opts
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(o.ExecPath),
		chromedp.UserDataDir(p.dir),
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.DisableGPU,
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,BackForwardCache"),
		chromedp.Flag("disable-popup-blocking", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	}
	if o.Visible {
		opts = append(opts, chromedp.VisibleWindow)
	} else {
		opts = append(opts, chromedp.Headless)
	}
	if o.LocalOnly {
		opts = append(opts, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"))
	}
	for _, f := range o.Flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if hasValue {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	return opts
}

func makeTab(p *process, ctx context.Context, cancel context.CancelFunc, first bool) *Browser {
	return &Browser{proc: p, ctx: ctx, cancel: cancel, first: first, sem: make(chan struct{}, 1), nextID: 1}
}

// setup is the first action on a tab: it attaches and sets the viewport.
func (b *Browser) setup() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(int64(b.proc.opts.Width), int64(b.proc.opts.Height))
}

func (p *process) register(b *Browser) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tabs = append(p.tabs, b)
	if b.id != "" {
		p.byID[b.id] = b
	}
}

func (p *process) unregister(b *Browser) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tabs = slices.DeleteFunc(p.tabs, func(t *Browser) bool { return t == b })
	delete(p.byID, b.id)
}

// onEvent keeps each tab's URL and title current. It runs on chromedp's
// reading goroutine, so it must be quick and must not call the browser.
func (p *process) onEvent(ev any) {
	e, ok := ev.(*target.EventTargetInfoChanged)
	if !ok || e.TargetInfo == nil {
		return
	}
	p.mu.Lock()
	b := p.byID[e.TargetInfo.TargetID]
	p.mu.Unlock()
	if b != nil {
		b.setPage(e.TargetInfo.URL, e.TargetInfo.Title)
	}
}

func (b *Browser) setPage(url, title string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if url != b.url || title != b.title {
		b.url, b.title = url, title
		b.version.Add(1)
	}
}

// NewTab opens a new tab in b's browser process, at url when it is not
// empty. The tab is a Browser of its own: close it with Close, or let the
// first Browser's Close take it down with the process.
func (b *Browser) NewTab(ctx context.Context, url string) (*Browser, error) {
	if b.isClosed() {
		return nil, &Error{Op: "new_tab", Err: ErrClosed}
	}
	p := b.proc
	tabCtx, tabCancel := chromedp.NewContext(p.browserCtx)
	t := makeTab(p, tabCtx, tabCancel, false)
	started := make(chan error, 1)
	go func() {
		// As in Start: the tab attaches under its own context.
		_, err := chromedp.Run(tabCtx, t.setup())
		started <- err
	}()
	var err error
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		tabCancel()
		<-started
		return nil, &Error{Op: "new_tab", Err: err}
	}
	t.id = chromedp.FromContext(tabCtx).Target.TargetID
	p.register(t)
	t.setPage("about:blank", "")
	if p.isClosed() { // Close raced with us
		_ = t.Close()
		return nil, &Error{Op: "new_tab", Err: ErrClosed}
	}
	if url != "" {
		if err := t.Goto(ctx, url); err != nil {
			_ = t.Close()
			return nil, err
		}
	}
	b.version.Add(1)
	return t, nil
}

func (p *process) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (b *Browser) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed || b.proc.isClosed()
}

// Close closes the tab. On the Browser that Start returned it stops the
// Chromium process, closing every tab made from it, and removes the profile
// directory. Closing twice is harmless.
func (b *Browser) Close() error {
	b.mu.Lock()
	was := b.closed
	b.closed = true
	b.mu.Unlock()
	if was {
		return nil
	}
	b.version.Add(1)
	if !b.first {
		b.proc.unregister(b)
		b.cancel() // closes the tab and waits for it
		return nil
	}
	return b.proc.shutdown()
}

// shutdown stops the process and removes the profile directory.
func (p *process) shutdown() error {
	p.mu.Lock()
	p.closed = true
	tabs := slices.Clone(p.tabs)
	p.tabs = nil
	p.mu.Unlock()
	for _, t := range tabs {
		t.mu.Lock()
		t.closed = true
		t.mu.Unlock()
	}
	// A graceful close first, so Chromium exits on its own; then cancel the
	// allocator, which kills what is left and waits for the process.
	ctx, cancel := context.WithTimeout(p.browserCtx, 5*time.Second)
	_ = chromedp.Cancel(ctx) // Chromium may be gone already (crashed, killed)
	cancel()
	p.allocCancel()
	killLeftovers(p.dir)
	if err := removeAll(p.dir); err != nil {
		return &Error{Op: "close", Err: err}
	}
	return nil
}

// removeAll removes dir, retrying while Chromium's children let go of it.
func removeAll(dir string) error {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			if _, serr := os.Stat(dir); os.IsNotExist(serr) {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("removing the profile directory %s: %w", dir, err)
}

// ProfileDir returns the profile directory of b's process, which Close
// removes.
func (b *Browser) ProfileDir() string { return b.proc.dir }

// URL returns the address of the tab's page as last reported by Chromium.
func (b *Browser) URL() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.url
}

// Title returns the title of the tab's page as last reported by Chromium.
func (b *Browser) Title() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.title
}

// Closed reports whether the tab or its process was closed.
func (b *Browser) Closed() bool { return b.isClosed() }

// Version counts the changes to the tab: navigations, input, scripts,
// closing. It implements variable.Versioned, so the runtime tells whether an
// action modified a browser without walking chromedp's internals.
func (b *Browser) Version() uint64 { return b.version.Load() }

// Preview describes the tab for the model: "Browser at https://… "Title"",
// or "Browser (closed)". It implements variable.Previewer.
func (b *Browser) Preview(limit int) string {
	b.mu.Lock()
	url, title, closed := b.url, b.title, b.closed
	b.mu.Unlock()
	if closed || b.proc.isClosed() {
		return "Browser (closed)"
	}
	what := "Browser"
	if !b.first {
		what = "Browser tab"
	}
	s := what + " at " + url
	if title != "" {
		s += fmt.Sprintf(" %q", title)
	}
	return cut(s, limit)
}

// String is Preview without a limit.
func (b *Browser) String() string { return b.Preview(0) }

// cut shortens s to at most limit runes, ending in "…" when cut; limit <= 0
// means no limit.
func cut(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + "…"
}

// begin acquires the tab and returns a context for one action: derived from
// the tab's context (so chromedp keeps working), cancelled when ctx is done,
// and bounded by Options.Timeout and a little before ctx's deadline, so that
// the action can report its own timeout before the caller gives up on it.
func (b *Browser) begin(ctx context.Context, op, sel string) (context.Context, time.Duration, func(), error) {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, nil, &Error{Op: op, Selector: sel, Err: ctx.Err()}
	}
	if b.isClosed() {
		<-b.sem
		return nil, 0, nil, &Error{Op: op, Selector: sel, Err: ErrClosed}
	}
	limit := b.proc.opts.Timeout
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		margin := min(250*time.Millisecond, left/10)
		limit = min(limit, left-margin)
	}
	cctx, cancel := context.WithTimeout(b.ctx, limit)
	stop := context.AfterFunc(ctx, cancel)
	return cctx, limit, func() {
		stop()
		cancel()
		<-b.sem
	}, nil
}

// run runs a on the tab under ctx; op and sel name the operation in errors,
// and waitingFor says what a timeout was waiting for ("" for a generic
// message).
func run[T any](ctx context.Context, b *Browser, op, sel, waitingFor string, a chromedp.Action[T]) (T, error) {
	cctx, limit, end, err := b.begin(ctx, op, sel)
	if err != nil {
		var zero T
		return zero, err
	}
	defer end()
	v, err := chromedp.Run(cctx, a)
	if err != nil {
		return v, b.wrap(ctx, cctx, op, sel, waitingFor, limit, err)
	}
	if mutates[op] {
		b.refresh(cctx)
	}
	return v, nil
}

// mutates lists the operations that may change the page, after which the
// tab's URL and title are read again.
var mutates = map[string]bool{
	"goto": true, "back": true, "reload": true, "click": true, "type": true, "press": true,
	"eval": true, "click_at": true, "drag": true, "click_id": true, "type_id": true,
}

// refresh reads the page's URL and title under a context from begin.
// Chromium also reports them as they change (onEvent), but its reports can
// lag behind the action that caused them. Errors are ignored: the page may
// be between documents.
func (b *Browser) refresh(cctx context.Context) {
	page, err := chromedp.Run(cctx, chromedp.Evaluate[[2]string](`[location.href, document.title]`))
	if err == nil {
		b.setPage(page[0], page[1])
	}
}

func (b *Browser) wrap(ctx, cctx context.Context, op, sel, waitingFor string, limit time.Duration, err error) error {
	switch {
	case b.isClosed():
		err = ErrClosed
	case ctx.Err() != nil:
		err = fmt.Errorf("the call was cancelled: %w", ctx.Err())
	case cctx.Err() != nil:
		if waitingFor == "" {
			waitingFor = "did not finish"
		}
		err = &timeoutError{after: limit, what: waitingFor}
	}
	return &Error{Op: op, Selector: sel, Err: err}
}
