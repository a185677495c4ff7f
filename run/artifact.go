package run

import "fmt"

// Artifact is a named piece of a run's output, of any content type: a CSV
// file, a PNG image, a JSON document. An action that returns one (or a
// *Artifact, or a []Artifact for several parts of one message) makes it
// part of the run's output: the variable that holds it is recorded with
// its value, and servers (the ACP server of package server) show it as
// output. Content is base64 in JSON.
type Artifact struct {
	// Name is the artifact's file name, e.g. "orders.csv"; empty for a
	// plain part of a message.
	Name string `json:"name,omitempty"`
	// ContentType is its media type, e.g. "text/csv" or "image/png".
	ContentType string `json:"content_type"`
	// Content is its bytes.
	Content []byte `json:"content"`
}

// Media is implemented by a Go type whose values are media of one type,
// such as browser.Screenshot (image/png). A variable holding one that a
// step creates or changes is recorded with its media type
// (VariableCreated.MediaType) and its value, and is part of the run's
// output by default: the ACP server of package server shows it as a part
// of that content type, named after the variable, with no configuration by
// the host. The method is called on the zero value too, and must return a
// constant media type ("image/png").
type Media interface {
	MediaType() string
}

// Preview describes the artifact without its bytes, for the model: its
// name, type and size. It implements variable.Previewer.
func (a Artifact) Preview(limit int) string {
	ct := a.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	s := fmt.Sprintf("%s, %d bytes", ct, len(a.Content))
	if a.Name != "" {
		s = a.Name + " (" + s + ")"
	}
	if r := []rune(s); limit > 0 && len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}
