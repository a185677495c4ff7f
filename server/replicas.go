package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// Replicas makes servers that share a store replicas of one another
// (Options.Replicas): any of them answers any run, whichever runs it. A
// run started or restored in a server is owned by it, by a lease in the
// store; another replica forwards the run's resumes, cancels and
// follow-ups to the owner (Ask, which the owner's server answers), and
// reads the run, follows its events and streams its live deltas from the
// store (run.LiveStore). When a replica stops (it is closed, its process
// dies, it loses its connection), another one takes over the runs it
// owned that have not ended: it restores each from its log, as Recover
// does after a restart, and records the takeover in the run's log (a
// run.Progress without a call). *postgres.Replica (package run/postgres)
// implements it. A Replicas must be safe for concurrent use.
type Replicas interface {
	// ID returns the replica's ID.
	ID() string
	// Join makes the server a member; Recover calls it. From then on,
	// Replicas calls answer with each request another replica sends (Ask)
	// for a run this one owns, and returns answer's reply to it; and
	// adopt with the ID of a replica that stopped and the runs it owned
	// that have not ended, which this one owns from then on. ctx bounds
	// Join only.
	Join(ctx context.Context, answer func(ctx context.Context, id run.ID, request []byte) []byte, adopt func(ctx context.Context, from string, runs []run.ID)) error
	// Own makes this replica the run's owner before the run starts, and
	// reports whether it is: false when another member owns it. It is
	// Claim of the kind "run" and the run's ID, which Release gives up
	// once the server holds the run no more.
	Own(ctx context.Context, id run.ID) (bool, error)
	// Owner returns the ID of the member that owns the run, "" when none
	// does.
	Owner(ctx context.Context, id run.ID) (string, error)
	// Ask sends request to the run's owner and returns its reply, bounded
	// by ctx.
	Ask(ctx context.Context, id run.ID, request []byte) ([]byte, error)
	// Claim claims a piece of background work for this replica (kind,
	// key), and reports whether this replica holds it (no other member
	// does). The claims of a replica that stops go to the one that takes
	// it over.
	Claim(ctx context.Context, kind, key string) (bool, error)
	// Release gives a claim up.
	Release(ctx context.Context, kind, key string) error
	// Lost is closed when the replica has lost its lease (its connection
	// to the store): another member may take its runs over, so the server
	// abandons them at once (see ErrLeaseLost).
	Lost() <-chan struct{}
	// Leave ends the membership, so that another member takes over the
	// runs this one leaves awaiting; Close calls it once the runs have
	// stopped.
	Leave(ctx context.Context) error
}

// ErrLeaseLost is Serve's error when the server's replica lost its lease
// on its runs (its connection to the store's database): the server has
// abandoned its runs (agent.Agent.Abandon: nothing more is recorded
// of them) and stopped, and another replica takes them over. Start the
// process again to serve again.
var ErrLeaseLost = errors.New("server: this replica lost its lease on its runs (its connection to the store's database); it stopped them, and another replica takes them over; start it again")

// ErrOwnerUnavailable is the error of a resume, cancel or follow-up of a
// run another replica owns, when that replica could not be asked or did
// not answer (it stopped: another replica takes the run over); it is
// answered 503: try again.
var ErrOwnerUnavailable = errors.New("server: the replica that owns the run did not answer; if it stopped, another replica takes the run over: try again")

// takeOverReason is the message of the run.Progress a replica records in
// the log of a run it takes over.
func takeOverReason(to, from string) string {
	return fmt.Sprintf("taken over by replica %s: replica %s, which ran it, stopped", to, from)
}

// command is what a replica asks a run's owner to do, as JSON.
type command struct {
	Op      string      `json:"op"` // "resume", "cancel" or "follow_up"
	AwaitID string      `json:"await_id,omitempty"`
	Answer  *run.Answer `json:"answer,omitempty"`
	Text    string      `json:"text,omitempty"`
}

// commandReply is the owner's reply: the error, if any, with the name of
// the condition it wraps, so that the asker's errors.Is sees it.
type commandReply struct {
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// replyKinds are the conditions a reply carries by name.
var replyKinds = []struct {
	name string
	err  error
}{
	{"no_await", agent.ErrNoAwait},
	{"await_mismatch", agent.ErrAwaitMismatch},
	{"terminal", agent.ErrTerminal},
	{"not_followable", agent.ErrNotFollowable},
	{"illegal_transition", run.ErrIllegalTransition},
	{"not_found", run.ErrRunNotFound},
	{"closed", errClosed},
	{"unavailable", ErrOwnerUnavailable},
}

// replyOf is the reply that carries err.
func replyOf(err error) []byte {
	if err == nil {
		return []byte("{}")
	}
	r := commandReply{Error: err.Error()}
	for _, k := range replyKinds {
		if errors.Is(err, k.err) {
			r.Kind = k.name
			break
		}
	}
	b, _ := json.Marshal(r)
	return b
}

// replyError is an error the owner replied with.
type replyError struct {
	msg  string
	kind error
}

func (e *replyError) Error() string { return e.msg }
func (e *replyError) Unwrap() error { return e.kind }

// errorOf is the error a reply carries, nil for none.
func errorOf(b []byte) error {
	var r commandReply
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%w: its reply is not JSON: %v", ErrOwnerUnavailable, err)
	}
	if r.Error == "" {
		return nil
	}
	e := &replyError{msg: r.Error}
	for _, k := range replyKinds {
		if k.name == r.Kind {
			e.kind = k.err
		}
	}
	return e
}

// claimRun is the kind of the claims of runs (Replicas.Own).
const claimRun = "run"

// disown gives up the leases on runs this server no longer holds (they
// ended, or left the followable runs), so that a replica's claims stay
// as many as the runs it holds, and a takeover moves no more.
func (s *Server) disown(ids []run.ID) {
	if s.opts.Replicas == nil || s.opts.Engine != nil || s.leaseLost.Load() {
		return
	}
	for _, id := range ids {
		if err := s.opts.Replicas.Release(context.Background(), claimRun, string(id)); err != nil {
			s.log.Warn("server: giving up the lease on a run", "run", id, "err", err)
		}
	}
}

// takeOverWait bounds how long a request for a run that is being taken
// over (its owner died, and the replica that takes it over has not
// restored it yet) waits for it, before it is answered 503.
const takeOverWait = 10 * time.Second

// remote returns the controller of a run another replica owns, nil when
// there are no replicas or no other replica owns it. A run this replica
// owns but does not hold yet is being taken over (adopt): it waits for
// it, up to takeOverWait.
func (s *Server) remote(ctx context.Context, id run.ID) (agent.Controller, error) {
	if s.opts.Replicas == nil || s.opts.Engine != nil {
		return nil, nil
	}
	start, wait := time.Now(), 10*time.Millisecond
	for {
		owner, err := s.opts.Replicas.Owner(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("server: reading the owner of run %s: %w", id, err)
		}
		if owner == "" {
			return nil, nil
		}
		if owner != s.opts.Replicas.ID() {
			return &remoteRun{s: s, id: id}, nil
		}
		s.mu.Lock()
		c := s.live[id]
		s.mu.Unlock()
		if c != nil {
			return c, nil
		}
		if adopting, err := s.adopting(ctx, id); err != nil || !adopting {
			return nil, err
		}
		if time.Since(start) > takeOverWait || !sleep(ctx, wait) {
			return nil, fmt.Errorf("%w (run %s is being taken over here)", ErrOwnerUnavailable, id)
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// adopting reports whether a run this replica owns and does not hold is
// being taken over: it has not ended (a completed run is not held once
// it left the followable runs).
func (s *Server) adopting(ctx context.Context, id run.ID) (bool, error) {
	sum, err := s.store.Get(ctx, id)
	if err != nil {
		return false, err
	}
	return !sum.Status.Terminal() && sum.Status != run.StatusCancelling, nil
}

// sleep waits d, or until ctx is done (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// remoteRun controls a run another replica owns: it forwards resumes,
// cancels and follow-ups to the owner, and reads the run from the store.
type remoteRun struct {
	s  *Server
	id run.ID
}

var _ agent.Controller = (*remoteRun)(nil)

func (r *remoteRun) ID() run.ID { return r.id }

// Status returns the run's status as recorded; "" when it cannot be read.
func (r *remoteRun) Status() run.Status {
	sum, err := r.s.store.Get(context.Background(), r.id)
	if err != nil {
		return ""
	}
	return sum.Status
}

// Pending returns what the run awaits, as recorded.
func (r *remoteRun) Pending() (run.AwaitRequested, bool) {
	snap, err := run.LoadSnapshot(context.Background(), r.s.store, r.id)
	if err != nil || snap.Status != run.StatusAwaiting || snap.Await == nil {
		return run.AwaitRequested{}, false
	}
	return *snap.Await, true
}

// Wait waits until the run has ended, as recorded, or ctx is done.
func (r *remoteRun) Wait(ctx context.Context) (agent.Outcome, error) {
	sum, err := r.s.store.Get(ctx, r.id)
	if err != nil {
		return agent.Outcome{}, err
	}
	if !sum.Status.Terminal() {
		for e, err := range r.s.store.Events(ctx, r.id, sum.LastSeq+1) {
			if err != nil {
				return agent.Outcome{}, err
			}
			if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return agent.Outcome{}, err
		}
	}
	snap, err := run.LoadSnapshot(ctx, r.s.store, r.id)
	if err != nil {
		return agent.Outcome{}, err
	}
	return agent.Outcome{RunID: r.id, Status: snap.Status, Result: snap.Result, Reason: snap.FailureReason, Steps: snap.Step}, nil
}

func (r *remoteRun) Resume(ctx context.Context, awaitID string, answer run.Answer) error {
	return r.ask(ctx, command{Op: "resume", AwaitID: awaitID, Answer: &answer})
}

func (r *remoteRun) Cancel(ctx context.Context) error {
	return r.ask(ctx, command{Op: "cancel"})
}

func (r *remoteRun) FollowUp(ctx context.Context, text string) error {
	return r.ask(ctx, command{Op: "follow_up", Text: text})
}

// ask sends c to the run's owner and returns the error it replied with.
// While the owner is unavailable (it died, and the run is being taken
// over), it asks again, up to takeOverWait: the new owner, or this
// server itself when it took the run over.
func (r *remoteRun) ask(ctx context.Context, c command) error {
	req, err := json.Marshal(c)
	if err != nil {
		return err
	}
	start, wait := time.Now(), 20*time.Millisecond
	for {
		err := r.askOnce(ctx, req)
		if !errors.Is(err, ErrOwnerUnavailable) || time.Since(start) > takeOverWait {
			return err
		}
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
		wait = min(2*wait, 500*time.Millisecond)
		if owner, oerr := r.s.opts.Replicas.Owner(ctx, r.id); oerr == nil && owner == r.s.opts.Replicas.ID() {
			// Taken over here: the caller holds the run's control lock.
			if _, err := r.s.remote(ctx, r.id); err != nil {
				return err
			}
			return r.s.apply(ctx, r.id, c)
		}
	}
}

// askOnce sends req to the run's owner once.
func (r *remoteRun) askOnce(ctx context.Context, req []byte) error {
	reply, err := r.s.opts.Replicas.Ask(ctx, r.id, req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w (run %s: %v)", ErrOwnerUnavailable, r.id, err)
	}
	return errorOf(reply)
}

// answer applies a command another replica sent for a run this server
// owns, to the run's controller in this process, and returns the reply.
// It holds the run's control lock meanwhile, as the handlers do.
func (s *Server) answer(ctx context.Context, id run.ID, request []byte) []byte {
	var c command
	if err := json.Unmarshal(request, &c); err != nil {
		return replyOf(fmt.Errorf("server: a command of another replica is not JSON: %w", err))
	}
	unlock := s.lockRun(id)
	defer unlock()
	if c.Op != "follow_up" {
		// A run being taken over here is waited for.
		if _, err := s.remote(ctx, id); err != nil {
			return replyOf(err)
		}
	}
	return replyOf(s.apply(ctx, id, c))
}

// apply applies a command to a run this server owns. The caller holds
// the run's control lock.
func (s *Server) apply(ctx context.Context, id run.ID, c command) error {
	if c.Op == "follow_up" {
		return s.followUpHeld(id, c.Text)
	}
	s.mu.Lock()
	h := s.live[id]
	s.mu.Unlock()
	if h == nil {
		return fmt.Errorf("%w: run %s is owned by replica %s, which does not run it (it has ended)", agent.ErrTerminal, id, s.opts.Replicas.ID())
	}
	switch c.Op {
	case "resume":
		if c.Answer == nil {
			return errors.New("server: a resume of another replica has no answer")
		}
		return h.Resume(ctx, c.AwaitID, *c.Answer)
	case "cancel":
		return h.Cancel(ctx)
	}
	return fmt.Errorf("server: another replica sent the command %q, which this one does not know; run the same version of byref on every replica", c.Op)
}

// followUpHeld sends a follow-up to a completed run this server holds
// among its followable runs, as POST /ui/api/runs/{id}/follow-up does.
func (s *Server) followUpHeld(id run.ID, text string) error {
	sum, err := s.store.Get(s.ctx, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	h, cancel := s.takeFollowable(s.ctx, id)
	if h == nil {
		s.mu.Unlock()
		return fmt.Errorf("%w: run %s is %s, and its replica does not hold it for a follow-up", agent.ErrNotFollowable, id, sum.Status)
	}
	return s.followUp(sum.Tags[TagAgent], id, h, runCtx{cancel: cancel}, s.ctx, text)
}

// followUp sends text to h, a run taken from the followable runs, and
// watches the turn that begins. The caller holds s.mu, which it releases.
func (s *Server) followUp(agent string, id run.ID, h agent.Controller, rc runCtx, ctx context.Context, text string) error {
	s.live[id] = h
	s.wg.Add(1)
	s.mu.Unlock()
	// Whether FollowUp succeeds or not, the turn's end (or the old one,
	// when it refused) is waited for, which puts a run that is still
	// completed back among the followable ones.
	err := h.FollowUp(ctx, text)
	go s.watch(agent, id, h, rc)
	return err
}

// join makes the server a member of its replicas (Recover), and abandons
// its runs when the replica loses its lease.
func (s *Server) join(ctx context.Context) error {
	if err := s.opts.Replicas.Join(ctx, s.answer, s.adopt); err != nil {
		return fmt.Errorf("server: joining the replicas: %w", err)
	}
	s.joined.Store(true)
	s.takenOver("", 0) // the protocols claim their work
	go func() {
		select {
		case <-s.opts.Replicas.Lost():
			s.abandon()
		case <-s.ctx.Done():
		}
	}()
	return nil
}

// adopt restores the runs of a replica that stopped, which this one owns
// now (Replicas.Join): it records the takeover in each run's log, then
// restores the run as Recover does (a run that was running goes on from
// its last recorded step; one that had not begun begins), and lets the protocols
// claim again the work they left (OnTakeOver).
func (s *Server) adopt(ctx context.Context, from string, ids []run.ID) {
	restored := 0
	for _, id := range ids {
		if err := s.takeOver(ctx, from, id); err != nil {
			s.log.Warn("server: a run of a replica that stopped cannot go on here", "run", id, "replica", from, "err", err)
			if err := s.markFailed(ctx, id, "interrupted: its replica stopped, and it cannot be restored on another: "+err.Error()); err != nil {
				s.log.Error("server: marking a run interrupted", "run", id, "err", err)
			}
			continue
		}
		restored++
	}
	s.log.Info("server: took over the runs of a replica that stopped", "replica", from, "runs", restored, "of", len(ids))
	s.takenOver(from, restored)
}

// takenOver calls the OnTakeOver funcs.
func (s *Server) takenOver(from string, runs int) {
	s.mu.Lock()
	hooks := s.onTakeOver
	s.mu.Unlock()
	for _, f := range hooks {
		f(from, runs)
	}
}

// takeOver records the takeover of one run in its log and restores it.
// The log may still grow meanwhile by the last appends of the replica
// that stopped (those it made before it knew it lost its lease): the
// record is appended after them.
func (s *Server) takeOver(ctx context.Context, from string, id run.ID) error {
	for range 5 {
		sum, err := s.store.Get(ctx, id)
		if err != nil || sum.Status.Terminal() {
			return err
		}
		_, err = s.store.Append(ctx, id, sum.LastSeq, run.Event{Payload: run.Progress{Message: takeOverReason(s.opts.Replicas.ID(), from)}})
		var conflict *run.ConflictError
		if errors.As(err, &conflict) {
			continue
		}
		if err != nil {
			return err
		}
		return s.restore(ctx, id)
	}
	return fmt.Errorf("its log kept growing as it was taken over")
}

// abandon stops the server's runs at once, recording nothing, once its
// replica lost its lease: another replica may be restoring them already.
// Then it closes the server, which stops the protocols' background work
// (OnClose), and Serve returns ErrLeaseLost.
func (s *Server) abandon() {
	s.log.Error(ErrLeaseLost.Error())
	s.leaseLost.Store(true)
	s.mu.Lock()
	s.closed = true // no run starts any more
	s.mu.Unlock()
	for _, name := range s.order {
		if rt := s.agents[name].Agent; rt != nil {
			if err := rt.Abandon(context.Background()); err != nil {
				s.log.Error("server: abandoning an agent's runs", "agent", name, "err", err)
			}
		}
	}
	_ = s.Close()
	close(s.abandoned)
}
