package agent

import (
	"fmt"
	"unicode/utf8"

	"github.com/byref/byref/llm"
)

// clip returns s cut to at most limit bytes, at a character boundary, with
// a note saying how many bytes were cut; s itself when it fits.
func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	keep := 0
	note := clipNote(len(s), limit)
	for range 2 { // the count's digits can only shrink the note
		keep = max(limit-len(note), 0)
		for keep > 0 && !utf8.RuneStart(s[keep]) {
			keep--
		}
		note = clipNote(len(s)-keep, limit)
	}
	return s[:keep] + note
}

func clipNote(cut, limit int) string {
	return fmt.Sprintf(" […%d more bytes cut: messages to the model are bounded to %d bytes]", cut, limit)
}

// cutResult is what the model gets, in plain mode, instead of a tool
// result too large for the conversation: valid JSON, with the start of the
// result and a note that says how much of it was cut.
type cutResult struct {
	Note  string `json:"note"`
	Start string `json:"start"`
}

// clipJSON returns content, a tool result in JSON, as a cutResult of at
// most limit bytes: its first bytes as a string, at a character boundary,
// and a note with the count of the bytes cut.
func clipJSON(content string, limit int) string {
	keep := min(len(content), limit)
	for {
		for keep > 0 && !utf8.RuneStart(content[keep]) {
			keep--
		}
		b, _ := marshal(cutResult{
			Note:  fmt.Sprintf("the result was %d bytes and is cut to its start: %d bytes cut, as messages to the model are bounded to %d bytes", len(content), len(content)-keep, limit),
			Start: content[:keep],
		})
		if len(b) <= limit || keep == 0 {
			return string(b)
		}
		keep -= min(keep, len(b)-limit) // escaping made it longer: drop the excess
	}
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
