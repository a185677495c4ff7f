package a2a

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// CardPath is where an A2A agent serves its card, under its URL.
const CardPath = "/.well-known/agent-card.json"

// ClientOptions configures the client side: ResolveCard, NewClient,
// Import and Call. The zero value works.
type ClientOptions struct {
	// Token, when set, is sent as Authorization: Bearer <token> with
	// every request, the card's too.
	Token string
	// HTTPClient sends the requests. Nil means a client without a
	// timeout (streams last as long as the task), with a 30-second
	// dial and response-header timeout.
	HTTPClient *http.Client
}

// httpClient returns the HTTP client the options describe.
func (o ClientOptions) httpClient() *http.Client {
	c := o.HTTPClient
	if c == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 30 * time.Second
		c = &http.Client{Transport: tr}
	}
	if o.Token == "" {
		return c
	}
	cc := *c
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = bearer{token: o.Token, next: base}
	return &cc
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// ResolveCard reads the card of the agent at url: url itself when it ends
// in .json, else url + CardPath. Cards of v1.0 and of v0.3 are read.
func ResolveCard(ctx context.Context, url string, opts ClientOptions) (*sdk.AgentCard, error) {
	base, path := strings.TrimRight(url, "/"), CardPath
	if strings.HasSuffix(base, ".json") {
		i := strings.LastIndex(base, "/")
		base, path = base[:i], base[i:]
	}
	r := &agentcard.Resolver{Client: opts.httpClient(), CardParser: a2av0.NewAgentCardParser()}
	card, err := r.Resolve(ctx, base, agentcard.WithPath(path))
	if err != nil {
		return nil, fmt.Errorf("a2a: reading the agent card at %s%s: %w", base, path, err)
	}
	if len(card.SupportedInterfaces) == 0 {
		return nil, fmt.Errorf("a2a: the agent card at %s%s lists no interface to call", base, path)
	}
	return card, nil
}

// NewClient reads the card of the agent at url and returns an SDK client
// for it, speaking v1.0 or v0.3 over JSON-RPC as the card offers, and the
// card. Call the client's Destroy when done.
func NewClient(ctx context.Context, url string, opts ClientOptions) (*a2aclient.Client, *sdk.AgentCard, error) {
	card, err := ResolveCard(ctx, url, opts)
	if err != nil {
		return nil, nil, err
	}
	hc := opts.httpClient()
	c, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []sdk.TransportProtocol{sdk.TransportProtocolJSONRPC}}),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("a2a: connecting to the agent %s: %w", card.Name, err)
	}
	return c, card, nil
}
