package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// A session's history is derived from the store: the messages (input, then
// output) of the session's latest MaxHistoryRuns completed runs, oldest
// first, at most MaxHistoryURLs of them (the latest). Message n of run R is
// the resource "R.n", served at /resources/R.n.

// Limits of session history.
const (
	// MaxHistoryRuns is how many of a session's completed runs its history
	// holds: the latest ones. A new run of the session gets their messages
	// as its history, and GET /sessions/{id} lists them.
	MaxHistoryRuns = 50
	// MaxHistoryURLs is how many history URLs a forwarded session
	// descriptor may list (more is refused, 422), and the most messages a
	// session's history holds (the latest ones).
	MaxHistoryURLs = 500
	// MaxHistoryResponse bounds each history message fetched from another
	// server, in bytes; a larger response is refused (422), not truncated.
	MaxHistoryResponse = 1 << 20
	// MaxHistoryFetched bounds the bytes of all the history messages one
	// request has fetched from other servers; more is refused (422).
	MaxHistoryFetched = 4 << 20
)

// Default byte budgets of session history (Options.MaxHistoryBytes and
// Options.MaxHistoryInFlight).
const (
	DefaultMaxHistoryBytes    = 2 << 20
	DefaultMaxHistoryInFlight = 32 << 20
)

// historyTooLarge is a request whose history is over a byte budget: 413,
// with Retry-After when the server's budget (not the request's) is the
// one spent.
type historyTooLarge struct {
	error
	retry bool
}

// budget is the server's budget of history bytes being expanded at once
// (Options.MaxHistoryInFlight). It is safe for concurrent use.
type budget struct {
	mu          sync.Mutex
	used, limit int64
}

// take reserves n bytes, unless that would go over the limit.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// size is the bytes a message's parts hold, as sent (base64 counts as
// its encoding's length, a bound of what it decodes to).
func (m *message) size() int64 {
	var n int64
	for _, p := range m.Parts {
		if p.Content != nil {
			n += int64(len(*p.Content))
		}
	}
	return n
}

// HistoryCacheRuns is how many runs' conversations the server keeps in
// memory for session history and resources, the most recently used ones.
// A cached conversation is used as long as its run's log has not grown.
const HistoryCacheRuns = 256

// localRuns counts the distinct runs whose resources the history URLs
// name.
func localRuns(history []string) int {
	seen := map[string]bool{}
	for _, raw := range history {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if rid, ok := strings.CutPrefix(u.Path, "/resources/"); ok {
			runID, _, _ := strings.Cut(rid, ".")
			seen[runID] = true
		}
	}
	return len(seen)
}

// conversation returns a completed run's messages for session history (the
// user's, then the agent's output), from the cache when its log has not
// grown since it was folded.
func (s *Server) conversation(ctx context.Context, sum run.Summary) ([]message, error) {
	if c, ok := s.convs.Get(sum.ID); ok && c.last == sum.LastSeq {
		return c.conv, nil
	}
	p, _, err := s.fold(ctx, sum.ID, nil)
	if err != nil {
		return nil, err
	}
	conv := p.conversation()
	s.convs.Put(sum.ID, convEntry{sum.LastSeq, conv})
	return conv, nil
}

// convEntry is a run's conversation in the cache, folded from its log up
// to last.
type convEntry struct {
	last int64
	conv []message
}

// badInput is an error the client's request caused (422), as opposed to a
// failure of the store (500).
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

// sessionMessages returns the resource IDs and messages of a session's
// history, and whether the session has any run at all.
func (s *Server) sessionMessages(ctx context.Context, session run.SessionID) (ids []string, msgs []message, exists bool, err error) {
	var runs []run.Summary // completed, newest first
	q := run.Query{Session: session, Limit: run.MaxListLimit}
	for len(runs) < MaxHistoryRuns {
		page, next, err := s.store.List(ctx, q)
		if err != nil {
			return nil, nil, false, err
		}
		exists = exists || len(page) > 0
		for _, sum := range page {
			if sum.Status == run.StatusCompleted && len(runs) < MaxHistoryRuns {
				runs = append(runs, sum)
			}
		}
		if next == "" {
			break
		}
		q.Cursor = next
	}
	slices.Reverse(runs) // oldest first
	for _, sum := range runs {
		conv, err := s.conversation(ctx, sum)
		if err != nil {
			return nil, nil, false, err
		}
		for i, m := range conv {
			ids = append(ids, string(sum.ID)+"."+strconv.Itoa(i))
			msgs = append(msgs, m)
		}
	}
	if n := len(ids) - MaxHistoryURLs; n > 0 {
		ids, msgs = ids[n:], msgs[n:]
	}
	return ids, msgs, exists, nil
}

// history returns the conversation a new run of the session continues:
// the messages the descriptor lists when the client forwarded one, else
// the session's history in this server's store.
//
// What it expands is bounded in bytes: a descriptor's messages by
// Options.MaxHistoryBytes (more is refused, historyTooLarge), the
// session's own history by keeping its latest messages within it; and all
// requests at once by Options.MaxHistoryInFlight (a request that would go
// over it is refused, to be retried).
func (s *Server) history(ctx context.Context, session run.SessionID, desc *sessionDescriptor) ([]llm.Message, error) {
	var msgs []message
	var spent int64
	defer func() { s.inFlight.give(spent) }()
	spend := func(n int64) error {
		if spent+n > s.opts.MaxHistoryBytes {
			return historyTooLarge{error: fmt.Errorf("the session history is larger than %d bytes, the most a request may expand (server.Options.MaxHistoryBytes); forward fewer or smaller history messages", s.opts.MaxHistoryBytes)}
		}
		if !s.inFlight.take(n) {
			return historyTooLarge{error: fmt.Errorf("the server is expanding %d bytes of session history for other requests, the most it expands at once (server.Options.MaxHistoryInFlight); retry later", s.opts.MaxHistoryInFlight), retry: true}
		}
		spent += n
		return nil
	}
	if desc != nil {
		if len(desc.History) > MaxHistoryURLs {
			return nil, badInput{fmt.Errorf("the session descriptor lists %d history URLs; at most %d are accepted", len(desc.History), MaxHistoryURLs)}
		}
		if n := localRuns(desc.History); n > MaxHistoryRuns {
			return nil, badInput{fmt.Errorf("the session descriptor's history names messages of %d runs; at most %d (server.MaxHistoryRuns) are accepted", n, MaxHistoryRuns)}
		}
		fetched := 0
		for _, u := range desc.History {
			m, err := s.resolve(ctx, u, &fetched)
			if err != nil {
				var bad badInput
				if errors.As(err, &bad) {
					return nil, badInput{fmt.Errorf("session history %s: %w", u, err)}
				}
				return nil, err
			}
			if err := spend(m.size()); err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
	} else {
		_, all, _, err := s.sessionMessages(ctx, session)
		if err != nil {
			return nil, err
		}
		// The latest messages that fit the request's budget.
		var n int64
		first := len(all)
		for first > 0 && n+all[first-1].size() <= s.opts.MaxHistoryBytes {
			first--
			n += all[first].size()
		}
		if err := spend(n); err != nil {
			return nil, err
		}
		msgs = all[first:]
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		text, jsonText, err := resumeContent(&m)
		if err != nil {
			return nil, badInput{err}
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
// Options.HistoryClient. Errors the URL or its server caused are
// badInput; others are the store's.
// fetched counts the bytes fetched so far by the request, bounded by
// MaxHistoryFetched.
func (s *Server) resolve(ctx context.Context, raw string, fetched *int) (message, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return message{}, badInput{err}
	}
	if rid, ok := strings.CutPrefix(u.Path, "/resources/"); ok {
		if m, ok, err := s.resource(ctx, rid); err != nil || ok {
			return m, err
		}
	}
	if s.opts.HistoryClient == nil {
		return message{}, badInput{errors.New("not a resource of this server, and fetching remote history is off; set server.Options.HistoryClient to allow it")}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return message{}, badInput{errors.New("only http and https history URLs can be fetched")}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return message{}, badInput{err}
	}
	resp, err := s.opts.HistoryClient.Do(req)
	if err != nil {
		return message{}, badInput{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return message{}, badInput{fmt.Errorf("fetching it returned %s", resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxHistoryResponse+1))
	if err != nil {
		return message{}, badInput{err}
	}
	if len(body) > MaxHistoryResponse {
		return message{}, badInput{fmt.Errorf("the response is larger than %d bytes (server.MaxHistoryResponse)", MaxHistoryResponse)}
	}
	if *fetched += len(body); *fetched > MaxHistoryFetched {
		return message{}, badInput{fmt.Errorf("the history fetched from other servers is larger than %d bytes in all (server.MaxHistoryFetched)", MaxHistoryFetched)}
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, badInput{fmt.Errorf("not a message: %v", err)}
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
	conv, err := s.conversation(ctx, sum)
	if err != nil {
		return message{}, false, err
	}
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
		if r.Context().Err() == nil {
			s.internal(w, "reading a session", err, "session", id)
		}
		return
	}
	if !exists {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Session %s not found", id))
		return
	}
	base := s.baseURL(r)
	state := base + "/sessions/" + url.PathEscape(id) + "/state"
	d := sessionDescriptor{ID: id, History: []string{}, State: &state}
	for _, rid := range ids {
		d.History = append(d.History, base+"/resources/"+rid)
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) getResource(w http.ResponseWriter, r *http.Request) {
	rid := r.PathValue("id")
	m, ok, err := s.resource(r.Context(), rid)
	if err != nil {
		if r.Context().Err() == nil {
			s.internal(w, "reading a resource", err, "resource", rid)
		}
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("Resource %s not found", rid))
		return
	}
	writeJSON(w, http.StatusOK, m)
}
