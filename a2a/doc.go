// Package a2a speaks Agent2Agent (A2A), the protocol ACP merged into: it
// serves byref agents to A2A clients beside the ACP server, and calls
// remote A2A agents as byref actions. It is built on the official Go SDK
// (github.com/a2aproject/a2a-go/v2, v2.3.1) and speaks protocol v1.0 over
// JSON-RPC, and v0.3 on the same endpoint.
//
// # Serving
//
// Mount serves a server.Server's agents over A2A on the server itself:
//
//	GET  /.well-known/agent-card.json             the root card: every agent as a
//	                                              skill; its endpoint is the first agent's
//	GET  /a2a/{name}/.well-known/agent-card.json  the agent's card
//	POST /a2a/{name}                              the agent's JSON-RPC endpoint
//
// Cards are public (clients read them before they authenticate) and are
// written in the union of the v1.0 and v0.3 shapes. Each has the agent's
// name and description, its skills (Options.Skills, else one per action of
// its runtime), text/plain and application/json as input and output
// modes, streaming, push notifications when the store keeps records (see
// Push notifications), and, when the server wants a
// token (Options.Token), an HTTP bearer security scheme. The endpoints
// pass the ACP server's guards: the bearer token, the refusal of
// cross-site requests, of bodies that are not JSON and of foreign hosts,
// and its body limit (413, JSON-RPC -32600).
//
// The A2A-Version header (or query parameter) picks the protocol: 1.0
// (any 1.0.x) is v1.0 (SendMessage, SendStreamingMessage, GetTask,
// CancelTask, SubscribeToTask); a missing header means 0.3, as the
// specification says (message/send, message/stream, tasks/get,
// tasks/cancel, tasks/resubscribe); any other version is answered -32009
// (VersionNotSupported). ListTasks (v1.0) lists the agent's tasks,
// newest first, with the specification's filters (contextId, status,
// statusTimestampAfter) and paging (pageSize 1 to 100, default 50;
// pageToken; totalSize), each task cut to historyLength and with its
// artifacts only when includeArtifacts is set.
//
// # Tasks are runs
//
// A task is a byref run of the agent, recorded in the server's store and
// started through the server (in process, or on its Engine): its task ID
// is the run's ID, its context ID the run's session, and it carries the
// tags TagProtocol=a2a and server.TagAgent. The ACP endpoints and the run
// inspector show it like any other run. Nothing of a task is kept outside
// the store: GetTask, streams and subscriptions fold the run's events, so
// they agree and survive a restart of the process on a durable store.
//
// A task's history is its messages as sent: the user's messages as the
// client sent them (messageId, parts, metadata), kept whole in the run's
// log (run.UserMessage.Message, run.Answer.Message); the agent's messages;
// each question of an input-required or auth-required status; and each
// answer to one (an answer given through ACP, /ui or Go is shown as a user
// message of its text, input or decision).
//
// The run's status is the task's state (see State): created is submitted;
// running and cancelling are working; awaiting is input-required, or
// auth-required for an authorization; completed, failed and canceled map
// directly (a run whose model gave up, run.FailureGaveUp, is failed, its
// status message the model's reason). An awaiting task's status message says what is asked and how
// to answer (server.DescribeAwait) with the await itself as an
// application/json data part, await.json.
//
// A message with a taskId answers what the task awaits (server.ParseAnswer
// maps its text, or its data part for an input, onto the answer) and the
// run goes on as the same task. A message without a taskId starts a new
// task; with a contextId, in that context, and the run gets the context's
// earlier turns as its history and starts with the variables its earlier
// tasks left (see "Sessions" in package agent): that is how a follow-up
// is sent, since a completed task cannot take more messages (-32004, which
// names the context to use).
//
// The task has one artifact, named ResultArtifact: the run's result once
// it has one (a text part for a string, else an application/json data
// part, with the run's result schema, when it has one, in the artifact's
// metadata, "schema"), and until then the model's latest text. A result
// of any size is an artifact, never a status message; the completed
// status carries the run's last assistant text.
//
// A stream (SendStreamingMessage) starts with the task, then sends a
// status update for each status change and each assistant message (with
// the run's usage so far in its metadata, MetaUsage), and an artifact
// update for each text and the result, as the run's events are recorded;
// it ends when the task awaits or ends. Every status message is in the
// task's history as well. What an action reports with agent.Progress is
// a working status update whose message is the progress (metadata
// "byref.call" names the call). When the model streams, a run in this
// process sends its text as it is written: chunks of the answer artifact
// (the first of a step replaces it, the next append to it), then the
// whole text replacing them (lastChunk). Applied as the specification
// defines (and as the reference SDKs do), a stream's updates give exactly
// the task GetTask returns. Streams read the store, never the
// run: a slow client delays only itself (each write is bounded by
// Options.WriteTimeout), and a client that goes away leaves the run going;
// SubscribeToTask picks the task up again (the task as it is, then its
// updates). Subscribing to a task that has ended is answered -32004
// (UnsupportedOperation), as the specification says. CancelTask cancels
// the run and answers once it is canceled; a task that has ended answers
// -32002 (TaskNotCancelable); an unknown task, or one of another agent,
// -32001 (TaskNotFound).
//
// # Push notifications
//
// When the server's store implements run.Records (the memory store and
// run/sqlite do), tasks take push notification configurations: with the
// message that starts or answers a task
// (configuration.taskPushNotificationConfig; pushNotificationConfig in
// v0.3) or with the four methods (Create, Get, List and Delete
// TaskPushNotificationConfig; at most MaxPushConfigs per task). A
// configuration is kept in the store (kind PushRecordKind) with how far
// its deliveries have gone, so that it survives a restart and its
// deliveries go on from the next event. Each configuration has its own
// goroutine that follows the task's log: the task as it is first, then
// each status and artifact update, as a v1.0 StreamResponse (or, for a
// configuration made over v0.3, the task), POSTed with
// "Authorization: <scheme> <credentials>" when authentication is set and
// the token in X-A2A-Notification-Token (and A2A-Notification-Token). A
// slow or down receiver delays neither the run nor other receivers. A
// notification is retried per Options.PushRetry and, when given up, the
// next one is sent; the record counts the notifications sent and given
// up, the attempts, and the last error. Targets on loopback, private,
// link-local, shared or unspecified addresses are refused when the
// configuration is made and again at each connection (a name resolving
// elsewhere later), and redirects are not followed, unless
// Options.AllowPrivatePush.
//
// # Not served
//
// The extended agent card (-32007), file and raw parts in messages
// (-32005), and the REST and gRPC bindings.
//
// # Calling
//
// Import reads a remote agent's card and returns an action that sends it
// a task, streams it, and returns its artifacts, so that they become a
// variable of the run that a later action takes by reference. A remote
// input-required becomes the run's own await, and the answer is sent on
// the same remote task; cancelling the run cancels the remote task.
// NewClient and ResolveCard give the Go SDK's client for other uses;
// byref a2a call is built on them.
package a2a
