package bedrock

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
)

// CachePoints says where a request carries Bedrock's cachePoint blocks,
// which mark the end of a prefix for the model's prompt cache.
type CachePoints int

const (
	// CacheAuto, the default, sends cache points to the models Bedrock
	// documents prompt caching for: Anthropic's Claude (3.5 Haiku, 3.7
	// Sonnet and later) after the tools, the system prompt and the last
	// message; Amazon Nova after the system prompt and the last message
	// (Nova caches no tools). Other models get none, as they refuse them.
	CacheAuto CachePoints = iota
	// CacheOff sends no cache point.
	CacheOff
	// CacheAll sends the three cache points to any model, for a model
	// CacheAuto does not know yet.
	CacheAll
)

// cachePoint is the one kind of cache point Converse has.
var cachePoint = types.CachePointBlock{Type: types.CachePointTypeDefault}

// cacheSites says which of the three places get a cache point.
type cacheSites struct{ tools, system, messages bool }

// noCacheClaude are the Claude models on Bedrock without prompt caching.
var noCacheClaude = []string{"claude-3-haiku", "claude-3-sonnet", "claude-3-opus", "claude-3-5-sonnet", "claude-v2", "claude-instant"}

// cacheSitesFor decides where cache points go for model (an ID, an
// inference profile or an ARN holding one).
func cacheSitesFor(c CachePoints, model string) cacheSites {
	switch c {
	case CacheOff:
		return cacheSites{}
	case CacheAll:
		return cacheSites{true, true, true}
	}
	id := strings.ToLower(model)
	switch {
	case strings.Contains(id, "anthropic.claude"):
		for _, old := range noCacheClaude {
			if strings.Contains(id, old) {
				return cacheSites{}
			}
		}
		return cacheSites{tools: true, system: true, messages: true}
	case strings.Contains(id, "amazon.nova"):
		return cacheSites{system: true, messages: true}
	}
	return cacheSites{}
}
