// Package economy holds the measurement of what the model reads and writes
// in a byref run against a plain by-value tool loop, counted in bytes and in
// tokens of a real tokenizer that works offline, and of what the run costs
// with a provider's prompt cache: how much of each request repeats the
// previous one, on the runtime's requests and on the bodies the OpenAI and
// Anthropic clients send, and a 500-step run that outgrows its window. It
// has no code of its own; `go test ./internal/economy -update` rewrites
// docs/model-economy.md.
package economy
