// Package temporal runs byref runs on Temporal, the durable-execution
// engine, for when one process is no longer enough: many workers, runs that
// wait for days, deploys in the middle of a run. The in-process engine (a
// agent.Agent's Start) stays the default; this package is opt-in, and
// programs that do not import it do not build the Temporal SDK.
//
// # The mapping
//
//   - A run is a workflow whose ID is the run's ID (seed 001: a RunID is a
//     workflow ID). Its loop is RunWorkflow, deterministic: it decides
//     nothing from the clock or from map order, only from its input,
//     activity results, signals and workflow timers.
//   - Each model call is an activity (byref.Model), each step is an
//     activity (byref.Step). They drive an agent.Handle in driven mode
//     (agent.RunOptions.Driven), which stops before every model call
//     and step and at every await until the workflow lets it go on.
//   - Awaits (approval, question, authorization, input) are answered by
//     the signal SignalAnswer; follow-ups are the signal SignalFollowUp.
//   - Cancellation is workflow cancellation; await timeouts
//     (RunOptions.AwaitTimeout) are workflow timers.
//   - The run's snapshot is the query QuerySnapshot. The event log is the
//     same typed log as in-process, written by the workers to the
//     run.Store they share with the program that starts runs, so
//     run.Snapshot, the server and the inspector work unchanged.
//
// # Where variables live
//
// Live variables cannot travel through Temporal: a run's State, with its
// Go values, lives in one worker process. The first activity of a run
// (byref.Host) runs on the shared task queue, and whichever worker takes
// it starts the run on its Agent's runtime (built once, by NewWorker) and
// keeps it; every later
// activity of the run goes to that worker's own task queue. If that worker
// dies or stops, the activity times out (heartbeat or schedule-to-start)
// and the workflow hosts the run again on another worker, which rebuilds
// it from the recorded log (its options too) with runtime's
// Agent.Restore: variables whose
// values are JSON in the log come back (typed through Agent.Restore);
// runs that held other variables (a database handle, a browser page, a
// type the worker does not know) fail with a reason that starts with
// "interrupted" and names them. This is the same contract as the SQLite
// store's after a crash. A step whose results were not recorded when its
// worker died runs again: actions run at least once. A run lost more often
// than Timing.MaxHosts allows fails, and a run cancelled before any worker
// took it is canceled: the activity byref.Abandon, on the shared queue,
// ends its log, so that nobody waits for it.
//
// A completed, interactive run's workflow waits Timing.FollowUpWindow for
// a follow-up, then ends; a later FollowUp is refused with
// agent.ErrNotFollowable.
//
// Child runs started by agent.AsAction run inside their parent's step
// activity, on the same worker, recorded in the same store.
//
// # Use
//
// Worker processes:
//
//	c, _ := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
//	w, _ := temporal.NewWorker(c, temporal.WorkerOptions{Store: store, Agents: agents})
//	_ = w.Start()
//
// The program that starts runs (or server.Options.Engine):
//
//	e, _ := temporal.NewEngine(c, temporal.EngineOptions{Store: store})
//	r, _ := e.Start(ctx, "weather", agent.RunOptions{Task: "…"})
//	o, _ := r.Wait(ctx)
//
// Workers and starters share the store. Across machines, that is
// run/postgres: every process opens the same database
// (postgres.Open(ctx, "postgres://…", postgres.Options{})), and a
// subscriber in any of them (a server streaming a run's events) is woken
// by the database's notifications when a worker appends. On one machine,
// one SQLite file will do (run/sqlite with Options.Poll, so subscribers
// see other processes' appends within the poll). docs/deploy.md lists the
// topologies and what each promises on failure.
package temporal
