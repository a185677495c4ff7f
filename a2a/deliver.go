package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/byref/byref/run"
)

// Defaults of the push delivery policy (Options.PushRetry).
const (
	DefaultPushAttempts   = 5
	DefaultPushBackoff    = time.Second
	DefaultPushMaxBackoff = time.Minute
	DefaultPushTimeout    = 10 * time.Second
)

// PushRetry is how a push notification is retried: up to Attempts POSTs,
// Backoff apart, doubling up to MaxBackoff. A notification is retried
// when the receiver cannot be reached, times out (Timeout, per POST), or
// answers 408, 429 or 5xx; any other answer but 2xx gives it up at once.
// A notification given up is recorded (and logged) and the next one is
// sent. The zero value is the defaults.
type PushRetry struct {
	Attempts   int
	Backoff    time.Duration
	MaxBackoff time.Duration
	Timeout    time.Duration
}

func (r PushRetry) withDefaults() PushRetry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultPushAttempts
	}
	if r.Backoff <= 0 {
		r.Backoff = DefaultPushBackoff
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = DefaultPushMaxBackoff
	}
	if r.Timeout <= 0 {
		r.Timeout = DefaultPushTimeout
	}
	return r
}

// pusher delivers the push notifications of every task: one goroutine per
// configuration follows its task's log in the store, so that a slow or
// down receiver delays only its own notifications, never the run nor the
// other receivers.
type pusher struct {
	opts   Options
	store  run.Store
	rs     run.Records
	claims claimer
	log    *slog.Logger
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // serializes the changes of records with the stops of deliveries
	liveMu sync.Mutex // guards live
	live   map[string]*delivery
}

// delivery is the goroutine that delivers a configuration's notifications.
type delivery struct{ cancel context.CancelFunc }

// claimer claims the deliveries among the server's replicas, so that one
// replica delivers a configuration's notifications: *server.Server.
type claimer interface {
	Claim(ctx context.Context, kind, key string) (bool, error)
	Release(ctx context.Context, kind, key string) error
}

// pushClaim is the kind of the claims of deliveries (claimKey).
const pushClaim = "a2a.push"

// claimKey is the key of the claim of a configuration's deliveries.
func claimKey(task sdk.TaskID, id string) string { return string(task) + "/" + id }

// errReplaced ends a delivery whose configuration was replaced or deleted
// through another replica.
var errReplaced = errors.New("a2a: the push notification configuration was replaced or deleted")

// newPusher returns the pusher of a store, or nil when it keeps no
// records.
func newPusher(store run.Store, claims claimer, opts Options, log *slog.Logger) *pusher {
	rs, ok := store.(run.Records)
	if !ok {
		return nil
	}
	p := &pusher{opts: opts, store: store, rs: rs, claims: claims, log: log, live: map[string]*delivery{}}
	p.opts.PushRetry = opts.PushRetry.withDefaults()
	p.client = opts.PushClient
	if p.client == nil {
		dialer := &net.Dialer{Timeout: p.opts.PushRetry.Timeout, Control: p.dialControl}
		p.client = &http.Client{
			Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute},
			// A redirect could lead anywhere: it is not followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// dialControl refuses to connect to an internal address, whatever the
// name resolved to (unless Options.AllowPrivatePush).
func (p *pusher) dialControl(network, address string, _ syscall.RawConn) error {
	if p.opts.AllowPrivatePush {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	return checkAddr(host, ip)
}

func (p *pusher) internal(what string, err error) error {
	p.log.Error("a2a: "+what, "err", err)
	return fmt.Errorf("%w: %s failed; the server's log has the details", sdk.ErrInternalError, what)
}

// resume restarts the deliveries the store holds, after a restart (or
// once this server took over a replica that stopped): each configuration
// that no other replica delivers goes on from the event after the last it
// delivered.
func (p *pusher) resume() {
	recs, err := p.records(p.ctx, "")
	if err != nil {
		p.log.Error("a2a: reading push notification configurations", "err", err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range recs {
		p.start(r.Config.TaskID, r.Config.ID)
	}
}

// start starts the deliveries of a configuration, unless they run. The
// caller holds p.mu.
func (p *pusher) start(task sdk.TaskID, id string) {
	key := string(task) + "\x00" + id
	p.liveMu.Lock()
	defer p.liveMu.Unlock()
	if _, ok := p.live[key]; ok || p.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(p.ctx)
	d := &delivery{cancel: cancel}
	p.live[key] = d
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		again := p.claimed(ctx, task, id)
		p.liveMu.Lock()
		if p.live[key] == d {
			delete(p.live, key)
		}
		p.liveMu.Unlock()
		cancel()
		if again {
			p.mu.Lock()
			p.start(task, id)
			p.mu.Unlock()
		}
	}()
}

// claimed delivers a configuration's notifications if this server claims
// them (no other replica delivers them), and gives the claim up once they
// are all delivered or the configuration was replaced or deleted through
// another replica. It reports whether the configuration was replaced:
// its deliveries start again.
func (p *pusher) claimed(ctx context.Context, task sdk.TaskID, id string) (again bool) {
	key := claimKey(task, id)
	held, err := p.claims.Claim(ctx, pushClaim, key)
	if err != nil || !held {
		if err != nil && ctx.Err() == nil {
			p.log.Error("a2a: claiming push notifications", "task", task, "config", id, "err", err)
		}
		return false
	}
	err = p.deliver(ctx, task, id)
	if err != nil && !errors.Is(err, errReplaced) && ctx.Err() == nil {
		p.log.Error("a2a: push notifications stopped", "task", task, "config", id, "err", err)
	}
	if ctx.Err() == nil || errors.Is(err, errReplaced) {
		if err := p.claims.Release(context.WithoutCancel(ctx), pushClaim, key); err != nil {
			p.log.Warn("a2a: releasing push notifications", "task", task, "config", id, "err", err)
		}
	}
	if errors.Is(err, errReplaced) {
		_, again, _ = p.record(context.WithoutCancel(ctx), task, id)
	}
	return again
}

// stop stops the deliveries of a configuration. The caller holds p.mu.
func (p *pusher) stop(task sdk.TaskID, id string) {
	key := string(task) + "\x00" + id
	p.liveMu.Lock()
	d := p.live[key]
	delete(p.live, key)
	p.liveMu.Unlock()
	if d != nil {
		d.cancel()
	}
}

// close stops every delivery and waits for them; the store keeps where
// each was, and the next process goes on from there.
func (p *pusher) close() {
	p.cancel()
	p.wg.Wait()
}

// deliver sends a configuration's notifications, from the event after
// the last it delivered (or from its From), until the task ends.
func (p *pusher) deliver(ctx context.Context, task sdk.TaskID, id string) error {
	rec, ok, err := p.record(ctx, task, id)
	if err != nil || !ok {
		return err
	}
	if sum, err := p.store.Get(ctx, run.ID(task)); err != nil {
		return err
	} else if sum.Status.Terminal() && rec.Delivered >= sum.LastSeq {
		return nil // all delivered
	}
	proj := &projector{}
	first := rec.Delivered < rec.From
	for e, err := range p.store.Events(ctx, run.ID(task), 1) {
		if err != nil {
			return err
		}
		evs := proj.apply(e)
		if e.Seq < rec.From || e.Seq <= rec.Delivered {
			continue
		}
		if first {
			// The task as it is, then its updates.
			evs, first = []sdk.Event{proj.snapshot(nil)}, false
		}
		if len(evs) == 0 {
			continue
		}
		for _, ev := range evs {
			attempts, err := p.send(ctx, &rec, proj, ev)
			if ctx.Err() != nil {
				return nil // stopped: the record says where to go on
			}
			rec.Attempts += attempts
			if err != nil {
				rec.Failed++
				rec.LastError = err.Error()
				p.log.Warn("a2a: a push notification was given up", "task", task, "config", id, "url", rec.Config.URL, "attempts", attempts, "err", err)
			} else {
				rec.Sent++
			}
		}
		rec.Delivered = e.Seq
		if err := p.save(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// record reads a configuration's record.
func (p *pusher) record(ctx context.Context, task sdk.TaskID, id string) (pushRecord, bool, error) {
	recs, err := p.records(ctx, task)
	if err != nil {
		return pushRecord{}, false, err
	}
	for _, r := range recs {
		if r.Config.ID == id {
			return r, true, nil
		}
	}
	return pushRecord{}, false, nil
}

// save records a delivery's progress, unless the configuration was
// deleted or replaced meanwhile: in this process (which stopped ctx), or
// through another replica (the stored configuration is not rec's: then
// errReplaced).
func (p *pusher) save(ctx context.Context, rec pushRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	cur, ok, err := p.record(ctx, rec.Config.TaskID, rec.Config.ID)
	if err != nil {
		return err
	}
	was, _ := json.Marshal(rec.Config)
	now, _ := json.Marshal(cur.Config)
	if !ok || cur.Version != rec.Version || !bytes.Equal(was, now) {
		return errReplaced
	}
	return p.put(ctx, rec)
}

// payload is the body of a notification: a v1.0 StreamResponse, or the
// task for a configuration made over v0.3 (its specification sends the
// task).
func payload(rec *pushRecord, proj *projector, ev sdk.Event) ([]byte, error) {
	if rec.Version == LegacyVersion {
		return json.Marshal(a2av0.FromV1Task(proj.snapshot(nil)))
	}
	return json.Marshal(sdk.StreamResponse{Event: ev})
}

// send POSTs one notification, retried per Options.PushRetry, and returns
// the number of attempts and, when it was given up, why.
func (p *pusher) send(ctx context.Context, rec *pushRecord, proj *projector, ev sdk.Event) (int, error) {
	body, err := payload(rec, proj, ev)
	if err != nil {
		return 0, err
	}
	policy := p.opts.PushRetry
	wait := policy.Backoff
	for attempt := 1; ; attempt++ {
		retry, err := p.post(ctx, rec, body)
		if err == nil || !retry || attempt >= policy.Attempts {
			return attempt, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, policy.MaxBackoff)
	}
}

// post makes one attempt, and says whether a failure is worth a retry.
func (p *pusher) post(ctx context.Context, rec *pushRecord, body []byte) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.PushRetry.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.Config.URL, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c := rec.Config; c.Auth != nil && c.Auth.Credentials != "" {
		req.Header.Set("Authorization", c.Auth.Scheme+" "+c.Auth.Credentials)
	}
	if rec.Config.Token != "" {
		// The header of the v0.3 specification and the JavaScript SDK,
		// and that of the Go SDK.
		req.Header.Set("X-A2A-Notification-Token", rec.Config.Token)
		req.Header.Set("A2A-Notification-Token", rec.Config.Token)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		var refused *net.OpError
		if errors.As(err, &refused) && errors.Is(refused.Err, errPrivateTarget) {
			return false, err
		}
		return true, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return false, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return true, fmt.Errorf("the receiver answered %s", resp.Status)
	default:
		return false, fmt.Errorf("the receiver answered %s (not retried)", strconv.Itoa(c)+" "+http.StatusText(c))
	}
}
