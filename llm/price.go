package llm

// Price is what a model's tokens cost, in dollars per million tokens:
// input tokens, output tokens, and the input tokens the provider read
// from its prompt cache (CacheRead) and wrote to it (CacheWrite; zero
// means the Input price). byref ships no price table: prices change, and
// each provider publishes its own (Anthropic bills cache reads at a tenth
// of the input price and cache writes at 1.25 times it; OpenAI bills
// cached input at a discount that depends on the model).
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost returns what u costs at p, in dollars. The input tokens that are
// neither cache reads nor cache writes are priced at Input.
func (p Price) Cost(u Usage) float64 {
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	plain := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	return (float64(plain)*p.Input + float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.Output) / 1e6
}
