// Package server serves byref agents over HTTP with the Agent Communication
// Protocol (ACP), so that services not written in Go can start, watch,
// answer and stop runs. It works with the official ACP clients (acp-sdk
// 1.0.3 for TypeScript, and the Python SDK); a conformance test runs the
// TypeScript client against it.
//
// An Agent is a named *runtime.Runtime (Agent.Runtime), shared by all of
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
//	                           what a stream showed
//	POST /runs/{id}            resume an awaiting run, in any of the three modes
//	POST /runs/{id}/cancel     202, the run as cancelling
//	GET  /sessions/{id}        {"id","history":[url…],"state":null}
//	GET  /resources/{id}       one message of a session's history
//
// Run IDs are UUIDs, and the run's byref ID is the same string: the run
// can be read with run.LoadSnapshot, listed with the byref command, and
// turned into replay code. Errors are ACP Error objects with the codes
// not_found (404), invalid_input (400, 413, 415 or 422) and server_error
// (401, 403, 405, 409, 500, 503). A 500 says only that an unexpected
// error occurred: what failed (a store error may name files or hold SQL)
// goes to Options.Logger.
//
// # Statuses and events
//
// byref statuses map onto ACP's: created → created, running → in-progress,
// awaiting → awaiting, cancelling → cancelling, canceled → cancelled,
// completed → completed, failed → failed (the reason becomes the run's
// error, code server_error).
//
// ACP events are a pure function of the byref event log, which is why the
// event list equals the stream: run_created gives run.created; a status
// change gives run.in-progress, run.awaiting, run.completed, run.failed or
// run.cancelled; every assistant message with text gives an output message
// (message.created, message.part, message.completed); a result that is not
// null and not the text of the last message gives one more, a text part
// for a string and otherwise an application/json part named result.json.
// Tool calls, snippets, errors, child runs and the move to cancelling are
// forwarded as generic events whose object is the byref event's JSON.
// Other byref events (phases, usage, variables) have no ACP event.
//
// Streams read the store, never the run: a slow client delays only its
// own stream (each write has Options.WriteTimeout), and a client that goes
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
// server does). A resume that loses a race with the run's status (the run
// was cancelled, or failed to move to awaiting, as the answer was being
// recorded) gives 409. The inspector's resume (below) answers 409 in both
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
// session gets that history as runtime.RunOptions.History. When a client
// forwards a descriptor, its history URLs (at most MaxHistoryURLs; more is
// refused) are the history: this server's resources are read from the
// store, others are fetched with Options.HistoryClient (refused when it is
// nil), each response at most MaxHistoryResponse (1 MiB; a larger one is
// refused, not truncated). GET /sessions/{id} lists this server's history
// of the session only.
//
// # Restarts
//
// On a durable store (run/sqlite), call Server.Recover once after New and
// before serving: runs a previous process left running are marked failed
// as interrupted, and runs it left awaiting are restored on a fresh
// runtime of their agent, so they can be resumed and cancelled as before
// (when their variables are JSON values; otherwise they too are marked
// interrupted). byref serve does this at start.
//
// # Engines
//
// By default every run executes in the server's process. Options.Engine
// runs them elsewhere instead (e.g. as durable workflows on worker
// processes), behind the same endpoints: the server starts a run with
// Engine.Start and controls it (resume, cancel, follow-up) through the
// runtime.Controller it returns, and reads its events from the store it
// shares with the engine. A run the server does not hold (another server
// process sharing the store and the engine started it, or this one before
// a restart) is controlled through Engine.Control. With an engine,
// Agent.Runtime may be nil, Close leaves the runs going, and Recover refuses:
// the engine recovers its own runs.
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
//	                                    ?from= or Last-Event-ID; "event: end" when
//	                                    terminal
//	POST /ui/api/runs/{id}/resume       {"await_id","answer":run.Answer}
//	POST /ui/api/runs/{id}/cancel       {}
//	POST /ui/api/runs/{id}/follow-up    {"text"}: a completed run, among the
//	                                    latest MaxFollowable of this process
//	                                    (with an engine, any the engine holds)
//	GET  /ui/api/runs/{id}/replay       the Go replay program (byref replay);
//	                                    ?download=1 as an attachment
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
// must carry Authorization: Bearer TOKEN. Bodies are limited to
// Options.MaxBody. Input must be text (text/* or application/json parts,
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
// trace, its logger fields) but not its cancellation, and Close cancels
// them (an engine's runs go on after Close).
package server
