package runtime

import (
	"fmt"
	"unicode/utf8"

	"github.com/byref/byref/llm"
)

// clip returns s cut to at most limit bytes, at a character boundary, with
// a note saying how much was cut; s itself when it fits.
func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf(" […%d more bytes cut: messages to the model are bounded to %d bytes]", len(s), limit)
	keep := max(limit-len(note), 0)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + note
}

// clipMessages returns msgs with every text clipped to limit bytes,
// copying the slice only when one is.
func clipMessages(msgs []llm.Message, limit int) []llm.Message {
	var out []llm.Message
	for i, m := range msgs {
		if len(m.Text) <= limit {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		out[i].Text = clip(m.Text, limit)
	}
	if out == nil {
		return msgs
	}
	return out
}
