package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/byref/byref/runtime"
	"github.com/byref/byref/server"
)

// serveCmd is byref serve.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve")
	addr := fs.String("addr", server.DefaultAddr, "")
	db := fs.String("db", defaultDB(), "")
	token := fs.String("token", os.Getenv("BYREF_TOKEN"), "")
	modelSpec := fs.String("model", "", "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
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
	agent, err := runtime.New(runtime.Options{Model: model, Store: store})
	if err != nil {
		return err
	}
	s, err := server.New(server.Options{
		Store: store, Token: *token,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
		Agents: []server.Agent{{
			Name:        "byref",
			Description: "A byref agent that can run Go snippets and ask questions.",
			Runtime:     agent,
			Run:         runtime.RunOptions{ModelName: *modelSpec},
		}},
	})
	if err != nil {
		return err
	}
	defer s.Close()
	restored, interrupted, err := s.Recover(ctx)
	if err != nil {
		return err
	}
	if len(restored)+len(interrupted) > 0 {
		fmt.Fprintf(stdout, "byref: %d runs awaiting before the restart go on; %d interrupted runs are marked failed\n", len(restored), len(interrupted))
	}
	fmt.Fprintf(stdout, "byref: serving the agent \"byref\" over ACP at http://%s (runs in %s); Ctrl-C stops\n", *addr, *db)
	return s.ListenAndServe(ctx, *addr)
}
