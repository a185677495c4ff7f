package action

// TerminateName is the name of the built-in action that ends a run.
const TerminateName = "terminate"

// Termination is what the model passed to the terminate action.
type Termination struct {
	// Success says whether the model completed its task.
	Success bool
	// Result is the run's result: a raw JSON value decoded into any, or the
	// value of a variable the model referenced.
	Result any
}

// terminate is the built-in terminate action; every runtime has it.
var terminate = MustNew(Spec{
	Name:        TerminateName,
	Description: "End the task. Call it once you have done what was asked, or once you are sure it cannot be done.",
	Func:        func(success bool, result any) Termination { return Termination{Success: success, Result: result} },
	Params: []Param{
		{Name: "success", Description: "true if the task was done, false if it could not be.", RawOnly: true},
		{Name: "result", Description: "The result of the task, or null when there is none. You may pass a variable by reference.", Optional: true},
	},
})

// Terminate returns the built-in terminate action. Its success parameter
// takes a raw boolean only; its result may be a raw value or a reference.
func Terminate() *Action { return terminate }
