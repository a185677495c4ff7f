// Package economy holds the measurement of what the model reads and writes
// in a byref run against a plain by-value tool loop, counted in bytes and in
// tokens of a real tokenizer that works offline. It has no code of its own;
// `go test ./internal/economy -run TestModelEconomy -update` rewrites
// docs/model-economy.md.
package economy
