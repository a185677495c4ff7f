package postgres

import (
	"context"
	"time"

	"github.com/byref/byref/run"
	"github.com/jackc/pgx/v5"
)

// The listener: one connection per Store, outside the pool, LISTENs on
// the schema's channel (and on its channel of deltas: see live.go). Every Append notifies the run's ID on it in its
// own statement, so the notification is delivered when (and only if) the
// append commits, to every Store of every process, which wakes the run's
// followers. While it waits, the connection sends nothing.
//
// A lost connection loses the notifications sent meanwhile: once it is
// back and listening, the listener wakes every follower (NotifyAll), and
// each reads from its last event on. Nothing is missed, since followers
// read by sequence number, and nothing is yielded twice.

// startListening connects the listening connection and has it LISTEN
// before it returns (so any follower that starts later is woken by any
// append that commits later), then serves it in a goroutine.
func (s *Store) startListening(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := s.listenConn(ctx, cfg)
	if err != nil {
		return err
	}
	s.bg, s.stop = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.listen(s.bg, cfg, conn)
	return nil
}

// listenConn connects and LISTENs.
func (s *Store) listenConn(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+s.quoted+"; LISTEN "+pgx.Identifier{s.schema + deltaSuffix}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// listen receives notifications until ctx is done, reconnecting whenever
// the connection is lost.
func (s *Store) listen(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn) {
	defer s.wg.Done()
	for {
		err := s.receive(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("postgres: lost the connection that listens for appends; reconnecting", "schema", s.schema, "err", err)
		if s.opts.onLost != nil {
			s.opts.onLost()
		}
		if conn = s.reconnect(ctx, cfg); conn == nil {
			return
		}
		s.log.Info("postgres: listening for appends again", "schema", s.schema)
		s.notify.NotifyAll()
		if s.opts.onBack != nil {
			s.opts.onBack()
		}
	}
}

// receive wakes the followers of each notified run until the connection
// fails or ctx is done.
func (s *Store) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Channel != s.schema {
			s.live.received(n.Payload)
			continue
		}
		if n.Payload == "" { // a run ID too long for a payload
			s.notify.NotifyAll()
		} else {
			s.notify.Notify(run.ID(n.Payload))
		}
		if s.opts.onNotify != nil {
			s.opts.onNotify(n.Payload)
		}
	}
}

// reconnect connects and LISTENs again, with backoff, until it succeeds
// or ctx is done (then it returns nil).
func (s *Store) reconnect(ctx context.Context, cfg *pgx.ConnConfig) *pgx.Conn {
	delay := 50 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		conn, err := s.listenConn(cctx, cfg)
		cancel()
		if err == nil {
			return conn
		}
		if !sleep(ctx, delay) {
			return nil
		}
		delay = min(2*delay, maxBackoff)
	}
}
