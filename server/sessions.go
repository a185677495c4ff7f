package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// A session's history is derived from the store: the messages (input, then
// output) of the session's completed runs, oldest first. Message n of run R
// is the resource "R.n", served at /resources/R.n.

// sessionMessages returns the resource IDs and messages of a session's
// history, and whether the session has any run at all.
func (s *Server) sessionMessages(ctx context.Context, session run.SessionID) (ids []string, msgs []message, exists bool, err error) {
	var runs []run.Summary
	q := run.Query{Session: session, Limit: run.MaxListLimit}
	for {
		page, next, err := s.store.List(ctx, q)
		if err != nil {
			return nil, nil, false, err
		}
		runs = append(runs, page...)
		if next == "" {
			break
		}
		q.Cursor = next
	}
	slices.Reverse(runs) // oldest first
	for _, sum := range runs {
		if sum.Status != run.StatusCompleted {
			continue
		}
		p, _, err := s.fold(ctx, sum.ID, nil)
		if err != nil {
			return nil, nil, false, err
		}
		for i, m := range p.conversation() {
			ids = append(ids, string(sum.ID)+"."+strconv.Itoa(i))
			msgs = append(msgs, m)
		}
	}
	return ids, msgs, len(runs) > 0, nil
}

// history returns the conversation a new run of the session continues:
// the messages the descriptor lists when the client forwarded one, else
// the session's history in this server's store.
func (s *Server) history(ctx context.Context, session run.SessionID, desc *sessionDescriptor) ([]llm.Message, error) {
	var msgs []message
	if desc != nil {
		for _, u := range desc.History {
			m, err := s.resolve(ctx, u)
			if err != nil {
				return nil, fmt.Errorf("session history %s: %w", u, err)
			}
			msgs = append(msgs, m)
		}
	} else {
		var err error
		if _, msgs, _, err = s.sessionMessages(ctx, session); err != nil {
			return nil, err
		}
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		text, jsonText, err := resumeContent(&m)
		if err != nil {
			return nil, err
		}
		if jsonText != "" {
			text = strings.TrimSpace(text + "\n" + jsonText)
		}
		if m.Role == "user" {
			out = append(out, llm.UserMessage(text))
		} else {
			out = append(out, llm.Message{Role: llm.RoleAssistant, Text: text})
		}
	}
	return out, nil
}

// resolve returns the message a history URL names: from this server's
// store when it is one of its resources, else fetched with
// Options.HistoryClient.
func (s *Server) resolve(ctx context.Context, raw string) (message, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return message{}, err
	}
	if rid, ok := strings.CutPrefix(u.Path, "/resources/"); ok {
		if m, ok, err := s.resource(ctx, rid); err != nil || ok {
			return m, err
		}
	}
	if s.opts.HistoryClient == nil {
		return message{}, fmt.Errorf("not a resource of this server, and fetching remote history is off; set server.Options.HistoryClient to allow it")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return message{}, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return message{}, fmt.Errorf("only http and https history URLs can be fetched")
	}
	resp, err := s.opts.HistoryClient.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return message{}, fmt.Errorf("fetching it returned %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBody))
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("not a message: %v", err)
	}
	return m, nil
}

// resource returns the message a resource ID names, and whether there is
// one.
func (s *Server) resource(ctx context.Context, rid string) (message, bool, error) {
	runID, n, ok := strings.Cut(rid, ".")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 0 || !uuidRE.MatchString(runID) {
		return message{}, false, nil
	}
	sum, err := s.store.Get(ctx, run.ID(runID))
	if err != nil || sum.Status != run.StatusCompleted {
		return message{}, false, nil
	}
	p, _, err := s.fold(ctx, sum.ID, nil)
	if err != nil {
		return message{}, false, err
	}
	conv := p.conversation()
	if i >= len(conv) {
		return message{}, false, nil
	}
	return conv[i], true, nil
}

func (s *Server) baseURL(r *http.Request) string {
	if s.opts.BaseURL != "" {
		return strings.TrimRight(s.opts.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ids, _, exists, err := s.sessionMessages(r.Context(), run.SessionID(id))
	if err != nil {
		s.log.Error("server: reading a session", "session", id, "err", err)
		writeError(w, http.StatusInternalServerError, CodeServerError, err.Error())
		return
	}
	if !exists {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Session %s not found", id))
		return
	}
	d := sessionDescriptor{ID: id, History: []string{}}
	base := s.baseURL(r)
	for _, rid := range ids {
		d.History = append(d.History, base+"/resources/"+rid)
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) getResource(w http.ResponseWriter, r *http.Request) {
	rid := r.PathValue("id")
	m, ok, err := s.resource(r.Context(), rid)
	if err != nil {
		s.log.Error("server: reading a resource", "resource", rid, "err", err)
		writeError(w, http.StatusInternalServerError, CodeServerError, err.Error())
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Resource %s not found", rid))
		return
	}
	writeJSON(w, http.StatusOK, m)
}
