package server

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/byref/byref/run"
)

// OutputType makes the values of a Go type that a run's steps create or
// change part of the run's ACP output: each such variable becomes an
// output message of one part, named after the variable, with the content
// type. The value is read from the run's log (run.VariableCreated.Value):
// a type whose JSON is a string (a string type, or a []byte type such as
// a PNG image, base64 in JSON) gives that text or those bytes; any other
// gives its JSON.
//
// Types that implement run.Media (browser.Screenshot) are output by
// default, with their own media type: an OutputType for one overrides its
// content type, or, with an empty ContentType, keeps its values out of the
// output.
type OutputType struct {
	// Type is the Go type, e.g. reflect.TypeFor[report.CSV]().
	Type reflect.Type
	// ContentType is the part's media type, e.g. "text/csv"; empty to
	// keep a run.Media type out of the output.
	ContentType string
}

// Variables of type run.Artifact, *run.Artifact and []run.Artifact are
// always output: one message, of one part per artifact, each with the
// artifact's own name and content type.
var (
	artifactType      = reflect.TypeFor[run.Artifact]().String()
	artifactPtrType   = reflect.TypeFor[*run.Artifact]().String()
	artifactSliceType = reflect.TypeFor[[]run.Artifact]().String()
)

// AgentMetadata is the metadata of an agent's ACP manifest. Every field is
// optional; empty ones are left out.
type AgentMetadata struct {
	Documentation       string       `json:"documentation,omitempty"`
	License             string       `json:"license,omitempty"`
	ProgrammingLanguage string       `json:"programming_language,omitempty"`
	Framework           string       `json:"framework,omitempty"`
	NaturalLanguages    []string     `json:"natural_languages,omitempty"`
	Domains             []string     `json:"domains,omitempty"`
	Tags                []string     `json:"tags,omitempty"`
	RecommendedModels   []string     `json:"recommended_models,omitempty"`
	Capabilities        []Capability `json:"capabilities,omitempty"`
	Author              *Person      `json:"author,omitempty"`
	Contributors        []Person     `json:"contributors,omitempty"`
	Links               []Link       `json:"links,omitempty"`
	CreatedAt           time.Time    `json:"-"`
	UpdatedAt           time.Time    `json:"-"`
}

// Capability is one thing an agent can do, for AgentMetadata.
type Capability struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Person is an author or contributor, for AgentMetadata. URL must be a
// valid URL when set.
type Person struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Link is a link of AgentMetadata. Type is one of source-code,
// container-image, homepage and documentation.
type Link struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// manifestMetadata is the metadata object of a manifest: the agent's, with
// byref's framework and language unless it sets them.
func manifestMetadata(m AgentMetadata) map[string]any {
	if m.Framework == "" {
		m.Framework = "byref"
	}
	if m.ProgrammingLanguage == "" {
		m.ProgrammingLanguage = "Go"
	}
	b, _ := json.Marshal(m)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	if !m.CreatedAt.IsZero() {
		out["created_at"] = acpTime(m.CreatedAt)
	}
	if !m.UpdatedAt.IsZero() {
		out["updated_at"] = acpTime(m.UpdatedAt)
	}
	return out
}

// acceptsType reports whether a media type matches one of the patterns
// (type/subtype, type/* or */*).
func acceptsType(patterns []string, ct string) bool {
	ct = strings.ToLower(ct)
	major, _, _ := strings.Cut(ct, "/")
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "*/*" || p == ct || p == major+"/*" {
			return true
		}
	}
	return false
}

// outputParts returns the output parts of a variable created or changed
// by a step, and whether it is output at all. media is the media type the
// log recorded for a run.Media value, or "".
func (p *projector) outputParts(v run.VariableInfo, value json.RawMessage, media string) ([]part, bool) {
	if len(value) == 0 {
		return nil, false
	}
	switch v.Type {
	case artifactType, artifactPtrType:
		var a run.Artifact
		if json.Unmarshal(value, &a) != nil || string(value) == "null" {
			return nil, false
		}
		return []part{artifactPart(a)}, true
	case artifactSliceType:
		var as []run.Artifact
		if json.Unmarshal(value, &as) != nil || len(as) == 0 {
			return nil, false
		}
		parts := make([]part, len(as))
		for i, a := range as {
			parts[i] = artifactPart(a)
		}
		return parts, true
	}
	ct, ok := p.outputs[v.Type]
	if !ok {
		ct, ok = media, media != ""
	}
	if !ok || ct == "" {
		return nil, false
	}
	a := run.Artifact{Name: v.Name, ContentType: ct}
	var s string
	if json.Unmarshal(value, &s) == nil {
		a.Content = []byte(s)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil && !textual(ct) {
			a.Content = b // a []byte type
		}
	} else {
		a.Content = value
	}
	return []part{artifactPart(a)}, true
}

// textual reports whether content of the media type is text.
func textual(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.HasPrefix(ct, "text/") || ct == "application/json" || strings.HasSuffix(ct, "+json") ||
		ct == "application/javascript" || ct == "application/xml" || strings.HasSuffix(ct, "+xml")
}

// artifactPart is the ACP part of an artifact: plain text for a textual
// type, else base64.
func artifactPart(a run.Artifact) part {
	ct := a.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	pt := part{ContentType: ptr(ct)}
	if a.Name != "" {
		pt.Name = ptr(a.Name)
	}
	if textual(ct) {
		pt.Content, pt.ContentEncoding = ptr(string(a.Content)), ptr("plain")
	} else {
		pt.Content, pt.ContentEncoding = ptr(base64.StdEncoding.EncodeToString(a.Content)), ptr("base64")
	}
	return pt
}

// failureCode maps a run's kind of failure onto an ACP error code.
func failureCode(k run.FailureKind) string {
	if k == run.FailureInvalidInput {
		return CodeInvalidInput
	}
	return CodeServerError
}

// mediaResults are the media types of the results of the agent's actions
// that return run.Media, in the actions' order, but those Outputs turns
// off or overrides.
func mediaResults(a *Agent) []string {
	if a.Agent == nil {
		return nil
	}
	var out []string
	for _, act := range a.Agent.Actions().All() {
		t := act.Result()
		if t == nil || t.Kind() == reflect.Interface || !t.Implements(mediaType) || slices.ContainsFunc(a.Outputs, func(o OutputType) bool { return o.Type == t }) {
			continue
		}
		zero := reflect.Zero(t)
		if t.Kind() == reflect.Pointer {
			zero = reflect.New(t.Elem())
		}
		ct := zero.Interface().(run.Media).MediaType()
		if ct != "" && !slices.Contains(out, ct) {
			out = append(out, ct)
		}
	}
	return out
}

var mediaType = reflect.TypeFor[run.Media]()
