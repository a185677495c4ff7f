package agent

import (
	"encoding/json"
	"fmt"

	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// appendContent appends the JSON of a tool response without a result, as
// marshal(toolContent{…}) writes it: fields in order, empty ones left out,
// no HTML escaping.
func appendContent(b []byte, success bool, errText, stdout, stderr string, vars []VariableChange) []byte {
	if success {
		b = append(b, `{"success":true`...)
	} else {
		b = append(b, `{"success":false`...)
	}
	for _, f := range [...]struct{ key, value string }{{`,"error":`, errText}, {`,"stdout":`, stdout}, {`,"stderr":`, stderr}} {
		if f.value != "" {
			b = append(b, f.key...)
			b = schema.AppendString(b, f.value)
		}
	}
	if len(vars) > 0 {
		b = append(b, `,"variables":[`...)
		for i, v := range vars {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = schema.AppendString(b, v.Name)
			b = append(b, `,"type":`...)
			b = schema.AppendString(b, v.Type)
			b = append(b, `,"preview":`...)
			b = schema.AppendString(b, v.Preview)
			b = append(b, `,"change":`...)
			b = schema.AppendString(b, v.Change)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// toolContent is the JSON shape of a ToolResponse for the model.
type toolContent struct {
	Success   bool             `json:"success"`
	Error     string           `json:"error,omitempty"`
	Stdout    string           `json:"stdout,omitempty"`
	Stderr    string           `json:"stderr,omitempty"`
	Variables []VariableChange `json:"variables,omitempty"`
	Result    json.RawMessage  `json:"result,omitempty"`
}

// Content returns the response as the JSON text sent to the model as the
// tool result.
func (r ToolResponse) Content() string {
	if r.Result == nil {
		// The common case, written directly: the same text as
		// encoding/json's without HTML escaping, in one allocation.
		var buf [512]byte // on the stack when it fits: the string is the one allocation
		return string(appendContent(buf[:0], r.Success, r.Error, r.Stdout, r.Stderr, r.Variables))
	}
	b, err := marshal(toolContent{r.Success, r.Error, r.Stdout, r.Stderr, r.Variables, r.Result})
	if err != nil { // only a Result that is not JSON could cause this
		b, _ = marshal(toolContent{Success: false, Error: "the result could not be written as JSON: " + err.Error()})
	}
	return string(b)
}

// Content returns the response as JSON text for the model.
func (s SnippetResponse) Content() string {
	b, err := marshal(toolContent{Success: s.Success, Error: s.Error, Stdout: s.Stdout, Stderr: s.Stderr, Variables: s.Variables})
	if err != nil {
		return `{"success":false,"error":"internal: the snippet's response could not be encoded"}`
	}
	return string(b)
}

// sentTool is the tool message a call's completion gave the model: the
// text the log recorded, or the one rebuilt from its fields.
func sentTool(p run.ToolCallCompleted, large int) string {
	if p.Content != "" {
		return p.Content
	}
	return restoredContent(completedContent(p), large)
}

// sentSnippet is sentTool for a snippet's part of its results message.
func sentSnippet(p run.SnippetExecuted, large int) string {
	if p.Content != "" {
		return p.Content
	}
	b, _ := marshal(toolContent{Success: p.Success, Error: p.Error, Stdout: p.Stdout, Stderr: p.Stderr, Variables: changes(p.Created, p.Modified)})
	return restoredContent(string(b), large)
}

// completedContent rebuilds the tool result the model was sent.
func completedContent(p run.ToolCallCompleted) string {
	b, _ := marshal(toolContent{Success: p.Success, Error: p.Error, Stdout: p.Stdout, Stderr: p.Stderr, Variables: changes(p.Created, p.Modified)})
	return string(b)
}

// restoredContent is a tool or snippet result as the model first saw it:
// one longer than large was kept in a variable (which the system prompt
// names), so it comes back cut, with a note.
func restoredContent(content string, large int) string {
	if len(content) <= large {
		return content
	}
	b, _ := marshal(struct {
		Note  string `json:"note"`
		Start string `json:"start"`
	}{
		Note:  fmt.Sprintf("the result was %d bytes, so it was kept as a variable (see the variables)", len(content)),
		Start: clip(content, min(large, variable.DefaultPreviewLimit)),
	})
	return string(b)
}
