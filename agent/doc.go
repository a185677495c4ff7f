// Package agent is where variables, actions and the model meet.
//
// An [Agent] holds actions, a model, a store, a logger, a tracer and
// options, built once by [New] and safe for concurrent use, like *sql.DB.
// It runs any number of runs at once ([Agent.Start], [Agent.Run]); each
// run has its own [State]: its variables, the compatibility matrix between
// them and the actions (which variables can be passed by reference to which
// parameter) and its Go interpreter. A State knows which actions are
// available, writes the schemas the model sees and executes the model's
// instructions one step at a time. Its step history ([State.History]) is a
// fold of the run's log (run.History), not a second record: a run
// restored after a restart has the steps it made before it.
//
//	a, _ := agent.New(agent.Options{Actions: set, Model: model})
//	out, _ := a.Run(ctx, agent.RunOptions{Task: "...", Variables: vars})
//
// Sharing between runs is explicit: Options.Variables start every run,
// RunOptions.Variables start one, and [State.Specs] starts a run from
// another run's variables (values are not copied).
//
// # Executing a step
//
// [State.Execute] takes a [Step]: Go snippets and tool calls exactly as a
// model sends them (a name, a JSON argument string and a call ID). Snippets
// run first, in the interp sandbox, over the same variables: a snippet's
// new top-level variables can be referenced by the step's calls, and it
// calls actions as Go functions of their parameters (an action of one
// arguments struct takes one argument per field, in the order of its tool
// schema). Each call
// is validated, its <<var:name>> references resolved (they must exist and
// be compatible), its raw values decoded into the parameters' Go types, and
// the function called with the step's context and a deadline. Panics are
// recovered. The result goes to a new variable with a readable name
// (get_weather → weather), or to an existing compatible variable the model
// named in "return" (the schemas do not offer it; the runtime accepts it). A failing call never fails the step: the model gets a
// [ToolResponse] whose error says how to fix the call, and no variable
// changes. Variables that a call or a snippet changed in place (through a
// pointer, a slice or a map) are reported as modified.
//
// Each call is parsed and resolved once, right before it runs; the
// resolution (each argument a reference, a raw value or a default, and the
// return target) goes through approval and execution and is recorded in
// the log (run.Resolution in run.ToolCallCompleted). A string argument is a
// reference if and only if it is exactly <<var:NAME>>; one that only
// resembles a reference is refused where a reference could go, "return"
// takes a bare name, and duplicate keys are refused. Failures reach the
// host typed in ToolResponse.Err and SnippetResponse.Err ([RefusedError],
// [ActionError], [ErrCallTimeout], the interpreter's errors).
//
// The built-in actions are terminate (end the run with a result, or give
// up), run_go (a snippet sent as a tool call, whose one argument is the
// code: {"code": "top := orders[0]\nfmt.Println(top.ID)"}; see
// Options.DisableSnippets) and, in interactive runs, ask_user. Each is a row of the action table that
// carries its own behaviour.
//
// # Bounded calls
//
// Every call of a run is bounded by Options.CallTimeout, by default,
// whether or not its action honours its context. A run's steps run on one
// step goroutine, kept from step to step; the run's loop waits for it and
// is the run's watchdog. A call past its deadline, or still running
// Options.CancelGrace after its step was cancelled, is abandoned: it fails
// with [ErrCallTimeout] (or the cancellation's cause), the step goes on on a
// fresh step goroutine, and the late result is discarded. A bare State's
// Execute runs on the caller's goroutine and returns when the action does;
// a result later than the deadline is discarded there too.
//
// # Runs
//
// [Agent.Run] and [Agent.Start] drive the model over a new State until
// it calls terminate, answers in plain text, or a limit ([Limits]) is
// reached. A run's life is its own: the context given to Start bounds the
// start (its values reach the run's actions, its cancellation does not);
// the run ends when it finishes, when it is cancelled, or when the agent
// is closed ([Agent.Close]). Its spec (task, input, schemas, tags,
// limits, approval strategy, model name: [SpecOf]) is recorded whole in its
// first event, and every change after it is an event in the run's log, in
// Options.Store (an in-memory store unless set; package run/sqlite is the
// durable one);
// the run's state is a fold of its events (run.Snapshot). A run whose model
// gives up (terminate with success false) fails with run.FailureGaveUp, the
// model's reason kept in the failure's message, so that a host or protocol
// client that reads the status sees it; a run that reaches a limit
// completes with a null result. Faults of the runtime, of the model
// provider after retries, or of the store fail a run, and so do answers
// that are not answers: a refusal or a content-filter stop fails the run
// with run.FailureRefusal or run.FailureContentFilter (keeping what the model
// said), and an answer cut by the output token limit fails it with
// run.FailureMaxTokens instead of becoming the result or running a tool
// call whose arguments are cut. The kind is in run.Snapshot.FailureKind.
//
// A [Handle] follows a started run: Wait, Events (stored, then live, with
// the live deltas between them: see below),
// Snapshot, Cancel (two-step: cancelling, then canceled once running
// actions have returned), FollowUp (a completed run goes on with its
// variables and history), and Pending and Resume for what the run awaits.
//
// # A run's three parts, and the fold of its log
//
// A run is three parts, each a type that owns its fields and its lock, and
// a log that is the truth of all three:
//
//	                 Handle: the run's control
//	lifecycle (Begin, Wait, Cancel, FollowUp), its awaits (Pending,
//	Resume) and the loop of each turn (model call, step, outcome)
//	        │ asks for a step                │ asks for a request
//	        ▼                                ▼
//	State: the executor              conversation: what the model
//	variables, matrix, schemas;      is sent (system prompt, messages)
//	resolve, call, commit,           and what its requests keep fixed
//	snippet (one step at a time)     (tools, cache key)
//	        │ the step's events              ▲ apply(event), once each
//	        ▼                                │
//	═══════════ the run's log (Options.Store) ═══════════════════
//	  every batch appended ──► conversation.fold(batch)
//	  Restore reads the log ──► conversation.fold(events)
//
// The conversation is a fold of the log: one method applies a logged
// event to the messages (the task and follow-ups with the host variables
// they announce, the model's answers and the calls they scheduled, tool
// and snippet results, refused calls, invalid-result answers, the summary
// of a compaction, which replaces what follows the task). The run's
// recorder applies each batch it appends, and Restore applies the events
// it reads with the same method, so a restored run sends what the run
// would have; nothing else writes the messages (internal/archtest checks).
// The one part of a request that is not in the log when it is first sent
// is the system prompt, written from the starting variables and recorded
// with the first model call (run.Usage.System). What begins a turn (the
// task, a follow-up) is recorded with the status change that begins it,
// so a run restored at any event boundary sends the request the run sent
// next; restored between a step whose terminate call succeeded and the
// record of the turn's end, it asks its model again.
//
// # Live runs
//
// When the model implements llm.Streamer, the run streams each model call
// and its pieces (text, reasoning, a tool call's arguments) reach the
// followers of [Handle.Events] as they arrive, as live-only run.Delta
// events (sequence number 0) tagged with their step and call; so does a
// snippet's output, line by line. The log keeps each completed message
// once, not its pieces: with streaming, it holds the same events as
// without. A follower that joins late reads the log, then the deltas of
// the message being written and on; one that falls more than
// [MaxLiveBuffer] behind loses deltas until the log's next event (the
// completed message). A run never waits for a follower.
//
// # What the model reads: an append-only context
//
// Providers bill per run, with a prompt cache: the part of a request that
// repeats an earlier request byte for byte, from its first byte, is read
// from the cache at a fraction of the price. So from the second request of
// a run on, each request begins with the previous one: tools, system
// prompt, then messages, each appended once and never rewritten.
//
//   - The tool list is built at the run's first request and sent unchanged:
//     the same tools, in the same order, with the same bytes. A parameter
//     that takes references offers the reference pattern whether or not a
//     variable fits it yet (schema.Param.Referable), never the list of
//     compatible variables; in reference mode the list holds the actions
//     whose reference-only parameters no variable fits yet too, and a call
//     made before one exists is refused with the action that makes one.
//     Relevance selection (RunOptions.ToolLimit) chooses once, from the
//     task.
//   - The system prompt is written once, from the starting variables. A
//     variable made later is announced in the tool result or snippet
//     result that made it, with its type and preview; one the host defines
//     between turns, in the follow-up message.
//   - Follow-ups, approvals, answers and denials append. The messages are
//     the fold of the run's log (see "The fold" below), so a restored run's
//     next request begins with the bytes sent before: the log records what
//     cannot be rebuilt from the other events (the system prompt in
//     run.Usage.System, a result's text in run.ToolCallCompleted.Content,
//     a follow-up with its announcements in run.UserMessage.Sent, the
//     answer to a rejected plan or an invalid result in run.Error.Sent and
//     Refused).
//   - Each request carries llm.Request.CacheKey, derived from the tools and
//     the system prompt, which OpenAI's client sends as prompt_cache_key;
//     Anthropic's client marks the cache breakpoints (cache_control).
//     Outcome.Usage and run.Snapshot count the cache's reads and writes,
//     and Options.Prices gives Outcome.Cost.
//
// # Compaction
//
// When the next request would pass Limits.CompactAt tokens (by default
// ContextShare of ContextWindow), the run compacts once: every message
// after the task becomes one summary the runtime writes from the log,
// which names each earlier step's calls and snippets and the variables
// they made, by reference with a one-line preview (past a quarter of the
// threshold, the oldest steps are named by their variables only). The
// values stay in the run's variables, so nothing is lost and the model can
// still pass any of them by reference. The compaction is an event
// (run.ContextCompacted, with the summary as sent) that the inspector,
// runs show and Snapshot.Compactions show and that Restore replays; tool
// selection may choose again. With Limits.ModelSummary (off by default)
// the model also writes a summary of what it folds, in one call without
// tools, which is added to the runtime's. After it the context is
// append-only again.
//
// # Awaits
//
// A run waits for a human when its approval strategy says so
// ([ApproveOnStart]: the plan; [ApproveOnToolCall]: every call and
// snippet, shown with its references resolved), when an action declared
// NeedsApproval is called, when the model calls ask_user, and when an
// action returns action.AuthorizationRequired or action.InputRequired (the
// call is made again after the answer). Options.Answer answers in the
// process; otherwise [Agent.Run] returns the await in its [Outcome], and
// [Agent.Resume] (or [Handle.Resume]) answers; an answer that does not
// fit what is pending is refused with [ErrAwaitMismatch].
// RunOptions.AwaitTimeout fails a run whose await is not answered in time.
//
// # Child runs, relevance, restarts, observation
//
// [AsAction] turns an agent into an action of another agent: each call
// is a child run linked explicitly to its parent run and tool call
// (RunOptions.Parent, [ParentOf]). With more actions
// than RunOptions.ToolLimit, a run offers the most relevant ones for its
// task (BM25 over names and descriptions), chosen at its first request and
// again, with those whose references are in play first, only at a
// compaction.
// After a restart, [Recover] marks orphaned runs interrupted and [Restore]
// brings awaiting runs back from the log (their options too) when their
// variables are JSON values (an engine that knows a run's process is gone restores running and
// completed runs too). A run started with RunOptions.Driven stops before
// every model call and step, at every await and at the end of every turn
// until Handle.Advance lets it go on: package temporal drives runs this way,
// one activity per model call and per step, and every engine's runs are
// controlled through the Controller interface. Options.Logger receives logs and Options.Tracer sees every run,
// model call, step, tool call and snippet (package otel adapts
// OpenTelemetry).
//
// # Sessions
//
// Runs with one RunOptions.Session are one conversation (an ACP session,
// an AG-UI thread, an A2A context, a chat), and a session is a fold of its
// runs' logs (run.Session, [Agent.Session]): the messages they exchanged
// and the variables they left, each in the state the latest run to touch
// it left it. A new run of a session starts with those variables, under
// the same names, before its own (RunOptions.Variables, which win over the
// session's of the same name): they are starting variables, recorded at
// step 0 of its log and listed in its system prompt, which stays fixed for
// the run. Its history is the host's to give ([HistoryOf] turns a
// session's messages into RunOptions.History).
//
// A variable comes back from, in order: the run or the agent that holds
// it in this process (the agent holds the variables of the
// Options.SessionCache sessions whose runs ended last, live values
// included; [Agent.ForgetSession] lets one go); the log's JSON value,
// typed by a Go type the agent knows (its actions' parameters and
// results, Options.Variables, Options.Types); or Options.Rebind, which
// the host answers by name and type name. A variable that comes back
// none of these ways (a live value after a restart or on another process,
// a secret) is named in the system prompt as gone, with why, unless the
// agent's own Options.Variables has one of that name. Secret and tainted
// variables stay so. RunOptions.NoSessionVariables starts a run without
// its session's variables; a variable.Spec with RunOnly is not carried.
//
// # Concurrency
//
// An Agent is immutable and safe for concurrent use; runs on it never
// share state. A State is safe for concurrent use: steps execute one at a
// time (concurrent Execute calls are serialised by its executor's lock),
// variables may be read and set while a step runs (the State's lock guards
// them), and a call's result is committed after the call returns. A
// Handle's lock guards its lifecycle; its awaits and its conversation have
// locks of their own, and the loop of a turn owns what it counts.
package agent
