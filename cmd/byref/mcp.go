package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/mcp/mcpserver"
)

// mcpUsage is the help of byref mcp.
const mcpUsage = `byref mcp [flags]                serve the agent "byref" as an MCP tool (it takes a task and
                                 returns the run's result), over stdio by default
      --http host:port           serve MCP's streamable HTTP transport instead, on a loopback
                                 address (127.0.0.1:PORT)
      --model, --db              as for run
`

// mcpCmd is byref mcp: the CLI's agent, served over MCP. Over stdio,
// standard output carries the protocol only; logs go to standard error.
func mcpCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("mcp")
	addr := fs.String("http", "", "")
	db := fs.String("db", defaultDB(), "")
	modelSpec := fs.String("model", "", "")
	help := fs.Bool("help", false, "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *help {
		fmt.Fprint(stdout, mcpUsage)
		return nil
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *addr != "" {
		if err := loopback(*addr); err != nil {
			return usagef("--http %s: %v", *addr, err)
		}
	}
	model, err := openModel(*modelSpec)
	if err != nil {
		return err
	}
	store, err := openStore(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	ag, err := agent.New(agent.Options{Model: model, Store: store, Logger: log})
	if err != nil {
		return err
	}
	defer ag.Close(context.Background())
	s, err := mcpserver.New(mcpserver.Options{
		Logger: log,
		Agents: []agent.Child{{
			Name:        "byref",
			Description: "A byref agent that can run Go snippets. Give it a task, in full; it returns the run's result.",
			Agent:       ag,
			Run:         agent.RunOptions{ModelName: *modelSpec, Name: "byref mcp"},
		}},
	})
	if err != nil {
		return err
	}
	if *addr == "" {
		err := s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler(&sdk.StreamableHTTPOptions{Logger: log}), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "byref: serving the agent \"byref\" over MCP at http://%s (runs in %s); Ctrl-C stops\n", ln.Addr(), *db)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// A client's standalone event stream never ends by itself: give
		// requests in flight a second, then close what is left.
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if hs.Shutdown(shut) != nil {
			hs.Close()
		}
		<-errc
		return nil
	}
}

// loopback refuses an address that is not a loopback one: the MCP server
// has no authentication.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("the MCP server has no authentication, so it serves loopback addresses only (127.0.0.1:PORT)")
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
