package a2a

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/run"
)

// This file holds the push notification configurations of tasks: the four
// methods that manage them, and the refusal of targets the server must not
// call (SSRF). deliver.go sends the notifications.

// PushRecordKind is the kind of the run.Records that hold a task's push
// notification configurations, one per configuration, keyed by its ID.
const PushRecordKind = "a2a.push"

// MaxPushConfigs is the most push notification configurations a task may
// have.
const MaxPushConfigs = 10

// pushRecord is a push notification configuration as the store keeps it,
// with how far its deliveries have gone: a delivery goes on after a
// restart from the event after Delivered.
type pushRecord struct {
	Config sdk.PushConfig `json:"config"`
	// Version is the protocol version the configuration was created
	// over, which the notifications speak: "1.0" sends StreamResponses,
	// "0.3" the task.
	Version string `json:"version"`
	// From is the sequence number of the event from which the run is
	// notified: the task as it is at that event, then its updates.
	From int64 `json:"from"`
	// Delivered is the sequence number of the latest event whose
	// notifications were delivered or given up.
	Delivered int64 `json:"delivered,omitempty"`
	// Sent and Failed count the notifications delivered and given up
	// (after every attempt); Attempts counts every POST.
	Sent     int `json:"sent,omitempty"`
	Failed   int `json:"failed,omitempty"`
	Attempts int `json:"attempts,omitempty"`
	// LastError is why the latest notification given up failed.
	LastError string `json:"last_error,omitempty"`
}

type versionKey struct{}

// requestVersion is the protocol version of the request ctx serves.
func requestVersion(ctx context.Context) string {
	if v, ok := ctx.Value(versionKey{}).(string); ok && v != "" {
		return v
	}
	return Version
}

// errNoPush answers the push methods when the server keeps no push
// configurations: its store does not implement run.Records.
var errNoPush = fmt.Errorf("%w: this server's store keeps no push notification configurations (it does not implement run.Records); stream the task (SendStreamingMessage) or subscribe to it (SubscribeToTask)", sdk.ErrPushNotificationNotSupported)

// CreateTaskPushConfig implements a2asrv.RequestHandler: it keeps the
// configuration in the store and starts delivering the task's updates to
// it, beginning with the task as it is.
func (h *handler) CreateTaskPushConfig(ctx context.Context, req *sdk.PushConfig) (*sdk.PushConfig, error) {
	if h.push == nil {
		return nil, errNoPush
	}
	if req == nil {
		return nil, fmt.Errorf("%w: the push notification configuration is missing", sdk.ErrInvalidParams)
	}
	_, last, err := h.task(ctx, req.TaskID, nil)
	if err != nil {
		return nil, err
	}
	return h.push.create(ctx, *req, requestVersion(ctx), last)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h *handler) GetTaskPushConfig(ctx context.Context, req *sdk.GetTaskPushConfigRequest) (*sdk.PushConfig, error) {
	if h.push == nil {
		return nil, errNoPush
	}
	if _, _, err := h.task(ctx, req.TaskID, nil); err != nil {
		return nil, err
	}
	recs, err := h.push.records(ctx, req.TaskID)
	if err != nil {
		return nil, h.internal("reading push notification configurations", err)
	}
	for _, r := range recs {
		if r.Config.ID == req.ID {
			return &r.Config, nil
		}
	}
	return nil, noConfig(req.TaskID, req.ID)
}

// ListTaskPushConfigs implements a2asrv.RequestHandler: every
// configuration of the task (at most MaxPushConfigs, so one page).
func (h *handler) ListTaskPushConfigs(ctx context.Context, req *sdk.ListTaskPushConfigRequest) (*sdk.ListTaskPushConfigResponse, error) {
	if h.push == nil {
		return nil, errNoPush
	}
	if _, _, err := h.task(ctx, req.TaskID, nil); err != nil {
		return nil, err
	}
	recs, err := h.push.records(ctx, req.TaskID)
	if err != nil {
		return nil, h.internal("reading push notification configurations", err)
	}
	resp := &sdk.ListTaskPushConfigResponse{Configs: []*sdk.PushConfig{}}
	for _, r := range recs {
		resp.Configs = append(resp.Configs, &r.Config)
	}
	return resp, nil
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler: it stops the
// deliveries to the configuration and removes it from the store. Deleting
// a configuration the task does not have (any more) succeeds, as it does
// in the reference server: the configuration is gone either way.
func (h *handler) DeleteTaskPushConfig(ctx context.Context, req *sdk.DeleteTaskPushConfigRequest) error {
	if h.push == nil {
		return errNoPush
	}
	if _, _, err := h.task(ctx, req.TaskID, nil); err != nil {
		return err
	}
	if _, err := h.push.delete(ctx, req.TaskID, req.ID); err != nil {
		return h.internal("deleting a push notification configuration", err)
	}
	return nil
}

func noConfig(task sdk.TaskID, id string) error {
	return fmt.Errorf("%w: task %s has no push notification configuration %q; list them with ListTaskPushNotificationConfigs", sdk.ErrInvalidParams, task, id)
}

// create checks a configuration, keeps it and starts its deliveries: the
// task as it is at the event from, then its updates.
func (p *pusher) create(ctx context.Context, c sdk.PushConfig, version string, from int64) (*sdk.PushConfig, error) {
	if err := p.checkConfig(ctx, &c); err != nil {
		return nil, err
	}
	if c.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.ID = "push-" + hex.EncodeToString(b[:])
	} else if !contextRE.MatchString(c.ID) {
		return nil, fmt.Errorf("%w: the configuration id %q must be 1 to 128 letters, digits, '-', '_', '.' or ':'", sdk.ErrInvalidParams, c.ID)
	}
	c.Tenant = ""
	p.mu.Lock()
	defer p.mu.Unlock()
	recs, err := p.records(ctx, c.TaskID)
	if err != nil {
		return nil, p.internal("reading push notification configurations", err)
	}
	replaced := false
	for _, r := range recs {
		replaced = replaced || r.Config.ID == c.ID
	}
	if !replaced && len(recs) >= MaxPushConfigs {
		return nil, fmt.Errorf("%w: task %s has %d push notification configurations, the most it may have (a2a.MaxPushConfigs); delete one first", sdk.ErrInvalidParams, c.TaskID, len(recs))
	}
	if replaced {
		p.stop(c.TaskID, c.ID)
	}
	rec := pushRecord{Config: c, Version: version, From: from}
	if err := p.put(ctx, rec); err != nil {
		return nil, p.internal("keeping a push notification configuration", err)
	}
	p.start(c.TaskID, c.ID)
	return &c, nil
}

// delete stops the deliveries of a configuration and removes it.
func (p *pusher) delete(ctx context.Context, task sdk.TaskID, id string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop(task, id)
	if err := p.claims.Release(ctx, pushClaim, claimKey(task, id)); err != nil {
		return false, err
	}
	return p.rs.DeleteRecord(ctx, run.ID(task), PushRecordKind, id)
}

// records returns the configurations of a task ("" for every task).
func (p *pusher) records(ctx context.Context, task sdk.TaskID) ([]pushRecord, error) {
	recs, err := p.rs.ListRecords(ctx, PushRecordKind, run.ID(task))
	if err != nil {
		return nil, err
	}
	out := make([]pushRecord, 0, len(recs))
	for _, r := range recs {
		var pr pushRecord
		if err := json.Unmarshal(r.Value, &pr); err != nil {
			return nil, fmt.Errorf("push configuration %s of task %s: %w", r.Key, r.Run, err)
		}
		pr.Config.TaskID = sdk.TaskID(r.Run)
		out = append(out, pr)
	}
	return out, nil
}

// put keeps a configuration's record.
func (p *pusher) put(ctx context.Context, rec pushRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return p.rs.PutRecord(ctx, run.Record{Run: run.ID(rec.Config.TaskID), Kind: PushRecordKind, Key: rec.Config.ID, Value: b})
}

// checkConfig refuses a configuration the server will not deliver to: a
// URL that is not http(s), a target on a loopback, private, link-local or
// otherwise internal address (unless Options.AllowPrivatePush), and
// authentication that cannot be sent as a header.
func (p *pusher) checkConfig(ctx context.Context, c *sdk.PushConfig) error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: the push notification url %q must be an absolute http or https URL", sdk.ErrInvalidParams, c.URL)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the push notification url must not hold credentials; send them as authentication {scheme, credentials}", sdk.ErrInvalidParams)
	}
	if err := p.checkHost(ctx, u.Hostname()); err != nil {
		return fmt.Errorf("%w: %v", sdk.ErrInvalidParams, err)
	}
	if a := c.Auth; a != nil {
		if a.Scheme == "" || strings.ContainsAny(a.Scheme, " \t\r\n:") || strings.ContainsAny(a.Credentials, "\r\n") {
			return fmt.Errorf("%w: authentication needs an HTTP scheme (e.g. Bearer or Basic) and credentials on one line; they are sent as Authorization: <scheme> <credentials>", sdk.ErrInvalidParams)
		}
	}
	if strings.ContainsAny(c.Token, "\r\n") {
		return fmt.Errorf("%w: the token must be one line; it is sent as the header X-A2A-Notification-Token", sdk.ErrInvalidParams)
	}
	return nil
}

// checkHost refuses a host that is, or resolves to, an internal address,
// unless Options.AllowPrivatePush. Delivery checks each address it dials
// again (see dialControl), so a name that resolves elsewhere later is
// refused then.
func (p *pusher) checkHost(ctx context.Context, host string) error {
	if p.opts.AllowPrivatePush {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return checkAddr(host, ip)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("the push notification host %s does not resolve: %v", host, err)
	}
	for _, ip := range addrs {
		if err := checkAddr(host, ip); err != nil {
			return err
		}
	}
	return nil
}

// errPrivateTarget is the refusal of an internal address.
var errPrivateTarget = errors.New("is an internal address (loopback, private, link-local, shared or unspecified), where this server sends no push notifications; a server that must reach such receivers sets a2a.Options.AllowPrivatePush")

// checkAddr refuses internal addresses.
func checkAddr(host string, ip netip.Addr) error {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsValid() ||
		sharedRange.Contains(ip) {
		if host == ip.String() {
			return fmt.Errorf("the push notification host %s %w", host, errPrivateTarget)
		}
		return fmt.Errorf("the push notification host %s resolves to %s, which %w", host, ip, errPrivateTarget)
	}
	return nil
}

// sharedRange is the carrier-grade NAT range (RFC 6598), internal too.
var sharedRange = netip.MustParsePrefix("100.64.0.0/10")
