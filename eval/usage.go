package eval

import "github.com/byref/byref/llm"

// cachedTokens returns the input tokens a call read from the provider's
// cache. llm.Usage does not count them yet: until it does, this is 0 and
// MaxCachedTokens always holds.
func cachedTokens(u llm.Usage) int { return 0 }
