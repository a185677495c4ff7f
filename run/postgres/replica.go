package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/byref/byref/run"
	"github.com/jackc/pgx/v5"
)

// Servers in replicas. Each replica is a row of the replicas table and a
// session-level advisory lock on its ID, held on a connection of its own
// (outside the pool) that also LISTENs on the replica's channel (the
// schema's name, "/r/" and the ID) and on the members' channel (the
// schema's name and "/m"). Every other replica waits for that lock with a
// blocking pg_advisory_lock on a connection of its own: the database
// answers the one that gets it when the replica's session ends (it left,
// its process died, its connection was lost), and nothing is sent
// meanwhile. The replica that gets a peer's lock takes the peer over, in
// one transaction: it deletes the peer's row, moves the peer's claims to
// itself (one winner: the others get the lock after it and find no row),
// marks the commands the peer left unanswered as gone, deletes those it
// asked, and then hands the
// runs that have not ended to its server (adopt), which restores them from
// their logs.
//
// A claim is a row (kind, key, replica): the run a replica owns (kind
// ClaimRun) or a piece of background work it does (an A2A push
// configuration it delivers). A command is a row that a replica writes
// for a run another owns, notifying the owner's channel; the owner applies
// it and writes the reply, notifying the asker's.

// ClaimRun is the kind of the claims of runs: a replica owns the run whose
// ID is the claim's key.
const ClaimRun = "run"

const (
	// replicaSuffix, then a replica's ID, names the replica's channel.
	replicaSuffix = "/r/"
	// membersSuffix names the channel on which replicas announce
	// themselves.
	membersSuffix = "/m"
	// replicaIDLen is the length of a replica's ID, in hex digits.
	replicaIDLen = 16
)

// ErrLeaseLost is the error of a [Replica]'s calls once it lost its
// connection to the database, and with it its lease: another replica may
// be taking its runs over.
var ErrLeaseLost = errors.New("postgres: this replica lost its connection to the database, and with it its lease on its runs; another replica takes them over")

// ErrOwnerGone is Ask's error when the replica that owned the run stopped
// before it answered: another replica takes the run over; ask again.
var ErrOwnerGone = errors.New("postgres: the replica that owned the run stopped before it answered; another replica takes the run over: try again")

// Replica is this process's membership of the replicas that serve the
// runs of a store: servers that share the database (byref serve --store
// postgres://…). It implements the Replicas of package server. Create
// one with [Store.NewReplica]; [Replica.Join] makes it a member and
// [Replica.Leave] ends its membership. Its methods are safe for concurrent
// use.
type Replica struct {
	s       *Store
	id      string
	host    string
	prefix  string // of the replicas' channels
	members string // the members' channel

	ctx    context.Context // cancelled by Leave and when the lease is lost
	cancel context.CancelFunc
	wg     sync.WaitGroup // the listener, the watchers of peers, the commands served

	answer func(context.Context, run.ID, []byte) []byte
	adopt  func(context.Context, string, []run.ID)

	mu     sync.Mutex
	own    *Lock // the lock on id, on the listening connection
	joined bool
	peers  map[string]bool          // whose locks are waited for
	asks   map[string]chan struct{} // commands asked, closed when answered

	lost     chan struct{} // closed when the lease is lost
	lostOnce sync.Once
}

// NewReplica returns a replica of a new, random ID, which has not joined.
// The Store is the replica's: once the replica lost its lease, the Store
// writes nothing more (its Create, Append, PutRecord and DeleteRecord
// return ErrLeaseLost), since another replica may be taking its runs
// over. Make one replica per Store.
func (s *Store) NewReplica() (*Replica, error) {
	if len(s.schema)+len(replicaSuffix)+replicaIDLen > 63 {
		return nil, fmt.Errorf("postgres: schema name %q is too long for replicas: it names their notification channels too, which with %q and an ID of %d characters must fit PostgreSQL's 63 bytes; choose a shorter Options.Schema", s.schema, replicaSuffix, replicaIDLen)
	}
	b := make([]byte, replicaIDLen/2)
	_, _ = rand.Read(b)
	host, _ := os.Hostname()
	r := &Replica{
		s: s, id: hex.EncodeToString(b), host: fmt.Sprintf("%s pid %d", host, os.Getpid()),
		prefix: s.schema + replicaSuffix, members: s.schema + membersSuffix,
		peers: map[string]bool{}, asks: map[string]chan struct{}{}, lost: make(chan struct{}),
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

// ID returns the replica's ID, which names it in the replicas table and in
// the logs.
func (r *Replica) ID() string { return r.id }

// lockName is the name of the advisory lock a replica holds while it is
// a member.
func lockName(id string) string { return "replica " + id }

// Join makes the replica a member: it takes the lock on its ID and keeps
// it on a connection of its own, which listens for the commands other
// replicas send it (answer applies each to a run this replica owns, and
// returns the reply), announces itself, and waits for every other
// member's lock. When it gets one, the member is gone: it takes the
// member's claims, and calls adopt with the member's ID and the runs it
// owned that have not ended, which are this replica's from then on. ctx
// bounds Join only. Join once.
func (r *Replica) Join(ctx context.Context, answer func(ctx context.Context, id run.ID, request []byte) []byte, adopt func(ctx context.Context, from string, runs []run.ID)) error {
	r.mu.Lock()
	if r.joined {
		r.mu.Unlock()
		return errors.New("postgres: the replica has joined already; make a new one (Store.NewReplica)")
	}
	r.joined, r.answer, r.adopt = true, answer, adopt
	r.mu.Unlock()
	l, ok, err := r.s.lock(ctx, lockName(r.id), false)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("postgres: the replica ID %s is taken; make a new replica (Store.NewReplica)", r.id)
	}
	if err := r.announce(ctx, l.conn); err != nil {
		l.Unlock(context.Background())
		return fmt.Errorf("postgres: joining the replicas: %w", err)
	}
	r.mu.Lock()
	r.own = l
	r.mu.Unlock()
	r.wg.Add(1)
	go r.listen(l.conn)
	var peers []string
	err = r.s.retry(ctx, func() error {
		rows, err := r.s.pool.Query(ctx, r.s.sql(`SELECT id FROM {s}.replicas WHERE id <> $1`), r.id)
		if err == nil {
			peers, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: reading the replicas: %w", err)
	}
	for _, p := range peers {
		r.watch(p)
	}
	r.s.log.Info("postgres: joined the replicas", "replica", r.id, "peers", len(peers))
	return nil
}

// announce listens on the replica's channels, then adds its row and
// notifies the members, on conn.
func (r *Replica) announce(ctx context.Context, conn *pgx.Conn) error {
	ctx, cancel := r.s.bound(ctx)
	defer cancel()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{r.prefix + r.id}.Sanitize()+"; LISTEN "+pgx.Identifier{r.members}.Sanitize()); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, r.s.sql(`INSERT INTO {s}.replicas (id, host) VALUES ($1, $2)`), r.id, r.host); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, `SELECT pg_notify($1, $2)`, r.members, r.id)
	return err
}

// listen receives the replica's notifications until Leave, or until the
// connection is lost: then the lease is lost.
func (r *Replica) listen(conn *pgx.Conn) {
	defer r.wg.Done()
	for {
		n, err := conn.WaitForNotification(r.ctx)
		if err != nil {
			if r.ctx.Err() == nil {
				r.loseLease(err)
			}
			return
		}
		switch {
		case n.Channel == r.members:
			if n.Payload != r.id {
				r.watch(n.Payload)
			}
		case strings.HasPrefix(n.Payload, "c"):
			r.wg.Add(1)
			go r.serve(n.Payload[1:])
		case strings.HasPrefix(n.Payload, "a"):
			r.mu.Lock()
			if ch := r.asks[n.Payload[1:]]; ch != nil {
				close(ch)
				delete(r.asks, n.Payload[1:])
			}
			r.mu.Unlock()
		}
	}
}

// loseLease ends the membership of a replica whose connection was lost.
func (r *Replica) loseLease(err error) {
	r.lostOnce.Do(func() {
		r.s.log.Error("postgres: this replica lost its connection to the database, and its lease on its runs", "replica", r.id, "err", err)
		r.s.fenced.Store(true) // before anyone is told: nothing more is written
		close(r.lost)
		r.cancel()
	})
}

// Lost returns a channel closed when the replica has lost its connection
// to the database, and with it its lease: from then on another replica
// may take its runs over, so its server must stop running them at once.
func (r *Replica) Lost() <-chan struct{} { return r.lost }

// watch waits, in a goroutine, for the lock of the peer, and takes the
// peer over when it gets it; once per peer.
func (r *Replica) watch(peer string) {
	r.mu.Lock()
	if r.peers[peer] || r.ctx.Err() != nil {
		r.mu.Unlock()
		return
	}
	r.peers[peer] = true
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		delay := 50 * time.Millisecond
		for {
			l, _, err := r.s.lock(r.ctx, lockName(peer), true)
			if err == nil {
				r.takeOver(peer, l)
				break
			}
			if r.ctx.Err() != nil {
				return
			}
			r.s.log.Warn("postgres: waiting for a replica's lock failed; waiting again", "replica", r.id, "peer", peer, "err", err)
			if !sleep(r.ctx, delay) {
				return
			}
			delay = min(2*delay, maxBackoff)
		}
		r.mu.Lock()
		delete(r.peers, peer)
		r.mu.Unlock()
	}()
}

// takeOver takes the claims of a gone peer whose lock l it holds, and
// hands the runs it owned that have not ended to adopt.
func (r *Replica) takeOver(peer string, l *Lock) {
	defer l.Unlock(context.Background())
	var runs []run.ID
	err := r.s.retry(r.ctx, func() error {
		return pgx.BeginFunc(r.ctx, r.s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(r.ctx, r.s.sql(`DELETE FROM {s}.replicas WHERE id = $1`), peer)
			if err != nil || tag.RowsAffected() == 0 {
				return err // taken over by another replica already
			}
			rows, err := tx.Query(r.ctx, r.s.sql(`WITH moved AS (
				UPDATE {s}.claims SET replica = $2 WHERE replica = $1 RETURNING kind, key)
				SELECT m.key FROM moved m JOIN {s}.runs r ON r.id = m.key
				WHERE m.kind = $3 AND r.status IN ('created', 'running', 'awaiting', 'cancelling')
				ORDER BY r.pk`), peer, r.id, ClaimRun)
			if err == nil {
				runs, err = pgx.CollectRows(rows, pgx.RowTo[run.ID])
			}
			if err != nil {
				return err
			}
			_, err = tx.Exec(r.ctx, r.s.sql(`WITH g AS (
				UPDATE {s}.commands SET gone = true WHERE replica = $1 AND reply IS NULL RETURNING id, asker)
				SELECT count(pg_notify($2 || asker, 'a' || id)) FROM g`), peer, r.prefix)
			if err != nil {
				return err
			}
			// The commands it asked that it will not read.
			_, err = tx.Exec(r.ctx, r.s.sql(`DELETE FROM {s}.commands WHERE asker = $1`), peer)
			return err
		})
	})
	if err != nil {
		if r.ctx.Err() == nil {
			r.s.log.Error("postgres: taking over a replica that stopped failed", "replica", r.id, "peer", peer, "err", err)
		}
		return
	}
	r.s.log.Info("postgres: took over a replica that stopped", "replica", r.id, "peer", peer, "runs", len(runs))
	if r.adopt != nil {
		r.adopt(r.ctx, peer, runs)
	}
}

// Claim claims a piece of work for this replica (an A2A push
// configuration to deliver, under its own kind) and reports whether this
// replica holds it: it does when no other member holds it. A claim of a
// replica that stops goes to the replica that takes it over (see
// Join's adopt).
func (r *Replica) Claim(ctx context.Context, kind, key string) (bool, error) {
	if err := r.live(); err != nil {
		return false, err
	}
	ctx, cancel := r.s.bound(ctx)
	defer cancel()
	var ok bool
	err := r.s.retry(ctx, func() error {
		err := r.s.pool.QueryRow(ctx, r.s.sql(`INSERT INTO {s}.claims (kind, key, replica) VALUES ($1, $2, $3)
			ON CONFLICT (kind, key) DO UPDATE SET replica = excluded.replica
			WHERE {s}.claims.replica = excluded.replica
				OR NOT EXISTS (SELECT 1 FROM {s}.replicas m WHERE m.id = {s}.claims.replica)
			RETURNING true`), kind, key, r.id).Scan(&ok)
		if errors.Is(err, pgx.ErrNoRows) {
			ok, err = false, nil
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres: claiming %s %s: %w", kind, key, err)
	}
	return ok, nil
}

// Release gives up this replica's claim, if it holds it.
func (r *Replica) Release(ctx context.Context, kind, key string) error {
	ctx, cancel := r.s.bound(ctx)
	defer cancel()
	err := r.s.retry(ctx, func() error {
		_, err := r.s.pool.Exec(ctx, r.s.sql(`DELETE FROM {s}.claims WHERE kind = $1 AND key = $2 AND replica = $3`), kind, key, r.id)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: releasing %s %s: %w", kind, key, err)
	}
	return nil
}

// Own claims the run for this replica, before it starts or restores it,
// and reports whether this replica owns it: false when another member
// does.
func (r *Replica) Own(ctx context.Context, id run.ID) (bool, error) {
	return r.Claim(ctx, ClaimRun, string(id))
}

// Owner returns the ID of the member that owns the run: "" when none does
// (the run was not started by a replica, or its owner stopped and has not
// been taken over yet).
func (r *Replica) Owner(ctx context.Context, id run.ID) (string, error) {
	ctx, cancel := r.s.bound(ctx)
	defer cancel()
	var owner string
	err := r.s.retry(ctx, func() error {
		err := r.s.pool.QueryRow(ctx, r.s.sql(`SELECT c.replica FROM {s}.claims c JOIN {s}.replicas m ON m.id = c.replica
			WHERE c.kind = $1 AND c.key = $2`), ClaimRun, string(id)).Scan(&owner)
		if errors.Is(err, pgx.ErrNoRows) {
			owner, err = "", nil
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("postgres: reading the owner of run %s: %w", id, err)
	}
	return owner, nil
}

// Ask sends request to the member that owns the run and returns its
// reply (what its answer function returned). It waits until ctx is done
// and at most Options.QueryTimeout. It returns an error wrapping
// run.ErrRunNotFound when no other member owns the run, ErrOwnerGone when
// the owner stopped before it answered, and ErrLeaseLost when this
// replica lost its lease.
func (r *Replica) Ask(ctx context.Context, id run.ID, request []byte) ([]byte, error) {
	if err := r.live(); err != nil {
		return nil, err
	}
	ctx, cancel := r.s.bound(ctx)
	defer cancel()
	owner, err := r.Owner(ctx, id)
	if err != nil {
		return nil, err
	}
	if owner == "" || owner == r.id {
		return nil, fmt.Errorf("postgres: %w: no other replica owns run %s", run.ErrRunNotFound, id)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	cmd := hex.EncodeToString(b)
	answered := make(chan struct{})
	r.mu.Lock()
	r.asks[cmd] = answered
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.asks, cmd)
		r.mu.Unlock()
	}()
	// The owner's row is locked while the command is written: a takeover
	// of the owner either comes first (the command is not written) or
	// after (it finds the command, and marks it gone).
	var sent int
	err = r.s.retry(ctx, func() error {
		return r.s.pool.QueryRow(ctx, r.s.sql(`WITH owner AS (SELECT id FROM {s}.replicas WHERE id = $2 FOR SHARE),
			c AS (INSERT INTO {s}.commands (id, replica, asker, run, request) SELECT $1, id, $3, $4, $5 FROM owner RETURNING id)
			SELECT count(pg_notify($6, 'c' || id)) FROM c`), cmd, owner, r.id, string(id), string(request), r.prefix+owner).Scan(&sent)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: asking the owner of run %s: %w", id, err)
	}
	if sent == 0 {
		return nil, fmt.Errorf("%w (run %s)", ErrOwnerGone, id)
	}
	select {
	case <-answered:
	case <-r.lost:
		return nil, ErrLeaseLost
	case <-ctx.Done():
		dctx, cancel := r.s.bound(context.WithoutCancel(ctx))
		defer cancel()
		_, _ = r.s.pool.Exec(dctx, r.s.sql(`DELETE FROM {s}.commands WHERE id = $1`), cmd)
		return nil, fmt.Errorf("postgres: the replica %s that owns run %s did not answer: %w", owner, id, ctx.Err())
	}
	var reply *string
	var gone bool
	err = r.s.retry(ctx, func() error {
		return r.s.pool.QueryRow(ctx, r.s.sql(`DELETE FROM {s}.commands WHERE id = $1 RETURNING reply, gone`), cmd).Scan(&reply, &gone)
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("postgres: reading the answer of the owner of run %s: %w", id, err)
	case gone || reply == nil:
		return nil, fmt.Errorf("%w (run %s)", ErrOwnerGone, id)
	}
	return []byte(*reply), nil
}

// serve answers the command cmd sent to this replica.
func (r *Replica) serve(cmd string) {
	defer r.wg.Done()
	ctx, cancel := r.s.bound(r.ctx)
	defer cancel()
	var id, request string
	err := r.s.retry(ctx, func() error {
		return r.s.pool.QueryRow(ctx, r.s.sql(`SELECT run, request FROM {s}.commands
			WHERE id = $1 AND replica = $2 AND reply IS NULL AND NOT gone`), cmd, r.id).Scan(&id, &request)
	})
	if err != nil {
		if !errors.Is(err, pgx.ErrNoRows) && r.ctx.Err() == nil { // no rows: the asker gave up
			r.s.log.Warn("postgres: reading a command", "replica", r.id, "err", err)
		}
		return
	}
	reply := r.answer(r.ctx, run.ID(id), []byte(request))
	if r.ctx.Err() != nil {
		// Leaving (or the lease is lost): what answer returned is cut
		// short, and the member that takes this replica over marks the
		// command gone, so the asker tries again on the run's new owner.
		// (ctx, made from r.ctx, may not be done yet: a context's
		// children are cancelled after its own Done closes.)
		return
	}
	err = r.s.retry(ctx, func() error {
		_, err := r.s.pool.Exec(ctx, r.s.sql(`WITH u AS (UPDATE {s}.commands SET reply = $2 WHERE id = $1 AND NOT gone RETURNING id, asker)
			SELECT count(pg_notify($3 || asker, 'a' || id)) FROM u`), cmd, string(reply), r.prefix)
		return err
	})
	if err != nil && r.ctx.Err() == nil {
		r.s.log.Warn("postgres: answering a command", "replica", r.id, "run", id, "err", err)
	}
}

// live returns ErrLeaseLost once the lease is lost, and an error before
// the replica has joined.
func (r *Replica) live() error {
	select {
	case <-r.lost:
		return ErrLeaseLost
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.own == nil {
		return errors.New("postgres: the replica is not a member: call Replica.Join first (Server.Recover does), and not after Leave")
	}
	return nil
}

// Leave ends the membership: it stops waiting for the other members and
// serving commands, and releases the replica's lock, so that another
// member takes over the runs it still owns (runs left awaiting by a
// stopping server): call it once the server has stopped its runs. The
// replica's row stays until then. Leave is idempotent.
func (r *Replica) Leave(ctx context.Context) error {
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	l := r.own
	r.own = nil
	r.mu.Unlock()
	if l == nil {
		return nil
	}
	return l.Unlock(ctx)
}
