package agent

import (
	"context"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// Session returns the session id as the fold of its runs' logs in the
// agent's store (run.LoadSession): its runs, messages and the variables
// they left. A run started with RunOptions.Session set to id begins with
// those variables (see "Sessions" in the package documentation).
func (rt *Agent) Session(ctx context.Context, id run.SessionID) (run.Session, error) {
	return run.LoadSession(ctx, rt.store, id, "")
}

// HistoryOf returns a session's messages as the history of its next run
// (RunOptions.History): the users' messages and the runs' results, in
// order.
func HistoryOf(s run.Session) []llm.Message {
	out := make([]llm.Message, 0, len(s.Messages))
	for _, m := range s.Messages {
		if m.Role == "user" {
			out = append(out, llm.UserMessage(m.Text))
		} else {
			out = append(out, llm.Message{Role: llm.RoleAssistant, Text: m.Text})
		}
	}
	return out
}

// ForgetSession lets go of the values this agent holds for session id
// (the live values its ended runs left): a later run of the session gets
// back what the log and Options.Rebind can give. Runs still going keep
// theirs.
func (rt *Agent) ForgetSession(id run.SessionID) {
	rt.sessions.forget(id)
}
