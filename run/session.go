package run

import (
	"context"
	"encoding/json"
	"slices"
)

// Session is a session (an ACP session, an AG-UI thread, an A2A context, a
// chat) as the fold of its runs' logs: the runs in the order they were
// created, the messages they exchanged, and the variables they left. It
// is derived, never stored: [FoldSession] and [LoadSession] build it, and
// [Session.Apply] keeps it up to date one event at a time.
//
// A run started in the session begins with Variables (package agent
// does this): the JSON values come back from here, live ones from the
// process that held the session, or from the host.
type Session struct {
	ID SessionID `json:"id"`
	// Runs are the session's runs, oldest first. Child runs (an agent
	// called as an action) are the business of their parents and are not
	// folded.
	Runs []ID `json:"runs"`
	// Messages are the user's messages and the runs' results, in order.
	Messages []SessionMessage `json:"messages,omitempty"`
	// Variables are the variables the runs left, each with its latest
	// state and the run that set it, in the order they were first created.
	// A run-only variable ([VariableCreated].RunOnly) is left out, and a
	// later run-only variable of the same name takes an earlier one out.
	Variables []SessionVariable `json:"variables,omitempty"`

	// runs holds the state of each folded run; index the index of each
	// variable in Variables, by name.
	runs  map[ID]sessionRun
	index map[string]int
}

// sessionRun is what the fold remembers of one run.
type sessionRun struct {
	child bool // a child run, whose events are not folded
}

// SessionMessage is a message of a session: a user's message or a run's
// result.
type SessionMessage struct {
	Run ID `json:"run"`
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Text is the user's text, or the result: a string result's text, or
	// the JSON of any other.
	Text string `json:"text"`
}

// SessionVariable is a variable as a session sees it: its latest state
// in the run that last set it.
type SessionVariable struct {
	VariableState
	// Run is the run that last created or changed it.
	Run ID `json:"run"`
}

// FoldSession folds the logs of a session's runs, oldest run first, each
// a whole log from its first event.
func FoldSession(id SessionID, logs ...[]Event) Session {
	s := Session{ID: id}
	for _, l := range logs {
		for _, e := range l {
			s.Apply(e)
		}
	}
	return s
}

// Apply folds the next event of one of the session's runs. The events of
// each run must come in order, from its RunCreated; the runs' events may
// come run after run or interleaved.
func (s *Session) Apply(e Event) {
	if s.runs == nil {
		s.runs = map[ID]sessionRun{}
	}
	if c, ok := e.Payload.(RunCreated); ok {
		s.runs[e.RunID] = sessionRun{child: c.ParentRun != ""}
		if c.ParentRun == "" {
			s.Runs = append(s.Runs, e.RunID)
		}
		return
	}
	if r, ok := s.runs[e.RunID]; !ok || r.child {
		return
	}
	switch p := e.Payload.(type) {
	case UserMessage:
		s.Messages = append(s.Messages, SessionMessage{Run: e.RunID, Role: "user", Text: p.Text})
	case Result:
		if text := resultText(p.Value); text != "" {
			s.Messages = append(s.Messages, SessionMessage{Run: e.RunID, Role: "assistant", Text: text})
		}
	case VariableCreated:
		s.setVariable(e.RunID, p)
	case VariableModified:
		s.setVariable(e.RunID, VariableCreated(p))
	}
}

// resultText is a result as a message's text: a string's text, the JSON
// of another value, "" for none or null.
func resultText(v json.RawMessage) string {
	var text string
	if json.Unmarshal(v, &text) == nil {
		return text
	}
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	return string(v)
}

func (s *Session) setVariable(r ID, p VariableCreated) {
	if s.index == nil {
		s.index = map[string]int{}
	}
	i, ok := s.index[p.Variable.Name]
	if p.RunOnly {
		if ok {
			s.Variables = slices.Delete(s.Variables, i, i+1)
			delete(s.index, p.Variable.Name)
			for j := i; j < len(s.Variables); j++ {
				s.index[s.Variables[j].Name] = j
			}
		}
		return
	}
	if !ok {
		i = len(s.Variables)
		s.index[p.Variable.Name] = i
		s.Variables = append(s.Variables, SessionVariable{VariableState: VariableState{CreatedStep: p.Step}})
	}
	v := &s.Variables[i]
	v.VariableInfo, v.Step, v.Secret, v.Tainted, v.Value, v.Run = p.Variable, p.Step, p.Secret, p.Tainted, p.Value, r
}

// Variable returns the named variable, and whether the session has one.
func (s *Session) Variable(name string) (SessionVariable, bool) {
	if i, ok := s.index[name]; ok {
		return s.Variables[i], true
	}
	return SessionVariable{}, false
}

// LoadSession folds a session from a store: every run with the session's
// ID, oldest first, whatever its status, except the one named skip (the
// run being started; "" for none). A session without runs folds to one
// with no runs, and no error.
func LoadSession(ctx context.Context, st Store, id SessionID, skip ID) (Session, error) {
	var runs []Summary // newest first
	q := Query{Session: id, Limit: MaxListLimit}
	for {
		page, next, err := st.List(ctx, q)
		if err != nil {
			return Session{}, err
		}
		runs = append(runs, page...)
		if next == "" {
			break
		}
		q.Cursor = next
	}
	s := Session{ID: id}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].ID == skip || runs[i].ParentRun != "" {
			continue
		}
		events, err := st.Read(ctx, runs[i].ID, 1, 0)
		if err != nil {
			return Session{}, err
		}
		for _, e := range events {
			s.Apply(e)
		}
	}
	return s, nil
}
