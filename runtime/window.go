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
// keeping the system prompt, the task (the first two messages) and the
// message at index pinned (the follow-up that opened the current turn; 0
// for none). A turn is an assistant message with the tool results and notes
// that follow it, so that no tool result loses its call. The last turn is
// always kept. It returns the messages and the pinned message's new index.
func fitWindow(msgs []llm.Message, budget, pinned int) ([]llm.Message, int) {
	total := 0
	for _, m := range msgs {
		total += estimateTokens(m)
	}
	if total <= budget || len(msgs) <= 3 {
		return msgs, pinned
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
		for i, m := range msgs[cut:end] {
			if cut+i != pinned {
				total -= estimateTokens(m)
			}
		}
		cut = end
	}
	if cut == 2 {
		return msgs, pinned
	}
	kept := make([]llm.Message, 0, 3+len(msgs)-cut)
	kept = append(kept, msgs[:2]...)
	switch {
	case pinned >= 2 && pinned < cut:
		kept = append(kept, msgs[pinned])
		pinned = 2
	case pinned >= cut:
		pinned -= cut - 2
	}
	return append(kept, msgs[cut:]...), pinned
}
