package runtime

import "github.com/byref/byref/llm"

// estimateTokens is a cheap estimate of a message's tokens: four characters
// a token, plus a few for the message's envelope.
func estimateTokens(m llm.Message) int {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n/4 + 4
}

// fitWindow drops the oldest turns until the messages fit in budget tokens,
// keeping the system prompt and the task (the first two messages). A turn
// is an assistant message with the tool results and notes that follow it,
// so that no tool result loses its call. The last turn is always kept.
func fitWindow(msgs []llm.Message, budget int) []llm.Message {
	total := 0
	for _, m := range msgs {
		total += estimateTokens(m)
	}
	if total <= budget || len(msgs) <= 3 {
		return msgs
	}
	cut := 2
	for total > budget {
		// The next turn ends before the following assistant message.
		end := cut + 1
		for end < len(msgs) && msgs[end].Role != llm.RoleAssistant {
			end++
		}
		if end >= len(msgs) {
			break // only the last turn is left
		}
		for _, m := range msgs[cut:end] {
			total -= estimateTokens(m)
		}
		cut = end
	}
	if cut == 2 {
		return msgs
	}
	kept := make([]llm.Message, 0, 2+len(msgs)-cut)
	kept = append(kept, msgs[:2]...)
	return append(kept, msgs[cut:]...)
}
