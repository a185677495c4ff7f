// Package agui serves byref agents to front ends over AG-UI, the
// Agent–User Interaction protocol (https://docs.ag-ui.com), version 1.0,
// as its official client @ag-ui/client speaks it.
//
// Mount adds POST /agui/{agent} to a server.Server, beside ACP (and A2A):
// a request is a RunAgentInput, answered with server-sent AG-UI events.
//
// # Runs
//
// A request whose last user message holds a task starts a byref run of
// the agent in the session named by threadId: earlier runs of the thread
// are its history, and it starts with the variables they left (see
// "Sessions" in package agent). The input's context reaches the model
// as part of the task ("Context from the user's application:", one line
// per item: description, value). The stream is:
//
//   - RUN_STARTED (its metadata names the byref run: "byref.run"), then
//     STATE_SNAPSHOT: the thread's state, its earlier runs' variables
//     and the run's starting ones;
//   - per step, STEP_STARTED "step N" … STEP_FINISHED;
//   - the model's text as TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT,
//     TEXT_MESSAGE_END (its reasoning as REASONING_* events), as it is
//     written when the model streams (one CONTENT per piece);
//   - each tool call as TOOL_CALL_START, TOOL_CALL_ARGS (as the arguments
//     form, when the model streams them), TOOL_CALL_END, and its result as
//     TOOL_CALL_RESULT; a snippet as a CUSTOM event "byref.snippet", its
//     output lines as they are printed as CUSTOM events "byref.output";
//   - what an action reports with agent.Progress as an ACTIVITY_SNAPSHOT
//     of type "byref.progress";
//   - each variable created or changed as a STATE_DELTA;
//   - a child run (an agent called as an action) as SUBAGENT_STARTED
//     (subagentRunId is the byref run, parentToolCallId the call), then
//     SUBAGENT_FINISHED with its result or SUBAGENT_ERROR;
//   - reasoning the provider encrypted as REASONING_ENCRYPTED_VALUE
//     (subtype "message", entityId the step's assistant message);
//   - at the end, MESSAGES_SNAPSHOT (the input's messages and the run's:
//     exactly what the client folded from the stream), then RUN_FINISHED
//     (outcome "success" with the run's result, "interrupt", or
//     "cancelled") or RUN_ERROR (a failed run, whose failure kind is the
//     code), both with the run's usage: one entry for the run's model,
//     inputTokens counting the prompt cache's reads (cachedInputTokens)
//     and writes (cacheWriteInputTokens).
//
// # Front-end tools
//
// The input's tools become actions of that run alone, whose execution
// belongs to the front end. The model calls one like any action: its
// arguments are validated against the tool's schema and may be
// references to variables. The call awaits the front end (an input await
// of the byref run, whose message says the client runs it, with the
// arguments resolved): the stream shows it as TOOL_CALL_START, ARGS (the
// arguments, references resolved) and END, and the AG-UI run finishes,
// outcome "success" with the call in pendingToolCallIds. The next input
// on the thread whose last message is the role "tool" message of that
// call answers the await: its content is the call's result, and the
// stream of the run going on follows. A tool named like one of the
// agent's actions is refused (400). A server on an Engine takes no
// front-end tools, and a restart loses them. The log marks such a call
// as answered by the client (run.AwaitRequested.Client): the inspector
// shows it so, and replay code uses the tool message's content as the
// call's result.
//
// The state is {"variables": {name: {"type", "preview", "secret"}}}: the
// variables' types and bounded previews, as the model sees them: a
// server.SessionState, the same for a thread as for an ACP session. A
// secret variable's preview (or one derived from a secret) is never shown
// ("(secret)"), nor is any value.
//
// The state a client sends in RunAgentInput.state sets variables of the
// run, typed by the struct the agent declares in Options.State: each key
// becomes a variable of its field's type ({"limit": 2} an int limit),
// and a key the agent does not declare, or a value of another type, is
// refused (400) naming the keys it does. The key "variables", the state
// the server sent, which clients send back, is ignored: the thread's
// variables come from its runs' logs, not from the client.
//
// # Human in the loop
//
// A run that awaits (an approval, a question, an authorization, input)
// finishes the AG-UI run with outcome "interrupt", whose one interrupt
// says what is asked (message), how to answer (responseSchema: the fields
// of run.Answer) and, for the approval of a call, its toolCallId. The
// front end answers with a new request on the same thread whose resume
// entry names the interrupt: status "resolved" with a payload such as
// {"decision":"approved"}, {"decision":"denied","reason":"…"} or
// {"text":"…"} (a string is read as an ACP reply: "approve", "deny: why",
// an answer), or status "cancelled", which cancels the run. The stream of
// the resumed run follows.
//
// A client that aborts its request (abortRun) before the run awaits or
// ends cancels the run: in AG-UI a run lives as long as its request.
package agui
