package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/byref/byref/codegen"
)

// replayCmd is byref replay: the Go program that replays a recorded run,
// from its log alone (the log records each action's Go identity). With
// --actions pkg.Func, the program's main fills the actions it cannot call
// by import path (closures, methods) from that function's action set.
// With --package name=path (repeatable), a host package the run's
// snippets name (model2) is imported from path, for a log that does not
// say which package that is.
func replayCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("replay")
	db := fs.String("db", defaultDB(), "")
	actions := fs.String("actions", "", "")
	packages := map[string]string{}
	fs.Func("package", "", func(v string) error {
		name, path, ok := strings.Cut(v, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("--package takes NAME=IMPORTPATH, as in model2=example.com/b/model; got %q", v)
		}
		packages[name] = path
		return nil
	})
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("say which run: byref replay RUN_ID (byref runs ls lists them)")
	}
	store, err := openExisting(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	_, events, err := readRun(ctx, store, pos[0], *db)
	if err != nil {
		return err
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		return err
	}
	for name, path := range packages {
		rec.Packages[name] = path
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSetFunc: *actions})
	if err != nil {
		return err
	}
	_, err = stdout.Write(src)
	return err
}

// demoName is the name of the demo's runs.
const demoName = "demo"
