package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/byref/byref/schema"
)

// ErrUnsupportedAction means a provider's computer-use action has no
// equivalent here.
var ErrUnsupportedAction = errors.New("browser: unsupported computer-use action")

// Call is a tool call for one of this package's actions: its name and its
// arguments as JSON, ready for an agent.ToolCall.
type Call struct {
	Name      string
	Arguments json.RawMessage
}

// OpenAIAction is the "action" object of an OpenAI computer_call (the
// computer-use-preview tool of the Responses API).
type OpenAIAction struct {
	// Type is click, double_click, drag, keypress, move, screenshot,
	// scroll, type or wait.
	Type    string   `json:"type"`
	X       int      `json:"x,omitempty"`
	Y       int      `json:"y,omitempty"`
	Button  string   `json:"button,omitempty"` // left, right, wheel, back, forward
	Path    []Point  `json:"path,omitempty"`   // drag
	Keys    []string `json:"keys,omitempty"`   // keypress, e.g. ["CTRL", "A"]
	ScrollX int      `json:"scroll_x,omitempty"`
	ScrollY int      `json:"scroll_y,omitempty"`
	Text    string   `json:"text,omitempty"`
}

// AnthropicAction is the input of Anthropic's computer tool
// (computer_20250124 and later).
type AnthropicAction struct {
	// Action is key, type, mouse_move, left_click, right_click,
	// middle_click, double_click, triple_click, left_click_drag, scroll,
	// screenshot or wait.
	Action          string  `json:"action"`
	Coordinate      []int   `json:"coordinate,omitempty"`       // [x, y]
	StartCoordinate []int   `json:"start_coordinate,omitempty"` // left_click_drag
	Text            string  `json:"text,omitempty"`             // type, key
	ScrollDirection string  `json:"scroll_direction,omitempty"` // up, down, left, right
	ScrollAmount    int     `json:"scroll_amount,omitempty"`    // wheel clicks
	Duration        float64 `json:"duration,omitempty"`         // wait, in seconds
}

// ScrollClick is how many pixels one wheel click of Anthropic's
// scroll_amount scrolls.
const ScrollClick = 100

// call builds a Call with the browser reference and the given arguments.
func call(name, browserVar string, args map[string]any) (Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	args["browser"] = schema.Ref(browserVar)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<<var:…>>" readable
	err := enc.Encode(args)
	return Call{Name: name, Arguments: bytes.TrimSpace(buf.Bytes())}, err
}

// MapOpenAIAction maps an OpenAI computer-use action onto this package's
// actions, acting on the browser variable named browserVar.
func MapOpenAIAction(a OpenAIAction, browserVar string) (Call, error) {
	switch a.Type {
	case "click":
		button := a.Button
		if button == "wheel" {
			button = ButtonMiddle
		}
		if button == "" {
			button = ButtonLeft
		}
		return call("computer_click", browserVar, map[string]any{"x": a.X, "y": a.Y, "button": button, "clicks": 1})
	case "double_click":
		return call("computer_click", browserVar, map[string]any{"x": a.X, "y": a.Y, "button": ButtonLeft, "clicks": 2})
	case "move":
		return call("computer_move", browserVar, map[string]any{"x": a.X, "y": a.Y})
	case "drag":
		return call("computer_drag", browserVar, map[string]any{"path": a.Path})
	case "type":
		return call("computer_type", browserVar, map[string]any{"text": a.Text})
	case "keypress":
		if len(a.Keys) == 0 {
			return Call{}, fmt.Errorf("%w: keypress without keys", ErrUnsupportedAction)
		}
		return call("computer_key", browserVar, map[string]any{"keys": strings.Join(a.Keys, "+")})
	case "scroll":
		return call("computer_scroll", browserVar, map[string]any{"x": a.X, "y": a.Y, "dx": a.ScrollX, "dy": a.ScrollY})
	case "screenshot":
		return call("computer_screenshot", browserVar, nil)
	case "wait":
		return call("computer_wait", browserVar, map[string]any{"seconds": 1})
	}
	return Call{}, fmt.Errorf("%w: OpenAI %q", ErrUnsupportedAction, a.Type)
}

// MapAnthropicAction maps an Anthropic computer tool action onto this
// package's actions, acting on the browser variable named browserVar.
func MapAnthropicAction(a AnthropicAction, browserVar string) (Call, error) {
	xy := func() (map[string]any, error) {
		if len(a.Coordinate) != 2 {
			return nil, fmt.Errorf("%w: %s needs coordinate [x, y]", ErrUnsupportedAction, a.Action)
		}
		return map[string]any{"x": a.Coordinate[0], "y": a.Coordinate[1]}, nil
	}
	click := func(button string, clicks int) (Call, error) {
		args, err := xy()
		if err != nil {
			return Call{}, err
		}
		args["button"], args["clicks"] = button, clicks
		return call("computer_click", browserVar, args)
	}
	switch a.Action {
	case "left_click":
		return click(ButtonLeft, 1)
	case "right_click":
		return click(ButtonRight, 1)
	case "middle_click":
		return click(ButtonMiddle, 1)
	case "double_click":
		return click(ButtonLeft, 2)
	case "triple_click":
		return click(ButtonLeft, 3)
	case "mouse_move":
		args, err := xy()
		if err != nil {
			return Call{}, err
		}
		return call("computer_move", browserVar, args)
	case "left_click_drag":
		if len(a.StartCoordinate) != 2 || len(a.Coordinate) != 2 {
			return Call{}, fmt.Errorf("%w: left_click_drag needs start_coordinate and coordinate", ErrUnsupportedAction)
		}
		path := []Point{{a.StartCoordinate[0], a.StartCoordinate[1]}, {a.Coordinate[0], a.Coordinate[1]}}
		return call("computer_drag", browserVar, map[string]any{"path": path})
	case "type":
		return call("computer_type", browserVar, map[string]any{"text": a.Text})
	case "key":
		return call("computer_key", browserVar, map[string]any{"keys": a.Text})
	case "scroll":
		args, err := xy()
		if err != nil {
			args = map[string]any{"x": DefaultWidth / 2, "y": DefaultHeight / 2}
		}
		amount := a.ScrollAmount
		if amount == 0 {
			amount = 3
		}
		dx, dy := 0, 0
		switch a.ScrollDirection {
		case "up":
			dy = -amount * ScrollClick
		case "down", "":
			dy = amount * ScrollClick
		case "left":
			dx = -amount * ScrollClick
		case "right":
			dx = amount * ScrollClick
		default:
			return Call{}, fmt.Errorf("%w: scroll_direction %q", ErrUnsupportedAction, a.ScrollDirection)
		}
		args["dx"], args["dy"] = dx, dy
		return call("computer_scroll", browserVar, args)
	case "screenshot":
		return call("computer_screenshot", browserVar, nil)
	case "wait":
		d := a.Duration
		if d == 0 {
			d = 1
		}
		return call("computer_wait", browserVar, map[string]any{"seconds": d})
	}
	return Call{}, fmt.Errorf("%w: Anthropic %q", ErrUnsupportedAction, a.Action)
}
