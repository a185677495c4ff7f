package run

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
