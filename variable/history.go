package variable

// ChangeKind says how a step changed a variable.
type ChangeKind string

// The kinds of change recorded in a variable's history.
const (
	// Created: the variable did not exist before this change.
	Created ChangeKind = "created"
	// Assigned: an existing variable was given a new value.
	Assigned ChangeKind = "assigned"
	// Modified: the value was changed in place, e.g. through a pointer
	// passed by reference.
	Modified ChangeKind = "modified"
	// Deleted: the variable was removed.
	Deleted ChangeKind = "deleted"
)

// HostStep is the step number of changes made by the host (starting
// variables, Set and Delete between steps) rather than by the model.
const HostStep = 0

// Change is one entry of a variable's history.
type Change struct {
	// Step is the number of the step that made the change, or HostStep.
	Step int
	// Kind says what happened.
	Kind ChangeKind
	// By names what made the change: an action name, "snippet" or "host".
	By string
	// Type is the variable's type name after the change.
	Type string
	// Preview is the value's preview right after the change (redacted for
	// secrets). Values are not kept: they may be large or live objects.
	Preview string
}

// History is the list of changes of one variable, oldest first.
type History []Change

// Last returns the most recent change, or the zero Change when the history is
// empty.
func (h History) Last() Change {
	if len(h) == 0 {
		return Change{}
	}
	return h[len(h)-1]
}
