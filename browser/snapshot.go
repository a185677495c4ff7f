package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
)

// Bounds of a snapshot.
const (
	// MaxSnapshotElements is the most interactive elements a snapshot lists.
	MaxSnapshotElements = 150
	// MaxSnapshotText is the most characters of visible text it keeps.
	MaxSnapshotText = 3000
	// maxNameLen bounds an element's name and value.
	maxNameLen = 80
)

// Snapshot is a compact, model-readable view of a page: its interactive
// elements, each with a short ID ("e1", "e2", …) that ClickID and TypeID
// accept, and its visible text, both bounded. An element keeps its ID for as
// long as it stays in the page, across snapshots; IDs are never reused within
// a tab, so an ID from an older page fails with ErrUnknownID instead of
// hitting another element.
type Snapshot struct {
	URL      string    `json:"url"`
	Title    string    `json:"title"`
	Elements []Element `json:"elements"`
	// Omitted counts the interactive elements left out past
	// MaxSnapshotElements.
	Omitted int `json:"omitted,omitempty"`
	// Text is the page's visible text, cut at MaxSnapshotText characters.
	Text string `json:"text"`
	// TextCut reports whether Text was cut.
	TextCut bool `json:"text_cut,omitempty"`
}

// Element is an interactive element of a Snapshot.
type Element struct {
	// ID is the element's snapshot ID, e.g. "e3".
	ID string `json:"id"`
	// Role is what the element is: link, button, textbox, checkbox, radio,
	// combobox, slider, or an ARIA role.
	Role string `json:"role"`
	// Name is its accessible name: label, aria-label, placeholder or text.
	Name string `json:"name,omitempty"`
	// Value is a field's current value; a password shows as "••••".
	Value string `json:"value,omitempty"`
	// Checked is set for checked checkboxes and radio buttons.
	Checked bool `json:"checked,omitempty"`
	// Disabled is set for disabled controls.
	Disabled bool `json:"disabled,omitempty"`
	// Href is a link's target.
	Href string `json:"href,omitempty"`
}

// String renders the snapshot as the model reads it:
//
//	Page "Sign in" at http://127.0.0.1:8080/login
//	e1 textbox "Email" value="ann@example.com"
//	e2 textbox "Password"
//	e3 button "Sign in"
//	Text:
//	Sign in …
func (s *Snapshot) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s *Snapshot) write(b *strings.Builder) {
	fmt.Fprintf(b, "Page %q at %s\n", s.Title, s.URL)
	for i := range s.Elements {
		s.Elements[i].write(b)
		b.WriteByte('\n')
	}
	if s.Omitted > 0 {
		fmt.Fprintf(b, "(%d more interactive elements not listed)\n", s.Omitted)
	}
	if s.Text != "" {
		b.WriteString("Text:\n")
		b.WriteString(s.Text)
		if s.TextCut {
			b.WriteString("…")
		}
		b.WriteByte('\n')
	}
}

func (e *Element) write(b *strings.Builder) {
	b.WriteString(e.ID)
	b.WriteByte(' ')
	b.WriteString(e.Role)
	if e.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Name))
	}
	if e.Value != "" {
		b.WriteString(" value=")
		b.WriteString(strconv.Quote(e.Value))
	}
	if e.Href != "" {
		b.WriteString(" href=")
		b.WriteString(e.Href)
	}
	if e.Checked {
		b.WriteString(" checked")
	}
	if e.Disabled {
		b.WriteString(" disabled")
	}
}

// Preview describes the snapshot in a line: its page, element count and
// first elements. It implements variable.Previewer.
func (s *Snapshot) Preview(limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Snapshot of %s: %d elements", s.URL, len(s.Elements)+s.Omitted)
	for i := range s.Elements {
		if limit > 0 && b.Len() > limit {
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		s.Elements[i].write(&b)
	}
	return cut(b.String(), limit)
}

// Find returns the element with the given ID.
func (s *Snapshot) Find(id string) (Element, bool) {
	for _, e := range s.Elements {
		if e.ID == id {
			return e, true
		}
	}
	return Element{}, false
}

// snapshotJS collects the page's interactive elements and text. It keeps an
// element→ID WeakMap and an ID→WeakRef map in window.__byref, so an element
// keeps its ID across snapshots; new IDs are numbered from the argument
// start, which the tab keeps, so IDs are not reused after a navigation.
const snapshotJS = `(function(start, maxEls, maxText, maxName) {
	const st = window.__byref || (window.__byref = {ids: new WeakMap(), els: new Map()});
	let next = start;
	const cutText = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
	const visible = el => {
		const r = el.getBoundingClientRect();
		if (r.width <= 0 || r.height <= 0) return false;
		const cs = getComputedStyle(el);
		return cs.visibility !== 'hidden' && cs.display !== 'none';
	};
	const roleOf = el => {
		const r = el.getAttribute('role');
		if (r) return r;
		const t = el.tagName;
		if (t === 'A') return 'link';
		if (t === 'BUTTON' || t === 'SUMMARY') return 'button';
		if (t === 'SELECT') return 'combobox';
		if (t === 'TEXTAREA') return 'textbox';
		if (t === 'INPUT') {
			const ty = (el.type || 'text').toLowerCase();
			if (ty === 'hidden') return '';
			if (['button', 'submit', 'reset', 'image'].includes(ty)) return 'button';
			if (ty === 'checkbox' || ty === 'radio') return ty;
			if (ty === 'range') return 'slider';
			if (ty === 'search') return 'searchbox';
			return 'textbox';
		}
		if (el.isContentEditable) return 'textbox';
		return 'clickable';
	};
	const nameOf = el => {
		let n = el.getAttribute('aria-label');
		if (!n && el.getAttribute('aria-labelledby')) {
			n = el.getAttribute('aria-labelledby').split(/\s+/).map(id => { const l = document.getElementById(id); return l ? l.innerText : ''; }).join(' ');
		}
		if (!n && el.labels && el.labels.length) n = el.labels[0].innerText;
		if (!n) n = el.getAttribute('placeholder') || el.getAttribute('alt') || '';
		if (!n && el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) n = el.value;
		if (!n && el.tagName !== 'SELECT') n = el.innerText;
		if (!n) n = el.getAttribute('title') || el.getAttribute('name') || '';
		return cutText(n, maxName);
	};
	const sel = 'a[href],button,input,textarea,select,summary,[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[contenteditable=""],[contenteditable=true],[onclick]';
	const elements = [];
	let omitted = 0;
	for (const el of document.querySelectorAll(sel)) {
		const role = roleOf(el);
		if (!role || !visible(el)) continue;
		if (elements.length >= maxEls) { omitted++; continue; }
		let id = st.ids.get(el);
		if (!id) { id = 'e' + next++; st.ids.set(el, id); st.els.set(id, new WeakRef(el)); }
		const e = {id: id, role: role, name: nameOf(el)};
		if (role === 'checkbox' || role === 'radio') { if (el.checked) e.checked = true; }
		else if ('value' in el && el.tagName !== 'BUTTON' && role !== 'button') {
			if (el.type === 'password') { if (el.value) e.value = '••••'; }
			else if (el.tagName === 'SELECT') { const o = el.selectedOptions[0]; if (o) e.value = cutText(o.text, maxName); }
			else if (el.value) e.value = cutText(String(el.value), maxName);
		}
		if (el.disabled) e.disabled = true;
		if (el.tagName === 'A') e.href = el.getAttribute('href');
		elements.push(e);
	}
	let text = document.body ? document.body.innerText.replace(/[ \t]+/g, ' ').replace(/\n\s*\n+/g, '\n').trim() : '';
	let textCut = false;
	if (text.length > maxText) { text = text.slice(0, maxText); textCut = true; }
	return {url: location.href, title: document.title, elements: elements, omitted: omitted, text: text, text_cut: textCut, next: next};
})`

// snapshotResult is what snapshotJS returns.
type snapshotResult struct {
	Snapshot
	Next int `json:"next"`
}

// Snapshot returns a compact view of the page: its interactive elements with
// short IDs, and its visible text. See Snapshot.
func (b *Browser) Snapshot(ctx context.Context) (*Snapshot, error) {
	cctx, limit, end, err := b.begin(ctx, "snapshot", "")
	if err != nil {
		return nil, err
	}
	defer end()
	js := fmt.Sprintf("%s(%d, %d, %d, %d)", snapshotJS, b.nextID, MaxSnapshotElements, MaxSnapshotText, maxNameLen)
	var res snapshotResult
	if err := evalValue(cctx, js, &res); err != nil {
		return nil, b.wrap(ctx, cctx, "snapshot", "", "", limit, err)
	}
	if res.Next > b.nextID {
		b.nextID = res.Next
	}
	if res.Elements == nil {
		res.Elements = []Element{}
	}
	return &res.Snapshot, nil
}

// evalValue runs js under a context that begin returned and decodes its JSON
// value into v.
func evalValue(cctx context.Context, js string, v any) error {
	raw, err := chromedp.Run(cctx, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// locateJS scrolls the element with a snapshot ID into view and returns the
// center of its box, or null when the ID names no element in the page.
const locateJS = `(function(id, clear) {
	const st = window.__byref;
	const ref = st && st.els.get(id);
	const el = ref && ref.deref();
	if (!el || !el.isConnected) return null;
	el.scrollIntoView({block: 'center', inline: 'center'});
	if (clear) {
		el.focus();
		if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); }
		else if (el.isContentEditable) el.textContent = '';
	}
	const r = el.getBoundingClientRect();
	return {x: r.left + r.width / 2, y: r.top + r.height / 2};
})`

type point struct{ X, Y float64 }

// locate finds a snapshot ID's element under a context from begin.
func (b *Browser) locate(cctx context.Context, id string, clear bool) (*point, error) {
	idJSON, _ := json.Marshal(id)
	var p *point
	if err := evalValue(cctx, fmt.Sprintf("%s(%s, %t)", locateJS, idJSON, clear), &p); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%w: the page has no element %s now (it changed or navigated since the snapshot); take a new snapshot", ErrUnknownID, id)
	}
	return p, nil
}

// ClickID clicks the element a snapshot listed under id.
func (b *Browser) ClickID(ctx context.Context, id string) error {
	cctx, limit, end, err := b.begin(ctx, "click_id", id)
	if err != nil {
		return err
	}
	defer end()
	defer b.version.Add(1)
	p, err := b.locate(cctx, id, false)
	if err == nil {
		_, err = chromedp.Run(cctx, settle(chromedp.MouseClickXY(p.X, p.Y)))
	}
	if err != nil {
		return b.wrap(ctx, cctx, "click_id", id, "", limit, err)
	}
	b.refresh(cctx)
	return nil
}

// TypeID replaces the content of the field a snapshot listed under id with
// text, typed key by key.
func (b *Browser) TypeID(ctx context.Context, id, text string) error {
	cctx, limit, end, err := b.begin(ctx, "type_id", id)
	if err != nil {
		return err
	}
	defer end()
	defer b.version.Add(1)
	_, err = b.locate(cctx, id, true)
	if err == nil {
		_, err = chromedp.Run(cctx, chromedp.KeyEvent(text))
	}
	if err != nil {
		return b.wrap(ctx, cctx, "type_id", id, "", limit, err)
	}
	return nil
}
