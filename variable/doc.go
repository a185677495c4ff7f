// Package variable holds the values an agent run works on: named, typed Go
// values that the model refers to as <<var:name>> instead of copying them.
//
// A [Variable] has a name that is a Go identifier (so snippets can use it as
// one), a value of any Go type together with its [reflect.Type], an optional
// description, a secret flag and a [History] of the steps that set it. A [Set]
// is the per-run collection; the runtime owns one and guards it.
//
// The model never sees a value, only a [Preview]: its type and a bounded
// representation. Its type is shown by [TypeName], in Go syntax with
// package names: the host's packages are named by [PackageQualifier],
// which gives each one a name of its own (model, model2; time2 for a host
// package named like a standard one), the name snippets write too.
//
// # Previews and handles
//
// A preview shows what a type exports, never more: a struct's exported
// fields, or what its Preview, Error, Redacted (a *url.URL without its
// password), String or MarshalJSON method returns. An unexported field is
// never read, so a credential a type keeps to itself stays there.
//
// A handle is a value that stands for a resource outside the program's
// memory: a database pool, a connection, a client, an open file. What it
// holds inside (a connection string, a password, a pool's state) is no
// business of the model's, and its state changes on every use, read or
// write. So a handle's preview is its type and a short identity, never its
// fields ("*sql.DB handle (driver *sqlite.Driver)"), and [Fingerprint]
// hashes it by identity: a call that uses the handle does not modify it;
// putting another handle in its place does.
//
// Handles are, without being marked: database/sql's DB, Conn, Tx, Stmt,
// Rows and Row; net/http's Client, Transport and Server; os's File,
// Process and Root; os/exec's Cmd; crypto/tls's Conn; net's listeners, and
// every type with net.Conn's deadline methods (SetDeadline,
// SetReadDeadline, SetWriteDeadline and Close), which net's connections
// have. A host marks its own types by giving them a HandleIdentity method
// ([Handle]), and a library's with [RegisterHandle].
//
// # Secrets
//
// A secret variable ([Spec].Secret) is usable by reference, but neither the
// model nor the run's log sees its value. What a secret guarantees, in a
// run of package agent:
//
//   - Its preview is "<secret T>" everywhere: the system prompt, tool
//     results, approvals, the event log, the inspector, ACP and A2A
//     responses, MCP results and OpenTelemetry attributes. Its value is
//     never recorded, so a run holding one is restored only when the host
//     hands the secret in again.
//   - Taint follows the data. A value derived from a secret is tainted
//     ([Variable].Tainted) and handled like a secret: the result of an
//     action that was given a secret or tainted variable; every variable
//     passed by reference to such a call that the action could change
//     through a pointer (a browser the secret was typed into, and all it
//     reads afterwards); every variable a snippet created or changed after
//     it read one. The output and errors of such calls and snippets are
//     hidden from the model ("<output hidden: …>"). A snippet's compile
//     errors are kept: they are about the code.
//   - A tainted value is still usable by reference, and the host reads
//     every value in Go.
//   - Declassification is explicit: an action declares that its result
//     (and what it changes) is safe to show with action.Spec.Declassifies,
//     e.g. a login that returns a session ID. Nothing else declassifies.
//   - A run whose result is tainted completes with a null result for the
//     model, the log and the protocols; the host reads the value from the
//     variable named by agent.Outcome.ResultVariable (Outcome.Redacted is
//     set). A child run cannot be given a secret as its task, and ask_user
//     cannot show one.
//   - As a second line, every text bound for the model or the log goes
//     through a [Redactor] of the sensitive values, which hides them also
//     in other letter case, base64, hex and URL encoding.
//
// What a secret does not guarantee: a host action that sends the secret
// somewhere (over the network, to a file, to another model) does what the
// host wrote; a transformation the runtime does not see (an action that
// stores the secret in a package variable and returns it from a later call
// given nothing secret) escapes taint; and a value shorter than
// [MinRedactable] bytes is not matched by the redactor (its taint still
// holds).
//
// The package imports only the standard library.
package variable
