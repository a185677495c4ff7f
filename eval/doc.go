// Package eval tells whether an agent does its job: eval sets of cases,
// expectations on a run's result, trajectory, status and failure kind, a
// runner that repeats cases in parallel within budgets and reports pass@k
// and pass^k, and cassettes that record a model's exchanges once so that
// the set runs in CI with no key and no network.
//
// # Cases and expectations
//
// A [Case] is a task, its starting variables ([Var]: Go values, or JSON
// decoded into a type [Set.Types] names) and its run options. Its
// expectations ([Expectation]) are checked against each run:
//
//   - on the result: [Equal], [MatchesSchema], a Go [Predicate], or a
//     model as [Judge] with its own prompt (off unless [Options].Judge is
//     set);
//   - on the trajectory: the actions called ([Called], [CalledAnyOrder],
//     [CalledExactly], with arguments), that a parameter got a reference
//     ([GotRef]), that no variable's value was copied into an argument
//     where a reference would do ([NoCopies]: byref's own discipline), at
//     most so many steps, tokens, cached or uncached tokens or dollars
//     ([MaxSteps], [MaxTokens], [MaxCachedTokens], [MaxUncachedTokens],
//     [MaxCost]), that no request carried
//     a secret ([NoSecrets]), that approval was asked before an action
//     ([ApprovalBefore]);
//   - on the end: [Status] and [FailureKind].
//
// A case can fail on purpose ([Case].FailsOnPurpose): it shows what a
// failure looks like, or pins a known weakness, and is as it should be
// when it fails.
//
// # Running
//
// [Run] runs a [Set] against any [llm.Model], or against each case's
// cassette when no model is given, Options.Repetitions times per case, up
// to Options.Parallel at once, within a time and a token budget. The
// [Report] holds every trial with its trajectory and the diff of each
// expectation it failed; it is written as JSON ([Report.WriteJSON]), as a
// terminal table ([Report.WriteTable]) and as one self-contained HTML page
// with plots of pass rate, tokens, cost and latency per case
// ([Report.WriteHTML]). [Compare] says what got better and worse between
// two reports. Package evaltest runs a set under go test, one subtest per
// case.
//
// Trials share nothing a run could change: each gets its own copy of the
// case's starting values (see [Var]), so that trials run in parallel
// without racing, and the case keeps the values it started with, which
// [Set.Save] writes and its cassette's requests were made from.
//
// # Cassettes
//
// A [Recorder] wraps a model and records each exchange: the request as
// hashes (of the whole request, of the tools and of each message), the
// response whole. A [Cassette]'s player answers a request only when it
// hashes the same as a recorded one; any other request gets a
// [*MissError] with a diff against the nearest recording, and the trial
// fails. Nothing is ever answered silently. Replay therefore needs an
// agent whose tool results are the same from run to run: an action that
// returns the time or a random number changes the next request; give it a
// fixed clock or seed in the set's agent.
//
// [FromRun] turns a stored run into a case with a cassette. A run's log
// keeps the model's answers but not its requests: FromRun replays the
// answers in order through the agent, records the requests they answer,
// and checks that the replay does what the log says.
//
// # Front-end tools
//
// An eval has no client: it cannot run the tools an AG-UI front end
// sends with a run (RunAgentInput.tools), whose calls the front end runs
// and answers (the log marks them, run.AwaitRequested.Client). FromRun
// refuses a run that called one, naming the tools: the log keeps the
// client's answers but not the tools the client sent (their schemas are
// part of every request, which the cassette must match), so the case
// could not replay. A trial whose run calls a tool of its client is
// canceled and fails with the reason, rather than given a made-up
// answer. To evaluate such an agent, give the set's agent Go actions that
// stand in for the front end's tools.
//
// # Files
//
// A set on disk is a directory: set.json (name, description, agent),
// cases/NAME.json (one [Case] each) and cassettes/NAME.json. [Load] reads
// it, [Set.Save] and [SaveCase] write it. Go predicates and the agent
// itself stay in Go.
package eval
