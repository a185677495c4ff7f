package bedrock_test

import (
	"path/filepath"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/llmtest"
)

// awsEnv gives the test the environment an AWS user has: keys and a
// region, and no shared config files of the machine's.
func awsEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-test-key")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	// No test may reach an instance's or a container's metadata service.
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
}

// TestConformance runs llmtest's suite against the bedrock provider,
// opened by name as a user would, with credentials and region from the
// environment, over a server speaking the Converse API.
func TestConformance(t *testing.T) {
	awsEnv(t)
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
