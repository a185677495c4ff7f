// Package server serves byref agents over HTTP with the Agent Communication
// Protocol (ACP), so that services not written in Go can start, watch,
// answer and stop runs. It works with the official ACP clients (acp-sdk
// 1.0.3 for TypeScript, and the Python SDK); a conformance test runs the
// TypeScript client against it.
//
// An Agent is a named *agent.Agent (Agent.Agent), shared by all of
// its runs and recording into the server's store, and Agent.Run is the
// template of the run's options. A run outlives the request that started
// it; Close cancels the runs still going. New returns a Server,
// an http.Handler; ListenAndServe serves it on 127.0.0.1 by default.
//
// # Endpoints
//
//	GET  /ping                 {}
//	GET  /agents               {"agents":[manifest…]}
//	GET  /agents/{name}        manifest
//	POST /runs                 start a run: mode sync (200 once completed,
//	                           failed, cancelled or awaiting), async (202,
//	                           the run as created) or stream (server-sent events)
//	GET  /runs/{id}            the run
//	GET  /runs/{id}/events     {"events":[…]}: every event so far, equal to
//	                           what a stream showed, less its live parts
//	POST /runs/{id}            resume an awaiting run, in any of the three modes
//	POST /runs/{id}/cancel     202, the run as cancelling
//	GET  /sessions/{id}        {"id","history":[url…],"state":url}
//	GET  /sessions/{id}/state  the session's state (SessionState)
//	GET  /resources/{id}       one message of a session's history
//
// Run IDs are UUIDs, and the run's byref ID is the same string: the run
// can be read with run.LoadSnapshot, listed with the byref command, and
// turned into replay code. Errors are ACP Error objects, on every path
// (one the mux would clean, such as /runs/../agents, is 404 rather than a
// redirect), with the codes not_found (404), invalid_input (400, 405, 413,
// 415 or 422) and server_error (401, 403, 409, 500, 503). Their messages
// speak of the JSON the client sent, never of the Go types it decodes into.
//
// The input of a run is a list of messages whose roles are user, agent or
// agent/NAME (a missing role is user; anything else, system included, is
// 422). Its task is the text of the user messages after the last agent
// message; the messages before are history, user messages as the user's
// and agent messages as the model's, after the session's own history. An
// input that ends with an agent message is refused. A 500 says only that an unexpected
// error occurred: what failed (a store error may name files or hold SQL)
// goes to Options.Logger.
//
// # Statuses and events
//
// byref statuses map onto ACP's: created → created, running → in-progress,
// awaiting → awaiting, cancelling → cancelling, canceled → cancelled,
// completed → completed, failed → failed. A failed run's error holds the
// reason as its message and, when the log says why (run.Error.Failure:
// run.FailureKind), the kind as data {"kind": …}; the kind gives the code:
// invalid_input for run.FailureInvalidInput (an action returned
// run.Fail(run.FailureInvalidInput, …)), server_error for the others
// (model_error, timeout, action_error, interrupted, refusal, gave_up: the
// model gave up, its reason in the message…) and for a
// failure of no kind.
//
// ACP events are a pure function of the byref event log, which is why the
// event list equals the stream: run_created gives run.created; a status
// change gives run.in-progress, run.awaiting, run.completed, run.failed or
// run.cancelled; every assistant message with text gives an output message
// (message.created, message.part, message.completed); a result that is not
// null and not the text of the last message gives one more, a text part
// for a string and otherwise an application/json part named result.json.
// Output of other content types comes from variables a step creates or
// changes: a run.Artifact (or *run.Artifact) is a message of one named
// part, a []run.Artifact one message of several parts (a part without a
// name is a plain part), each with its own content type; a value of a type
// that implements run.Media (a browser.Screenshot, image/png) is a message
// of one part named after the variable, with no configuration; and so is a
// variable of one of Agent.Outputs' Go types (a CSV type as text/csv).
// Text types are sent plain, others base64.
//
// An agent's manifest lists Agent.InputContentTypes (input parts of other
// types are refused, 422, with an invalid_input error naming the accepted
// types), Agent.OutputContentTypes and Agent.Metadata. Unnamed text parts
// (text/*, application/json) make the task; every other input part (an
// image/png part, or any named part: an ACP artifact) reaches the run as a
// starting variable of type run.Artifact (name, content type, bytes),
// named after the part (photo.png gives photo; input, input_2… when it
// has no name), and the task names those variables.
//
// Tool calls, snippets, errors, child runs, progress (agent.Progress),
// the move to cancelling and compactions of the run's context are
// forwarded as generic events whose object is the byref event's JSON.
// Before run.awaiting, run.completed, run.failed and run.cancelled, a
// generic event {"type":"usage","data":…} gives the run's tokens so far,
// with the parts of the input the provider's prompt cache read and wrote
// (cache_read_tokens, cache_write_tokens), when the model reported any.
// Other byref events (phases, variables) have no ACP event.
//
// # Live text
//
// A stream also shows what a run in this process is writing as it is
// written (the run's live deltas, run.Delta: see agent.Handle.Events),
// which the log does not keep: when the model streams, its text opens a
// message (message.created) whose parts arrive as message.part events,
// one per piece, as ACP allows for streamed parts; message.completed then
// carries the whole message, which is what the event list (GET
// /runs/{id}/events) has: it equals the stream less message.created and
// message.part of streamed messages and generic "delta" events. Other
// deltas (a call's arguments as they form, a snippet's output lines,
// reasoning) are generic events whose object is the delta event's JSON
// (type "delta", seq 0). Follow offers the same to other protocols.
//
// Streams read the store, and a local run's deltas, never wait on the
// run: a slow client delays only its own stream (each write has
// Options.WriteTimeout; a client too far behind gets the completed
// messages in place of the pieces it missed), and a client that goes
// away does not cancel the run. A stream ends after run.awaiting or a
// terminal event; a resume stream starts with the events after the resume,
// the first of which is run.in-progress.
//
// # Awaits
//
// When a run awaits, its await_request is {"type":"message","message":…}
// with two parts: a text/plain part that says what is asked and how to
// answer, and an application/json part named await.json holding the byref
// run.AwaitRequested (id, kind, call with its resolved references, snippet,
// link, deadline). The text is
//
//	approval of a call     Approve the call NAME(ARGS)? then one line per
//	                       reference, "param = <<var:name>> (type): preview"
//	approval of a snippet  Approve running this Go code? and the code
//	approval of a plan     the plan
//	question               the question itself
//	authorization          the message and "Authorize at: LINK"
//	input                  the message, and that JSON is expected
//
// The resume message (await_resume.message) maps onto a run.Answer:
//
//	approval, authorization  "approve" (or approved, yes, y, ok, allow, done,
//	                         authorized) → Approved; "deny: REASON" (or
//	                         denied, no, n, reject) → Denied with the reason;
//	                         a JSON object (text, or an application/json part)
//	                         → Approved with those edited arguments (approval
//	                         of a call only); anything else → 422
//	question                 the text parts, joined by newlines; an empty
//	                         message answers NoAnswer
//	input                    the application/json part, else the text if it is
//	                         JSON, else the text as a JSON string
//
// Resuming a run that awaits nothing gives 403 (as the Python reference
// server does). Resume and cancel of a run are linearizable: of a resume
// and a cancel that race, exactly one wins and the other gets 409 with the
// run's status (in the message and in data.status); a resume of a
// cancelled run, and a cancel of a run that has ended, are 409 too. The inspector's resume (below) answers 409 in both
// cases: it follows no reference server, and both mean the run has moved
// on.
//
// # Sessions
//
// Every run has a session: the one the request names (session_id, or a
// forwarded session descriptor), else a new one. A session's history is
// the messages of its latest MaxHistoryRuns (50) completed runs, oldest
// first, and at most the latest MaxHistoryURLs (500) messages: each run's
// input (its text, as one user message) and its output. A new run in the
// session gets that history as agent.RunOptions.History. When a client
// forwards a descriptor, its history URLs (at most MaxHistoryURLs; more is
// refused) are the history: this server's resources are read from the
// store, others are fetched with Options.HistoryClient (refused when it is
// nil), each response at most MaxHistoryResponse (1 MiB; a larger one is
// refused, not truncated), and at most MaxHistoryFetched (4 MiB) in all.
// GET /sessions/{id} lists this server's history of the session only.
//
// A new run in the session also starts with the variables the session's
// earlier runs left (see "Sessions" in package agent), which is the
// session's state: GET /sessions/{id} gives its URL as "state", and GET
// /sessions/{id}/state returns it as a SessionState, {"variables": {name:
// {"type", "preview", "secret"}}}, the same shape AG-UI's thread state
// has (a secret's preview is "(secret)"; no value is shown). The
// variables come from this server's store: a forwarded descriptor's state
// is not fetched, so a session moved to a server without its runs goes on
// with its history and without its variables.
//
// What a request expands is bounded in bytes, so that its cost follows
// its size: the messages a descriptor names may hold at most
// Options.MaxHistoryBytes (2 MiB by default) in all, however often they
// name one resource, and a request over it is refused with 413 naming the
// limit; a session's own history keeps its latest messages within it. The
// history all requests expand at once is bounded by
// Options.MaxHistoryInFlight (32 MiB): a request that would go over it is
// refused with 413, Retry-After and the limit's name.
//
// What a history lookup costs is bounded: a request reads the summary of
// each run its history names (at most MaxHistoryURLs) and the log of each
// distinct run at most once, of at most MaxHistoryRuns runs (a descriptor
// naming more is refused). Folded conversations are cached, the latest
// HistoryCacheRuns runs', and used as long as their run's log has not
// grown: naming one large resource 500 times reads its log once.
//
// # Stopping and restarting
//
// Server.Close (and Serve, when its context is done: on SIGTERM or Ctrl-C
// in byref serve) stops without losing a run. It refuses new runs,
// resumes and follow-ups (503), lets the steps of running runs go on to
// their next pause or end for up to Options.ShutdownGrace, and then
// closes the agents' runtimes (agent.Agent.Close), which stops the
// runs without cancelling them: an awaiting run stays awaiting in the
// store, and a run still in a step is marked failed as interrupted.
// Serve stops accepting connections at once and lets requests in flight
// end; a stream ends as its run pauses or ends.
//
// On a durable store (run/sqlite, run/postgres), call Server.Recover once
// after New and before serving: runs a previous process left running (it crashed) are
// marked failed as interrupted, and runs it left awaiting are restored on
// their agent's runtime, so they can be resumed and cancelled as before:
// variables come back from the JSON values in the log, and those the log
// holds no value of (a live *Notes, a database handle) are the agent's
// starting variables of the same name; a run that still lacks one, or
// whose agent is gone, is marked failed as interrupted. byref serve does
// this at start.
//
// # Replicas
//
// Several servers serve the same agents from one shared store when each
// has Options.Replicas (a *postgres.Replica of the store; byref serve
// --store postgres://… does this): Recover joins them instead of
// recovering. Any replica answers any run: a run executes on the replica
// that started it (its owner, by a lease in the database); the others read
// it and stream its events and live deltas from the store, and forward its
// resumes, cancels and follow-ups to the owner. When a replica stops or
// dies, another takes its runs over: it records so in each run's log (a
// run.Progress without a call), restores the run from its log as Recover
// does (a run that was running goes on from its last recorded step), and
// calls the OnTakeOver funcs; a request for such a run waits for the
// takeover. Protocols claim their background work (Claim: A2A push
// deliveries), so one replica does it. A replica that loses its
// connection to the database abandons its runs (agent.Agent.Abandon:
// nothing more is recorded) and closes, and Serve returns ErrLeaseLost.
//
// # Engines
//
// By default every run executes in the server's process. Options.Engine
// runs them elsewhere instead (e.g. as durable workflows on worker
// processes), behind the same endpoints: the server starts a run with
// Engine.Start and controls it (resume, cancel, follow-up) through the
// agent.Controller it returns, and reads its events from the store it
// shares with the engine. A run the server does not hold (another server
// process sharing the store and the engine started it, or this one before
// a restart) is controlled through Engine.Control. With an engine,
// Agent.Agent may be nil, Close leaves the runs going, Recover refuses
// (the engine recovers its own runs), and input parts that would become
// variables are refused with invalid_input: an engine's run starts from its
// serializable spec, which holds none.
//
// # Other protocols
//
// Other protocols are served beside ACP on the same server through
// StartRun and Control (runs started and controlled as POST /runs does,
// on the same store and engine), Handle (an endpoint behind the same
// guards and body limit) and HandlePublic (a public document, such as an
// agent card). Package a2a serves Agent2Agent this way.
//
// # Run inspector
//
// GET /ui is a web page (HTML, CSS and JavaScript embedded in the binary)
// to watch, answer and replay the runs of the server's store: a list with
// status and tag filters, and for one run its events as they happen, its
// variables with their history, a form for what it awaits, cancel,
// follow-up and its replay code. The page calls these endpoints, which
// take the token like every other:
//
//	GET  /ui/api/runs                   {"runs":[run.Summary…],"next":cursor};
//	                                    ?status=a,b &tag=k=v (at most
//	                                    run.MaxQueryTags) &session= &limit= &cursor=
//	GET  /ui/api/runs/{id}              {"snapshot":run.Snapshot,"can":{resume,
//	                                    cancel,follow_up,why}} (no variable values)
//	GET  /ui/api/runs/{id}/events       server-sent events: "id: SEQ", "data:
//	                                    run.Event JSON" (no variable values), from
//	                                    ?from= or Last-Event-ID, with the live
//	                                    deltas (no id) between; "event: end" when
//	                                    terminal
//	POST /ui/api/runs/{id}/resume       {"await_id","answer":run.Answer}
//	POST /ui/api/runs/{id}/cancel       {}
//	POST /ui/api/runs/{id}/follow-up    {"text"}: a completed run, among the
//	                                    latest MaxFollowable of this process
//	                                    (with an engine, any the engine holds)
//	GET  /ui/api/runs/{id}/replay       the Go replay program (byref replay);
//	                                    ?download=1 as an attachment
//	GET  /ui/api/sessions/{id}          {"id","runs":[id…],"messages":[run.
//	                                    SessionMessage…],"state":SessionState}:
//	                                    what the page shows beside a run of
//	                                    a session
//
// The page's own files hold no data and are served without the token; the
// page asks for the token once and keeps it in the tab's sessionStorage.
// Its API passes the same guards as the ACP endpoints (# Security), and
// every POST to it must be application/json, even without a body.
//
// # Security
//
// ListenAndServe binds 127.0.0.1 by default and refuses any other address
// unless Options.Token is set; with a token, every request but GET /ping
// must carry Authorization: Bearer TOKEN (the scheme in any case). A
// request refused before its body is read is answered at once and its
// connection closed. Bodies are limited to Options.MaxBody, reading a
// request to Options.ReadTimeout, each response write to
// Options.WriteTimeout and idle connections to Options.IdleTimeout: a
// client that sends slowly or not at all holds a goroutine no longer than
// the read timeout. Input must be text (text/* or application/json parts,
// plain or base64); content_url parts are refused.
//
// A web page the user visits can send requests to a server on loopback, so
// every endpoint but GET /ping and the inspector's page files refuses
// (Server.guard): a request a browser marks as sent by another site
// (Sec-Fetch-Site: cross-site or same-site; 403); a request body, or a
// Content-Type, other than application/json (415), since a page can send
// text/plain or a form anywhere without a CORS preflight but not JSON (a
// POST with neither, an ACP client's cancel, is accepted); and, without a
// token, a Host other than localhost, 127.0.0.1, ::1 or that of
// Options.BaseURL (403), against DNS rebinding. The server grants no CORS.
//
// Runs outlive the request that started them: they keep its values (its
// trace, its logger fields) but not its cancellation, and Close stops
// them as above (an engine's runs go on after Close).
package server
