package server

import (
	"encoding/base64"
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// attachment reports whether an input part reaches the run as a variable
// rather than as text of the task: a part of a type that is not text
// (text/*, application/json), or a named part (an ACP artifact) of any
// type.
func attachment(p part) bool {
	if p.Name != nil && *p.Name != "" {
		return true
	}
	ct := partType(p)
	return !strings.HasPrefix(ct, "text/") && ct != "application/json"
}

// partType is a part's media type without parameters, text/plain when it
// has none.
func partType(p part) string {
	if p.ContentType == nil || *p.ContentType == "" {
		return "text/plain"
	}
	return strings.ToLower(strings.TrimSpace(strings.SplitN(*p.ContentType, ";", 2)[0]))
}

// partContent returns a part's inline content, base64-decoded when it says
// so; a part by URL is refused.
func partContent(p part) ([]byte, error) {
	if p.ContentURL != nil && *p.ContentURL != "" {
		return nil, fmt.Errorf("a part with content_url (%s) is not supported; send the content inline", *p.ContentURL)
	}
	s := ""
	if p.Content != nil {
		s = *p.Content
	}
	if p.ContentEncoding != nil && *p.ContentEncoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("a base64 part does not decode: %v", err)
		}
		return b, nil
	}
	return []byte(s), nil
}

// partArtifact decodes an attachment into the artifact it holds.
func partArtifact(p part) (run.Artifact, error) {
	a := run.Artifact{ContentType: partType(p)}
	if p.Name != nil {
		a.Name = *p.Name
	}
	b, err := partContent(p)
	if err != nil {
		return a, err
	}
	a.Content = b
	return a, nil
}

// inputVariables are the run's starting variables made of the input's
// attachments, one run.Artifact each, named after the part (photo.png
// gives photo) or input, input_2… for unnamed ones, never after one of
// the agent's variables or actions, and a sentence for the task that
// names them.
func inputVariables(agent *Agent, msgs []message) ([]variable.Spec, string, error) {
	var specs []variable.Spec
	var taken map[string]bool
	for i, m := range msgs {
		for j, p := range m.Parts {
			if !attachment(p) {
				continue
			}
			a, err := partArtifact(p)
			if err != nil {
				return nil, "", fmt.Errorf("input[%d].parts[%d]: %w", i, j, err)
			}
			if taken == nil {
				taken = reserved(agent)
			}
			name := variableName(a.Name)
			for n := 2; taken[name]; n++ {
				name = fmt.Sprintf("%s_%d", variableName(a.Name), n)
			}
			taken[name] = true
			specs = append(specs, variable.Spec{Name: name, Value: a, Description: "an input part (" + a.ContentType + ")"})
		}
	}
	if len(specs) == 0 {
		return nil, "", nil
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return specs, "The input's attachments are in the variables " + strings.Join(names, ", ") + " (run.Artifact: name, content type, bytes).", nil
}

// variableName makes a Go identifier of a part's file name: its base name
// without extension, other characters as '_'; "input" when nothing is
// left or the result cannot be a variable.
func variableName(file string) string {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	base = strings.TrimSuffix(base, path.Ext(base))
	var b strings.Builder
	for _, r := range base {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" || name == "." {
		return "input"
	}
	if unicode.IsDigit(rune(name[0])) {
		name = "input_" + name
	}
	if variable.ValidName(name) != nil {
		return "input_" + name
	}
	return name
}

// reserved are the names an input variable must not take: the agent's
// starting variables and actions, the built-ins, and snippets' ctx.
func reserved(agent *Agent) map[string]bool {
	taken := map[string]bool{"terminate": true, "ask_user": true, "run_go": true, "ctx": true}
	for _, s := range agent.Run.Variables {
		taken[s.Name] = true
	}
	if rt := agent.Agent; rt != nil {
		for _, n := range rt.Actions().Names() {
			taken[n] = true
		}
		if st, err := rt.NewState(); err == nil {
			for _, v := range st.Variables() {
				taken[v.Name] = true
			}
		}
	}
	return taken
}
