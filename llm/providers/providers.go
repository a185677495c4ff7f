// Package providers registers every model provider byref ships with
// [llm.Register], for programs that open models by name:
//
//	import (
//		"github.com/byref/byref/llm"
//		_ "github.com/byref/byref/llm/providers"
//	)
//
//	model, err := llm.Open("openai:gpt-4o-mini")
//
// It imports [github.com/byref/byref/llm/openai] (openai, gemini-openai,
// mistral, openrouter, ollama, vllm), [github.com/byref/byref/llm/openai/responses]
// (openai-responses), [github.com/byref/byref/llm/azure] (azure,
// azure-responses), [github.com/byref/byref/llm/anthropic]
// (anthropic/claude) and [github.com/byref/byref/llm/gemini]
// (gemini/google). It leaves out github.com/byref/byref/llm/bedrock
// (bedrock), which brings the AWS SDK for Go: a program that wants Bedrock
// imports that package itself. A program that needs only one can import that package
// instead; one that brings its own [llm.Model] needs neither.
package providers

import (
	// Registered for llm.Open.
	_ "github.com/byref/byref/llm/anthropic"
	_ "github.com/byref/byref/llm/azure"
	_ "github.com/byref/byref/llm/gemini"
	_ "github.com/byref/byref/llm/openai"
	_ "github.com/byref/byref/llm/openai/responses"
)
