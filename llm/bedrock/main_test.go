package bedrock_test

import (
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

// fakeCredentials sign the tests' requests; no test reaches AWS.
var fakeCredentials = credentials.NewStaticCredentialsProvider("AKIDTEST", "secret-test-key", "")

// writeFile writes content to the file the environment variable env names.
func writeFile(t *testing.T, env, content string) {
	t.Helper()
	if err := os.WriteFile(os.Getenv(env), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
