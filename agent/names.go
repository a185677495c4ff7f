package agent

import (
	"fmt"
	"strings"

	"github.com/byref/byref/variable"
)

// checkVariableNames refuses two starting variables with one name, naming
// both (the second would silently replace the first).
func checkVariableNames(specs []variable.Spec) error {
	first := make(map[string]int, len(specs))
	for i, s := range specs {
		if j, dup := first[s.Name]; dup {
			return fmt.Errorf("%w: Options.Variables[%d] (%s) and Options.Variables[%d] (%s) are both named %q; rename one",
				variable.ErrInvalidName, j, describeSpec(specs[j]), i, describeSpec(s), s.Name)
		}
		first[s.Name] = i
	}
	return nil
}

func describeSpec(s variable.Spec) string {
	if s.Type != nil {
		return variable.TypeName(s.Type)
	}
	return fmt.Sprintf("%T", s.Value)
}

// hostPackage reports whether name is the package name of a host package
// registered for snippets (Options.Snippets.Symbols), and its path.
func hostPackage(opts *Options, name string) (string, bool) {
	for _, ex := range opts.Snippets.Symbols {
		for k := range ex {
			if i := strings.LastIndex(k, "/"); i > 0 && k[i+1:] == name {
				return k[:i], true
			}
		}
	}
	return "", false
}

// verbs are stripped from action names to name their results:
// get_weather → weather.
var verbs = []string{"get_", "fetch_", "load_", "read_", "find_", "search_", "create_", "make_", "new_", "build_", "compute_", "open_", "start_", "generate_", "parse_"}

// resultName is the base name of the variable receiving a result of the
// named action.
func resultName(actionName string) string {
	for _, v := range verbs {
		if base, ok := strings.CutPrefix(actionName, v); ok && variable.ValidName(base) == nil {
			return base
		}
	}
	return actionName + "_result"
}
