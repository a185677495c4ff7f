package action_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/byref/byref/action"
)

func TestNeedsHumanErrors(t *testing.T) {
	auth := error(&action.AuthorizationRequired{Link: "https://example.com/oauth", Message: "sign in to Drive"})
	if auth.Error() != "authorization required: sign in to Drive (https://example.com/oauth)" {
		t.Errorf("Error() = %q", auth)
	}
	input := error(&action.InputRequired{Message: "the reviewer's notes"})
	if input.Error() != "input required: the reviewer's notes" {
		t.Errorf("Error() = %q", input)
	}
	for _, err := range []error{auth, input, fmt.Errorf("call: %w", auth)} {
		if !errors.Is(err, action.ErrNeedsHuman) {
			t.Errorf("%v does not wrap ErrNeedsHuman", err)
		}
	}
	var ar *action.AuthorizationRequired
	if !errors.As(fmt.Errorf("x: %w", auth), &ar) || ar.Link != "https://example.com/oauth" {
		t.Error("errors.As does not find the AuthorizationRequired")
	}
}

func TestInput(t *testing.T) {
	if in, ok := action.Input(context.Background()); ok || in != nil {
		t.Errorf("Input outside a resumed call = %s, %v", in, ok)
	}
	ctx := action.WithInput(context.Background(), json.RawMessage(`{"ok":true}`))
	if in, ok := action.Input(ctx); !ok || string(in) != `{"ok":true}` {
		t.Errorf("Input = %s, %v", in, ok)
	}
}
