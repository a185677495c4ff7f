package main

import (
	"context"
	"fmt"
	"io"

	"github.com/byref/byref/action"
	"github.com/byref/byref/cmd/byref/demotable"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/run"
)

// replayCmd is byref replay: the Go program that replays a recorded run.
func replayCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("replay")
	db := fs.String("db", defaultDB(), "")
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
	id, err := resolveID(ctx, store, pos[0], *db)
	if err != nil {
		return err
	}
	events, err := store.Read(ctx, id, 1, 0)
	if err != nil {
		return fmt.Errorf("%w (byref runs ls lists the runs in %s)", err, *db)
	}
	sum, err := store.Get(ctx, id)
	if err != nil {
		return err
	}
	rec, err := codegen.FromEvents(events, replayActions(sum))
	if err != nil {
		return err
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		return err
	}
	_, err = stdout.Write(src)
	return err
}

// demoName is the name of the demo's runs.
const demoName = "demo"

// replayActions returns the actions of the runs this command starts, for
// their replay code: the demo's table actions for a demo run, none for the
// others (byref run and serve give the model snippets and built-ins only).
func replayActions(sum run.Summary) *action.Set {
	if sum.Name == demoName {
		return demotable.Actions()
	}
	return nil
}
