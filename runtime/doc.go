// Package runtime is where variables, actions and the model meet.
//
// A [Runtime] holds a run's variables and actions, keeps the compatibility
// matrix between them (which variables can be passed by reference to which
// parameter), knows which actions are available, writes the schemas the
// model sees and executes the model's instructions one step at a time,
// recording each in a history from which replay code can be generated.
//
// # Executing a step
//
// [Runtime.Execute] takes a [Step]: tool calls exactly as a model sends them
// (a name, a JSON argument string and a call ID). Each call is validated,
// its <<var:name>> references resolved (they must exist and be compatible),
// its raw values decoded into the parameters' Go types, and the function
// called with the step's context and a deadline. Panics are recovered. The
// result is assigned to the variable the model named in "return", or to a
// new variable with a readable name (get_weather → weather). A failing call
// never fails the step: the model gets a [ToolResponse] whose error says how
// to fix the call, and no variable changes. Variables passed by reference
// that the call changed in place (through a pointer, a slice or a map) are
// reported as modified.
//
// # Concurrency
//
// A Runtime is safe for concurrent use. Steps execute one at a time:
// concurrent Execute calls are serialised. Variables may be read and set
// while a step runs; a call's result is committed after the call returns.
// Many runtimes may share one action.Set.
package runtime
