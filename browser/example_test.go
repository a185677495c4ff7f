package browser_test

import (
	"context"
	"fmt"

	"github.com/byref/byref/browser"
)

// Map a provider's computer-use action onto a byref tool call on the
// browser variable "web".
func ExampleMapAnthropicAction() {
	c, _ := browser.MapAnthropicAction(browser.AnthropicAction{Action: "double_click", Coordinate: []int{640, 400}}, "web")
	fmt.Println(c.Name, string(c.Arguments))
	c, _ = browser.MapOpenAIAction(browser.OpenAIAction{Type: "keypress", Keys: []string{"CTRL", "L"}}, "web")
	fmt.Println(c.Name, string(c.Arguments))
	// Output:
	// computer_click {"browser":"<<var:web>>","button":"left","clicks":2,"x":640,"y":400}
	// computer_key {"browser":"<<var:web>>","keys":"CTRL+L"}
}

// Drive a browser from Go. It needs Chromium, so it has no checked output.
func ExampleStart() {
	ctx := context.Background()
	b, err := browser.Start(ctx, browser.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	if err := b.Goto(ctx, "http://127.0.0.1:8080/"); err != nil {
		fmt.Println(err)
		return
	}
	snap, _ := b.Snapshot(ctx)
	fmt.Print(snap)
	_ = b.ClickID(ctx, "e1")
}
