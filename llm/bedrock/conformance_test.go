package bedrock_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
)

// TestConformance runs llmtest's suite against the bedrock provider,
// opened by name as a user would, with credentials and region from the
// environment, over a server speaking the Converse API.
func TestConformance(t *testing.T) {
	recorded.AWSEnv(t)
	llmtest.Run(t, llmtest.Bedrock, func(t *testing.T, url string) llm.Model {
		m, err := llm.OpenWith("bedrock:us.amazon.nova-micro-v1:0", llm.Config{BaseURL: url, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := bedrock.New(bedrock.Options{Region: "us-east-1"}); err == nil {
		t.Error("New without a model: no error")
	}
}
