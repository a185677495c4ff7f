package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/byref/byref/run"
)

// SessionState is a session's state as every protocol shows it: the
// variables its runs left (run.Session), by name, with their types and
// previews, a secret's preview redacted, never a value. It is ACP's session
// state (GET /sessions/{id}/state, the URL GET /sessions/{id} gives as
// "state"), AG-UI's thread state and what the inspector shows of a session.
type SessionState struct {
	Variables map[string]StateVariable `json:"variables"`
}

// StateVariable is a variable as SessionState shows it.
type StateVariable struct {
	Type    string `json:"type"`
	Preview string `json:"preview"`
	Secret  bool   `json:"secret,omitempty"`
}

// SecretPreview stands for a secret variable's preview in a SessionState.
const SecretPreview = "(secret)"

// StateOf returns a session's state.
func StateOf(s run.Session) SessionState {
	st := SessionState{Variables: make(map[string]StateVariable, len(s.Variables))}
	for _, v := range s.Variables {
		st.Variables[v.Name] = VariableState(v.VariableInfo, v.Secret || v.Tainted)
	}
	return st
}

// VariableState returns a variable as a SessionState shows it.
func VariableState(v run.VariableInfo, secret bool) StateVariable {
	sv := StateVariable{Type: v.Type, Preview: v.Preview, Secret: secret}
	if secret {
		sv.Preview = SecretPreview
	}
	return sv
}

// Session returns the session id as the fold of its runs in the server's
// store, and whether it has any run.
func (s *Server) Session(ctx context.Context, id run.SessionID) (run.Session, bool, error) {
	sess, err := run.LoadSession(ctx, s.store, id, "")
	return sess, len(sess.Runs) > 0, err
}

// getSessionState serves GET /sessions/{id}/state: the session's state.
func (s *Server) getSessionState(w http.ResponseWriter, r *http.Request) {
	if sess, ok := s.requestedSession(w, r); ok {
		writeJSON(w, http.StatusOK, StateOf(sess))
	}
}

// requestedSession returns the session the request's path names, or
// answers that it cannot (404 for a session without runs, 500 when the
// store fails) and returns false.
func (s *Server) requestedSession(w http.ResponseWriter, r *http.Request) (run.Session, bool) {
	id := r.PathValue("id")
	sess, ok, err := s.Session(r.Context(), run.SessionID(id))
	if err != nil {
		if r.Context().Err() == nil {
			s.internal(w, "reading a session", err, "session", id)
		}
		return sess, false
	}
	if !ok {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Session %s not found", id))
	}
	return sess, ok
}

// uiSession is the answer of GET /ui/api/sessions/{id}: the session's
// runs, messages and state.
type uiSession struct {
	ID       run.SessionID        `json:"id"`
	Runs     []run.ID             `json:"runs"`
	Messages []run.SessionMessage `json:"messages"`
	State    SessionState         `json:"state"`
}

func (s *Server) uiGetSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requestedSession(w, r)
	if !ok {
		return
	}
	msgs := sess.Messages
	if msgs == nil {
		msgs = []run.SessionMessage{}
	}
	writeJSON(w, http.StatusOK, uiSession{ID: sess.ID, Runs: sess.Runs, Messages: msgs, State: StateOf(sess)})
}
