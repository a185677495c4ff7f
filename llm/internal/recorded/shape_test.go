package recorded

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestKeyPathsAndMissingRequired(t *testing.T) {
	var body any
	_ = json.Unmarshal([]byte(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]},{"parts":[{"functionCall":{"name":"f","args":{"deep":1}}}]}],"tools":[]}`), &body)
	var paths []string
	for p := range KeyPaths(body, map[string]bool{"args": true}) {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	want := []string{"contents", "contents[].parts", "contents[].parts[].functionCall", "contents[].parts[].functionCall.args",
		"contents[].parts[].functionCall.name", "contents[].parts[].text", "contents[].role", "tools"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("KeyPaths = %v, want %v", paths, want)
	}
	got := MissingRequired(body, []string{"contents", "contents[].role", "contents[].parts[].functionCall.name", "tools[].name", "system.parts"})
	if !reflect.DeepEqual(got, []string{"contents[].role"}) {
		t.Errorf("MissingRequired = %v; want only the second content's role", got)
	}
}
