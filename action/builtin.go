package action

import "errors"

// TerminateName is the name of the built-in action that ends a run.
const TerminateName = "terminate"

// Termination is what the model passed to the terminate action.
type Termination struct {
	// Success says whether the model completed its task.
	Success bool
	// Result is the run's result: a raw JSON value decoded into any, or the
	// value of a variable the model referenced.
	Result any
	// Tainted reports that Result is a secret or derived from one (the
	// model referenced such a variable): the runtime keeps it from the
	// model and the log.
	Tainted bool
	// From names the variable the model referenced as the result, or "".
	From string
}

// terminate is the built-in terminate action; every runtime has it.
var terminate = MustNew(Spec{
	Name:        TerminateName,
	Description: "Finish.",
	Func:        func(success bool, result any) Termination { return Termination{Success: success, Result: result} },
	Params: []Param{
		{Name: "success", RawOnly: true},
		{Name: "result", Optional: true},
	},
})

// Terminate returns the built-in terminate action. Its success parameter
// takes a raw boolean only; its result may be a raw value or a reference.
func Terminate() *Action { return terminate }

// AskUserName is the name of the built-in action through which the model
// asks the user a clarifying question.
const AskUserName = "ask_user"

// askUser is the built-in ask_user action. The runtime intercepts its calls:
// the run awaits the user's answer, which becomes the call's result.
var askUser = MustNew(Spec{
	Name:        AskUserName,
	Description: "Ask the user a question you cannot go on without, and wait for the answer.",
	Func: func(question string) (string, error) {
		return "", errors.New("ask_user needs a run that can wait for its user; there is none here")
	},
	Params: []Param{{Name: "question", RawOnly: true}},
})

// AskUser returns the built-in ask_user action.
func AskUser() *Action { return askUser }
