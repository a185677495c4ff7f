// Package accounting holds the test that every provider client's usage
// (cache reads and writes, reasoning tokens, the provider's cost) reaches
// a run's Outcome.Usage and its log alike, each client against a server
// speaking its provider's wire format. It imports every provider, Bedrock
// included, which llm/providers leaves out; it has no code of its own.
package accounting
