package openai_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/openai"
)

// TestNothingListens: a local provider whose server is not running (no
// Ollama at OLLAMA_HOST) fails as unavailable, with what to do.
func TestNothingListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("OLLAMA_HOST", "http://"+addr)
	m, err := llm.Open("ollama:llama3.1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}})
	if !errors.Is(err, llm.ErrProviderUnavailable) || !strings.Contains(err.Error(), "nothing listens there") || !strings.Contains(err.Error(), "OLLAMA_HOST") {
		t.Fatalf("err = %v; want unavailable, saying to start the server or set OLLAMA_HOST", err)
	}
}
