// Package interp runs Go snippets written by a model in a yaegi interpreter
// restricted to an allow-list, over the run's variables. The interpreter is
// a patched copy of github.com/traefik/yaegi v0.16.1 in internal/yaegi
// (its README lists the patches); the symbol table of the allowed standard
// packages is generated from the Go toolchain byref is built with
// (internal/stdsym), and nothing registers handlers on the host's
// http.DefaultServeMux.
//
// A snippet sees every run variable as a plain identifier of its real Go
// type and every host function (an action) by name. After a successful Eval
// the final value of every input variable and of every new top-level variable
// comes back in [Result.Values], typed with the variable's type (a host
// []Row stays a []Row). Variables live in the caller, not in the
// interpreter: they are copied in before each snippet and read back after it,
// so they survive the interpreter being rebuilt. [Analyze] reports
// statically which variables a snippet reads, writes and creates, for
// approvers.
//
// # Which Go a snippet is
//
// A snippet is the Go of the toolchain byref is built with (its language
// version is runtime.Version's, Go 1.22+ loop variables included), in one
// shape: the body of a main function whose top-level declarations (x :=
// ..., var x = ..., const) are package-level, so the snippet's funcs, and
// later snippets, see them; its func and type declarations are
// package-level; the run's variables and the actions are package-level
// variables of their real types. Before anything runs, the snippet is
// type-checked in that shape with go/types against those types, the
// allowed packages' types (compiler export data generated with the symbol
// table, interp/internal/stdsym/export, so a deployed binary needs no Go
// toolchain) and the declarations of earlier snippets. What `go build`
// would reject is a [CompileError] with go/types' message (the compiler's
// words) at the snippet's own line and column: x := 1 +\nfmt.Println(x) is
// "undefined: x" at 2:13, q := 1\nq := 2 is "no new variables on left side
// of :=". Two differences from a main function, both the sandbox's: a
// top-level x := v of a run variable x assigns it (it keeps its type), and
// an import need not be used (imports persist across snippets). The check
// remembers the last snippet it passed with its environment, so running the
// same snippet again over variables of the same types is not checked again.
//
// The host's types are named in a snippet as the prompt shows them
// (variable.TypeName): every exported named type in a variable's type or in
// an action's parameters and results, at any depth, is registered with
// the interpreter under its package's name, with its fields and methods,
// without a symbol table: shop.Customer for a type of example.com/shop,
// main.Order for a type of the host program's package main. Error messages
// name them the same way. Standard-library types are named through the
// allowed packages only. A second host package with a name already taken
// (two packages model), or one named like an allowed standard package (a
// host package time), is shown and written under a name of its own,
// model2.User or time2.Slot (variable.PackageQualifier). A generic host
// type (page.Page[page.Item]) cannot be named: its values can be used
// (p := pg, pg.Items[0].SKU) and the types of its fields can be named; a
// snippet that names it is refused with a message saying so.
//
// What it computes is what compiled Go computes, as internal/yaegi's
// patches make it (each listed in its README): each iteration of a range
// or three-clause loop has its own variables, for closures, pointers and
// deferred calls alike; a top-level defer runs when its snippet ends and
// never again; top-level funcs and types may be used before they are
// declared, and may use top-level variables and constants declared after
// them, as in a Go file: each declaration is compiled after the last
// statement declaring a name it uses (the funcs and methods no statement
// in between calls go down with the last method), and a top-level const,
// or var whose value calls nothing (a literal, &T{}, a composite or
// function literal), that funcs use is declared first; top-level var and const
// declarations are initialised in dependency order, as a package's are:
// one whose values use a var or const declared after it (directly or
// through the funcs and types it names) has that declaration made just
// before it (a spec of a var (...) group too), while statements keep
// their order; min, max and clear are the
// built-ins, constants included; range works over integers of every type
// and over functions (every iterator of the allowed packages:
// slices.All, slices.Backward, maps.Keys, strings.Lines...); method
// expressions (T.M, (*T).M, I.M); types that contain themselves through
// slices, maps and funcs (type Node []Node, type Tree map[string]Tree,
// type stateFn func(*lexer) stateFn); new(expr); errors.As and errors.Is with
// the snippet's own types; print and println write to stderr as Go's do;
// interface values compare, and key maps, by dynamic type and value
// (map[I]int with the snippet's types, any(T{1}) == any(T{1}), and structs
// and arrays holding them with ==); a value of
// a snippet type inside an interface prints and marshals as itself, and
// %T names it as Go does (main.T); and run-time panics carry Go's
// runtime.Error messages ("index out of range [5] with length 2",
// "invalid memory address or nil pointer dereference", "hash of
// unhashable type main.T").
//
// Go's own tests keep it so: TestGoTests runs every "// run" program of
// $(go env GOROOT)/test that imports only allowed packages, with its
// package clause dropped and func main renamed and called at the end, and
// compares its output with the program's .out file where there is one.
// With Go 1.26's test directory, of 73 such programs 61 pass and 12 are
// refused before they run by a sandbox rule that names itself (go
// statements, func init, arrays beyond 2^24 elements); none fails: none
// computes a wrong result, and none that is valid is refused outside the
// sandbox's rules. Two of the 61, divmod.go (about 4 million divisions
// checked in every integer type), which takes the interpreter minutes,
// and maplinear.go (which times map operations and retries until they
// look linear, past its 10 s deadline under the race detector on a loaded
// machine): TestGoTestsSlow runs them without the race detector and
// without a deadline, when BYREF_SLOW_TESTS=1, as `make test` does in a
// step of its own.
//
// yaegi's own test programs keep it so too: TestYaegiPrograms runs, the
// same way, every program of yaegi v0.16.1's _test directory (read from
// the module cache) that is package main with a func main and imports
// only standard packages, and compares its stdout, stderr and panic, or
// its compile error, with the same program compiled by Go. Of the 911
// such programs, time0.go is left out (it prints the time); of the other
// 910, 758 agree with Go and 152 are refused by a rule that names itself (121 import a
// package outside the allow-list, 22 use the go statement, 4 os beyond
// its output streams, 3 func init, 2 a dot import); none differs. Three
// loops of 20 to 30 million steps (fib.go, l3.go, l5.go) are left to
// TestYaegiProgramsSlow, in the same step as TestGoTestsSlow.
//
// Where the interpreter still computes something else than compiled Go,
// the corpus says so: TestNative compiles every corpus snippet that is not
// meant to fail with Go (one build, one binary) and compares its stdout,
// stderr and variables with the interpreter's. All 308 such snippets
// agree; one that stops agreeing is listed, with its cause, in
// corpus_test.go (knownFailing). The unexported fields of a snippet's
// struct types keep their names, so %+v prints them and encoding/json
// skips them, as for compiled Go.
//
// Values of the snippet's types after the Eval: the methods of a type a
// snippet declares are interpreted code, and the sandbox never runs
// interpreted code after its Eval has returned. So an error of such a
// type that a variable holds (err := check("PN-3"), a []error, an
// exported field) is kept as a [SnippetError]: its Error method is called
// once when the snippet ends, on the snippet's goroutine and under its
// limits (time, call depth, memory, output), and the host gets the text
// and the value's data, which is what encoding/json encodes. An Error
// method that loops forever stops the Eval with [ErrTimeout], one that
// panics fails it with a [PanicError]; the message names the variable,
// and as with every failure no variable changes. A created variable
// holding such a value behind another interface (fmt.Stringer,
// sort.Interface) is left out of [Result.Values], like one holding a
// func; a written input variable refuses the snippet with [ErrRefused].
// A value of a snippet type with methods in an any ([]any{Row{2}}) comes
// back as its data, as a variable of that type does: encoding/json and
// %v see its fields, and its methods stay in the interpreter. A later
// snippet gets each SnippetError its variables hold (at the top, in
// elements, fields, map values, pointees) as a value of its own type
// again, built by the current instance from the kept data, so
// err.(*StockError) and errors.As hold, also after a rebuild; when the
// snippet ends the host holds SnippetErrors again.
//
// # What a snippet can do, in a model's terms
//
//   - Use the variables as ordinary Go variables anywhere: top := customers[0],
//     v, ok := prices["BK-1"], customers[0].Name, nums[len(nums)-1], orders[1:],
//     len(xs), range, composite literals, method calls (report.Add("x")).
//   - Change them: assign (count++, nums = append(nums, 4)), or change them in
//     place (customers[1].Email = "x", delete(inventory, "k"), sort.Ints(nums)).
//     New top-level variables (x := ..., var x T = ...) are kept for later steps.
//   - Call actions as Go functions with their own signatures:
//     w, err := get_weather("Paris").
//   - Declare funcs (generic ones too), types with methods, closures; return at
//     top level to stop early (what ran before is kept).
//   - Use the allowed standard packages without importing them, as they are in
//     the Go that byref is built with (strings.Lines, strings.CutPrefix,
//     time.DateOnly...), plus min, max and clear, range over an integer
//     (for i := range 10), over any iterator (for line := range
//     strings.Lines(s), for k, v := range maps.All(m), for i, v := range
//     slices.Backward(s)) and over the snippet's own iterator functions.
//
// All or nothing: a snippet that fails, panics or is stopped changes no
// variable. Values are read back only on success, and the slice elements,
// map entries and pointees reachable from the variables the static pass says
// it writes are saved before it runs and put back on failure. What cannot be
// saved (a channel, a func, storage behind unexported fields, more than a
// million elements) is named in [Result.Unrestored], so the caller can tell
// the model.
//
// # What a snippet cannot do
//
//   - Reach outside the process: no files, network, processes, environment,
//     reflection or unsafe; no go statements (see Allow-list).
//   - Rely on the interpreter where it still differs from compiled Go
//     (yaegi v0.16.1, patched): the next ten items say where.
//   - A pointer to a struct that holds a value of a declared struct type
//     without fields (type Pair struct{ A Empty; N int }) prints the
//     inner value as {{}} (&{{{}} 1}, Go: &{{} 1}) when it reaches fmt
//     inside an interface (fmt.Println(any(&p))); passed as a *Pair, or
//     not behind a pointer, it prints as in Go. Every declared
//     struct type, with or without fields, is its own type to type
//     assertions, type switches, ==, errors.As, errors.Is and %T.
//   - Printing a snippet-declared Stringer (or error) inside a map key of
//     a struct type, or inside a struct in an interface whose snippet type
//     is a struct without fields, like another named type, prints its
//     fields. Everywhere else such
//     values print as compiled Go prints them, at any depth: map keys,
//     elements, exported fields, behind the pointer fmt prints as &{...},
//     inside interfaces, for every verb.
//   - %#v of a value of a snippet type writes the types reflect built,
//     with the tag that names a declared struct type
//     (struct { n int "byreftype:\"main.S\"" }{n:1} for main.S{n:1}; a
//     type without fields prints as struct {}{}).
//   - %T of an argument that another verb formats too
//     (fmt.Printf("%v %[1]T", t)) names the type reflect built
//     (struct { A int } for main.T); %T alone prints main.T, []main.T,
//     main.Pair[string,int] as Go does.
//   - A map keyed by a struct or array type whose interface fields or
//     elements hold values of the snippet's types with methods
//     (map[struct{ k I }]int) makes separate entries for equal keys (== on
//     such structs is right).
//   - Two struct types of the same name and the same fields declared in
//     different scopes (a type P in a func literal and a top-level P) are
//     one type to assertions and ==.
//   - A value of a type with both Error and String held in a
//     fmt.Stringer (var s fmt.Stringer = e) prints through String; Go
//     prints an error through Error.
//   - A plain constant or value of a basic type asserted to a snippet's
//     named type without methods (any(1).(MyInt)) succeeds; Go's
//     assertion fails. The other way round (any(MyInt(1)).(int)), ==,
//     map keys, type switches and %T tell them apart as Go does.
//   - The index of a [...]T literal computed from len or cap of an array
//     with an operator ([...]int{len(a) + 1: 7}) does not compile ("non-constant
//     expression"); len(a) alone, and any such index of a []T or [N]T
//     literal, does.
//   - Generic functions whose type parameters are only reachable through a
//     constraint such as S ~[]E are not inferred (the sandbox's slices and
//     maps take []E and map[K]V instead; a named slice type passed in
//     comes back as []E).
//   - Print or encode a cyclic value, one nested more than 1,000 levels deep,
//     or one of more than 4M elements with fmt, encoding/json or
//     encoding/xml: that panics with [ErrPrintLimit] instead of overflowing
//     the host's stack.
//   - Name a variable like an allowed or host package (fmt, strings, shop):
//     the Input is refused with [ErrInput].
//   - See inside a handle with fmt. A handle (variable.IsHandle: a
//     *sql.DB, an *os.File, a net.Conn, an http.Client, a type with a
//     HandleIdentity method or registered with variable.RegisterHandle)
//     and the value behind a handle pointer (*db) print as the handle's
//     preview (*sql.DB handle (driver *sqlite.Driver)), for every verb
//     and every function of fmt (Print, Sprint, Fprint, Append families,
//     Errorf) and in a [PanicError]'s value: as an argument and inside structs, arrays, slices, maps,
//     interfaces and the data of a snippet's Stringer or error type. Why:
//     fmt prints unexported fields, and a handle's hold what must not
//     reach the model, the log, /ui or a protocol's client (a *sql.DB's
//     connection string, password included); its preview is how the
//     variable shows everywhere else. A value that holds a handle prints
//     from a copy: a slice or array as a []any, a map as a map[K]any
//     (map[any]any when a key holds one), a struct as a struct type of
//     the same fields, none embedded, so %v and %+v print as before but
//     for the preview, while %#v names those types, and a handle in an
//     unexported field prints as a string. %T still names the handle's
//     type (interp.handleText when another verb formats the same
//     argument). The data of a host type with a String or Error method
//     is printed as fmt prints it. encoding/json and xml see a handle's
//     exported fields only (a *sql.DB has none: {} and <DB></DB>).
//
// # What a snippet looks like
//
// Optional imports, then statements, with func and type declarations
// anywhere at top level (adjacent declarations may refer to each other).
// Packages on the allow-list may be used without importing them; imports and
// declarations persist for later snippets on the same Interpreter (they are
// replayed after a rebuild). Variables declared at top level (x := ..., var x
// = ...) are created; variables declared in blocks are not. A return in
// top-level code (at top level or in its if, for, switch... blocks, not in a
// function) ends the snippet there, successfully, like returning from main:
// what ran before it is kept and read back as on any success, variables
// declared after it are not created, and declarations after it are not made;
// a top-level return with values is a compile error. [ExtractCode]
// and [NormalizeCode] are the one parser for code in a model's text and in
// run_go's argument. Errors carry snippet positions: [CompileError] has
// line:column and the offending line, [PanicError] the line that panicked.
//
// # Allow-list
//
// Standard packages a snippet may import ([AllowedPackages]): fmt, errors,
// strings, strconv, bytes, bufio, unicode, unicode/utf8, unicode/utf16, math,
// math/bits, math/cmplx, math/rand, math/rand/v2, sort, slices, maps, cmp,
// time, regexp, encoding/json, encoding/base64, encoding/hex, encoding/csv,
// encoding/xml, html, path, text/tabwriter, container/list, container/heap,
// container/ring, hash/crc32, hash/fnv, crypto/md5, crypto/sha1,
// crypto/sha256, crypto/sha512; plus the host packages registered through
// [Options.Symbols]. They compute on in-memory data and reach nothing outside
// the process. slices, maps and cmp are interpreted from source (Go 1.22's
// with the additions and changes internal/yaegi/README.md lists, compiled on
// first import); every other package is the host's own code.
//
// Removed from allowed packages: time.AfterFunc (runs code on another
// goroutine), bufio.NewReaderSize and NewWriterSize and rand.Perm (unbounded
// allocation from one argument). Replaced: time.Sleep returns when the
// snippet's context ends; strings.Repeat, Join, Replace and ReplaceAll and
// their bytes equivalents check the size of their result against the
// allocation limit before building it; strconv.FormatFloat and AppendFloat
// refuse a precision above 1,000,000 (as fmt caps it);
// text/tabwriter.NewWriter and Writer.Init refuse a minwidth, tabwidth or
// padding above 65,536 (tabwriter.Writer is a sandbox type with the same
// methods); bufio.Scanner.Buffer refuses a max above [Options.MaxAlloc]
// (bufio.Scanner is a sandbox type with the same methods); fmt.Print* and
// println write to the Eval's bounded buffers; fmt.Scan* read an empty
// stdin. time.LoadLocation reads only the
// system time-zone database (names with ".." are rejected by Go).
//
// os is the snippet's own output streams and nothing else: os.Stdout and
// os.Stderr are io.Writers writing to [Result.Stdout] and [Result.Stderr]
// (for tabwriter.NewWriter(os.Stdout, ...), fmt.Fprintf(os.Stderr, ...),
// json.NewEncoder(os.Stdout)); any other name of os is refused by that
// rule, with or without an import. Their dynamic type prints as *os.File
// (%T), as in compiled Go. A writer made around them and kept in a
// variable (tw := tabwriter.NewWriter(os.Stdout, ...)) writes to the
// output of the snippet that uses it, also after the interpreter was
// rebuilt; after a snippet on the same instance was stopped (its goroutine
// may still be writing), using it panics with a message saying to make it
// again.
//
// Refused, with a [RefusedError] naming what to do instead: the rest of os, os/exec,
// net and net/..., syscall, unsafe, plugin, reflect, runtime and
// runtime/..., io, io/ioutil, io/fs, path/filepath, log, sync, context,
// math/big, text/template and html/template, and every other package not
// listed; dot imports; go statements (a panic on a snippet's goroutine would
// kill the process); func main and func init; any selector named Grow or
// Perm (calls, method values and method expressions: Builder.Grow,
// slices.Grow, Rand.Perm); array types longer than 2^24 elements (nested
// arrays count their product) and keyed array or slice literals with an
// index above 2^24 ([]byte{1 << 40: 1}); an array length or literal
// index is any constant Go accepts (a constant declared later, len of an
// array), bounded by its value from the type check ([Analyze], which runs
// no type check, leaves unbounded the ones the sandbox does not fold
// itself: literals, the snippet's constants, constants of allowed
// packages, iota, operators, basic conversions, len of a constant
// string); identifiers starting with _byref.
// The source filesystem is empty, so nothing is ever imported from disk.
//
// # Limits: what is bounded and what is not
//
// Time: every Eval runs under its context and [Options.Timeout] (10s).
// Interpreted loops, select {}, blocked channel operations and time.Sleep
// all end at the deadline with ErrTimeout; the yaegi instance is then
// discarded (yaegi races if reused after a cancel) and rebuilt on the next
// Eval. Host functions passed in Funcs must honour their own context: a host
// call blocked forever keeps its goroutine, although the Eval returns.
// The deadline bounds running, not compiling: a snippet is parsed, checked
// and compiled on the caller's goroutine, and only run on another one (a
// worker that waits up to 200 ms for the next Eval, one per process).
//
// Call depth: a Go stack overflow is fatal and yaegi uses about 1.1 KiB of
// Go stack per interpreted call, so every interpreted function is entered
// through a counter; beyond [Options.MaxCallDepth] (1,000) the call panics
// with ErrCallDepth. Entering interpreted code after the Eval was stopped
// panics too, so host loops calling back into a stopped snippet unwind.
//
// Memory, bounded: each make(T, n) (slices, maps, channels),
// strings.Repeat and bytes.Repeat checks its size against [Options.MaxAlloc]
// (256 MiB) and panics with ErrAllocLimit beyond it (in Go, one allocation
// larger than memory is a fatal error, not a panic). Gradual growth is
// watched: when the process heap grows by more than [Options.MaxHeapGrowth]
// (1 GiB) during an Eval, the snippet is stopped with ErrMemoryLimit.
//
// Memory, not bounded: the heap watch is process-wide and polled every 10ms,
// so a snippet can overshoot by what it allocates in 10ms, and concurrent
// host allocations count against it; allocations inside host functions other
// than the ones listed (for example json.Unmarshal of a huge input, or
// appending a string to itself) are bounded only by the heap watch; values
// built by a snippet and returned as variables are the caller's to bound.
//
// Printing: fmt's Print, Sprint, Fprint and Append families and Errorf,
// json.Marshal, MarshalIndent and Encoder.Encode, and xml.Marshal and
// MarshalIndent walk their arguments first (as the real function would,
// stopping at values that format or marshal themselves) and panic with
// [ErrPrintLimit] on a cycle, nesting deeper than 1,000 or more than 4M
// elements. They do not walk into a handle: fmt prints its preview, and
// json and xml encode its exported fields only. Other host functions
// that recurse over a value (a host package's own) are not bounded and
// can still overflow the Go stack.
//
// Outliving the Eval: when an Eval is stopped, the host call the snippet is
// in (a standard function or a host function from Funcs) keeps running on
// yaegi's goroutine until it returns; one that ignores its deadline keeps
// running after Eval has returned, still allocating, and the maps, slices
// and pointers passed in as variables stay shared with it. The wrappers
// above refuse the arguments known to make a standard call run or grow
// without end; host functions must honour their context.
//
// Not a security boundary: the sandbox bounds what it can see (imports,
// constant sizes, the listed calls, time, output and heap growth), but a
// hostile snippet can still find a host call that allocates or recurses
// without bound and kill the process. Run untrusted code in a separate
// process with OS-level memory and CPU limits.
//
// Created variables whose type contains a func or a chan anywhere (a struct
// field, a slice, map or array element, a pointer) are left out of
// [Result.Values] and [Result.Created], like top-level funcs and chans: they
// hold interpreted code or channels that only work inside the interpreter.
// Values inside interfaces are not inspected.
//
// Output: [Options.MaxOutput] (64 KiB) of stdout and of stderr are kept,
// the rest is dropped with a marker; a snippet writing more than 16 times
// that is stopped with ErrOutputLimit.
//
// Interpreter growth: yaegi slows down as each Eval adds compiled code
// (measured without rebuilds: 0.3 ms to 2.7 ms per snippet over 10,000
// snippets), so the instance is rebuilt every [Options.RebuildEvery] (100)
// Evals and after every failed Eval.
package interp
