package browser

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestMapOpenAIAction(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		args string
	}{
		{`{"type":"click","x":10,"y":20,"button":"right"}`, "computer_click", `{"browser":"<<var:web>>","button":"right","clicks":1,"x":10,"y":20}`},
		{`{"type":"click","x":1,"y":2,"button":"wheel"}`, "computer_click", `{"browser":"<<var:web>>","button":"middle","clicks":1,"x":1,"y":2}`},
		{`{"type":"double_click","x":10,"y":20}`, "computer_click", `{"browser":"<<var:web>>","button":"left","clicks":2,"x":10,"y":20}`},
		{`{"type":"move","x":5,"y":6}`, "computer_move", `{"browser":"<<var:web>>","x":5,"y":6}`},
		{`{"type":"drag","path":[{"x":1,"y":2},{"x":3,"y":4}]}`, "computer_drag", `{"browser":"<<var:web>>","path":[{"x":1,"y":2},{"x":3,"y":4}]}`},
		{`{"type":"type","text":"hi"}`, "computer_type", `{"browser":"<<var:web>>","text":"hi"}`},
		{`{"type":"keypress","keys":["CTRL","A"]}`, "computer_key", `{"browser":"<<var:web>>","keys":"CTRL+A"}`},
		{`{"type":"scroll","x":100,"y":200,"scroll_x":0,"scroll_y":300}`, "computer_scroll", `{"browser":"<<var:web>>","dx":0,"dy":300,"x":100,"y":200}`},
		{`{"type":"screenshot"}`, "computer_screenshot", `{"browser":"<<var:web>>"}`},
		{`{"type":"wait"}`, "computer_wait", `{"browser":"<<var:web>>","seconds":1}`},
	} {
		var a OpenAIAction
		if err := json.Unmarshal([]byte(c.in), &a); err != nil {
			t.Fatal(err)
		}
		got, err := MapOpenAIAction(a, "web")
		if err != nil || got.Name != c.name || string(got.Arguments) != c.args {
			t.Errorf("%s → %s %s, %v; want %s %s", c.in, got.Name, got.Arguments, err, c.name, c.args)
		}
	}
	if _, err := MapOpenAIAction(OpenAIAction{Type: "teleport"}, "web"); !errors.Is(err, ErrUnsupportedAction) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestMapAnthropicAction(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		args string
	}{
		{`{"action":"left_click","coordinate":[10,20]}`, "computer_click", `{"browser":"<<var:web>>","button":"left","clicks":1,"x":10,"y":20}`},
		{`{"action":"right_click","coordinate":[10,20]}`, "computer_click", `{"browser":"<<var:web>>","button":"right","clicks":1,"x":10,"y":20}`},
		{`{"action":"middle_click","coordinate":[10,20]}`, "computer_click", `{"browser":"<<var:web>>","button":"middle","clicks":1,"x":10,"y":20}`},
		{`{"action":"double_click","coordinate":[10,20]}`, "computer_click", `{"browser":"<<var:web>>","button":"left","clicks":2,"x":10,"y":20}`},
		{`{"action":"triple_click","coordinate":[10,20]}`, "computer_click", `{"browser":"<<var:web>>","button":"left","clicks":3,"x":10,"y":20}`},
		{`{"action":"mouse_move","coordinate":[7,8]}`, "computer_move", `{"browser":"<<var:web>>","x":7,"y":8}`},
		{`{"action":"left_click_drag","start_coordinate":[1,2],"coordinate":[3,4]}`, "computer_drag", `{"browser":"<<var:web>>","path":[{"x":1,"y":2},{"x":3,"y":4}]}`},
		{`{"action":"type","text":"hello"}`, "computer_type", `{"browser":"<<var:web>>","text":"hello"}`},
		{`{"action":"key","text":"ctrl+a"}`, "computer_key", `{"browser":"<<var:web>>","keys":"ctrl+a"}`},
		{`{"action":"scroll","coordinate":[100,200],"scroll_direction":"down","scroll_amount":3}`, "computer_scroll", `{"browser":"<<var:web>>","dx":0,"dy":300,"x":100,"y":200}`},
		{`{"action":"scroll","coordinate":[100,200],"scroll_direction":"left","scroll_amount":2}`, "computer_scroll", `{"browser":"<<var:web>>","dx":-200,"dy":0,"x":100,"y":200}`},
		{`{"action":"screenshot"}`, "computer_screenshot", `{"browser":"<<var:web>>"}`},
		{`{"action":"wait","duration":2.5}`, "computer_wait", `{"browser":"<<var:web>>","seconds":2.5}`},
	} {
		var a AnthropicAction
		if err := json.Unmarshal([]byte(c.in), &a); err != nil {
			t.Fatal(err)
		}
		got, err := MapAnthropicAction(a, "web")
		if err != nil || got.Name != c.name || string(got.Arguments) != c.args {
			t.Errorf("%s → %s %s, %v; want %s %s", c.in, got.Name, got.Arguments, err, c.name, c.args)
		}
	}
	for _, bad := range []AnthropicAction{{Action: "cursor_position"}, {Action: "left_click"}, {Action: "hold_key", Text: "shift"}} {
		if _, err := MapAnthropicAction(bad, "web"); !errors.Is(err, ErrUnsupportedAction) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// Every mapped call names an action of the set, with arguments its schema
// accepts.
func TestMappedCallsMatchActions(t *testing.T) {
	set := Actions()
	for _, typ := range []string{"click", "double_click", "move", "drag", "type", "keypress", "scroll", "screenshot", "wait"} {
		c, err := MapOpenAIAction(OpenAIAction{Type: typ, Keys: []string{"a"}, Path: []Point{{1, 1}, {2, 2}}}, "web")
		if err != nil {
			t.Fatal(err)
		}
		a, ok := set.Get(c.Name)
		if !ok {
			t.Fatalf("%s maps to %s, which is not an action", typ, c.Name)
		}
		var args map[string]json.RawMessage
		json.Unmarshal(c.Arguments, &args)
		for name, raw := range args {
			i := a.ParamIndex(name)
			if i < 0 {
				t.Errorf("%s: %s has no parameter %s", typ, c.Name, name)
				continue
			}
			if name != "browser" {
				if err := a.ValidateRaw(i, raw); err != nil {
					t.Errorf("%s: %s.%s = %s: %v", typ, c.Name, name, raw, err)
				}
			}
		}
	}
}

func TestComputerUse(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/canvas")); err != nil {
		t.Fatal(err)
	}
	log := func() []any {
		t.Helper()
		v, err := b.Eval(ctx, "window.log.splice(0)")
		if err != nil {
			t.Fatal(err)
		}
		l, _ := v.([]any)
		return l
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.ClickAt(ctx, 150, 120, "", 1))
	if got, want := jsonOf(log()), `["down 150,120","up 150,120","click 150,120 1"]`; got != want {
		t.Errorf("click: %s, want %s", got, want)
	}
	must(b.ClickAt(ctx, 150, 120, ButtonLeft, 2))
	if got, want := jsonOf(log()), `["down 150,120","up 150,120","click 150,120 1","down 150,120","up 150,120","click 150,120 2","dblclick"]`; got != want {
		t.Errorf("double click: %s, want %s", got, want)
	}
	must(b.ClickAt(ctx, 150, 120, ButtonRight, 1))
	if l := jsonOf(log()); !strings.Contains(l, `"right"`) {
		t.Errorf("right click: %s", jsonOf(l))
	}
	must(b.ClickAt(ctx, 150, 120, ButtonRight, 1))
	if l := jsonOf(log()); !strings.Contains(l, `"right"`) {
		t.Errorf("right click: %s", jsonOf(l))
	}
	// The double click above selected the pad's line: pressing on the
	// selection and moving starts an HTML5 drag of it, in which the page
	// gets no more mouse events. Drag plays it through to the end.
	must(b.Drag(ctx, []Point{{110, 110}, {200, 150}, {250, 160}}))
	if got, want := jsonOf(squeeze(log())), `["down 110,110","move 200,150 buttons=1","dragstart","dragenter","dragend","up 250,160"]`; got != want {
		t.Errorf("drag over a selection: %s, want %s", got, want)
	}
	// With nothing selected, a drag is mouse events only: down, a move with
	// the button held at each point, up, and a click as both ends are on
	// the pad.
	if _, err := b.Eval(ctx, "getSelection().removeAllRanges()"); err != nil {
		t.Fatal(err)
	}
	must(b.Drag(ctx, []Point{{110, 110}, {200, 150}, {250, 160}}))
	if got, want := jsonOf(log()), `["down 110,110","move 200,150 buttons=1","move 250,160 buttons=1","up 250,160","click 250,160 1"]`; got != want {
		t.Errorf("drag: %s, want %s", got, want)
	}
	must(b.ClickAt(ctx, 150, 120, ButtonRight, 1))
	if l := jsonOf(log()); !strings.Contains(l, `"right"`) {
		t.Errorf("right click: %s", l)
	}
	must(b.ScrollAt(ctx, 640, 400, 0, 300))
	if y, _ := b.Eval(ctx, "window.scrollY"); y != 300.0 {
		t.Errorf("scrollY after the wheel = %v", y)
	}
	must(b.MoveMouse(ctx, 1, 1))
	if err := b.ClickAt(ctx, 1, 1, "thumb", 1); err == nil {
		t.Error("an unknown button was accepted")
	}
	shot, err := b.Screenshot(ctx)
	must(err)
	if shot.Preview(0) != "PNG 1280×800" {
		t.Errorf("screenshot %s", shot.Preview(0))
	}

	if err := b.Goto(ctx, siteURL("/keys")); err != nil {
		t.Fatal(err)
	}
	must(b.Click(ctx, "#k"))
	must(b.TypeText(ctx, "ab"))
	must(b.Press(ctx, "BackSpace"))
	if v, _ := b.Eval(ctx, "document.getElementById('k').value"); v != "a" {
		t.Errorf("typed value = %v", v)
	}
}

// An HTML5 drag of a draggable element ends with a drop where the mouse is
// released, carrying the data set at dragstart.
func TestDragAndDrop(t *testing.T) {
	b := newTab(t)
	ctx := testCtx(t)
	if err := b.Goto(ctx, siteURL("/dnd")); err != nil {
		t.Fatal(err)
	}
	if err := b.Drag(ctx, []Point{{100, 100}, {200, 100}, {350, 100}}); err != nil {
		t.Fatal(err)
	}
	v, err := b.Eval(ctx, "window.log.splice(0)")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(v), `["dragstart item","dragenter zone","drop zone item-1 350,100","dragend item copy"]`; got != want {
		t.Errorf("drag and drop: %s, want %s", got, want)
	}
	// The tab no longer intercepts drags: a plain click still works.
	if err := b.ClickAt(ctx, 350, 100, ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
}

// squeeze drops repeated entries of a log, and its dragover entries, whose
// number depends on timing.
func squeeze(l []any) []any {
	var out []any
	for _, e := range l {
		if e == "dragover" || (len(out) > 0 && out[len(out)-1] == e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
