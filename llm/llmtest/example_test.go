package llmtest_test

import (
	"fmt"

	"github.com/byref/byref/llm/llmtest"
)

// Cases lists a flavor's named cases, the subtests Run runs.
func ExampleCases() {
	cases := llmtest.Cases(llmtest.Mistral)
	for _, c := range cases[:8] {
		fmt.Println(c.Name)
	}
	// Output:
	// text
	// text_stream
	// tool_call
	// parallel_tool_calls
	// tool_calls_stream_split_arguments
	// empty_ids
	// calls_without_type
	// split_call_stream
}
