package runtime

import "github.com/byref/byref/schema"

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
