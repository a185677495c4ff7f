package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// Options configures [Run]. The zero value replays every case's cassette
// once, as many at a time as there are CPUs, with no budget.
type Options struct {
	// Model is the model under test. Nil replays each case's cassette (a
	// case without one fails, saying how to record it).
	Model llm.Model
	// ModelName names Model in reports, as "provider:model"; "cassette"
	// when Model is nil, and Model's Go type when it is not.
	ModelName string
	// Record records Model's exchanges as each case's new cassette
	// (Case.Cassette; [Set.Save] writes them). It needs a Model.
	Record bool
	// Repetitions is how many times each case runs; 0 means 1.
	Repetitions int
	// K is the k of pass@k and pass^k; 0 means Repetitions.
	K int
	// Parallel is how many trials run at once; 0 means GOMAXPROCS.
	Parallel int
	// Timeout bounds the whole run: trials not started when it is spent
	// are not run, and runs still going are cancelled. 0 means none.
	Timeout time.Duration
	// TokenBudget bounds the tokens of all trials: once spent, no trial
	// starts (those running finish). 0 means none.
	TokenBudget int64
	// Judge is the model that judges [Judge] expectations. Nil (the
	// default) skips them, and the report says so.
	Judge llm.Model
	// Price prices tokens, for costs and [MaxCost]; zero prices nothing.
	Price Price
	// Progress, when set, is called after every trial with the number of
	// trials done and to do, one call at a time.
	Progress func(done, total int, t *Trial)
}

// Price is what a model's tokens cost (llm.Price).
type Price = llm.Price

// ErrNoCases is returned by Run for a set without cases, and by Load
// (wrapped) for a directory that holds none.
var ErrNoCases = errors.New("eval: the set has no cases")

// Run runs every case of the set opts.Repetitions times and checks its
// expectations. It returns an error only when the set cannot run at all
// (no cases, a bad case, an agent the runtime refuses); a trial that fails
// is in the report.
func Run(ctx context.Context, set *Set, opts Options) (*Report, error) {
	if len(set.Cases) == 0 {
		return nil, ErrNoCases
	}
	if opts.Record && opts.Model == nil {
		return nil, errors.New("eval: Options.Record needs Options.Model, the model to record")
	}
	seen := map[string]bool{}
	for _, c := range set.Cases {
		if err := c.check(); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("eval: two cases are named %s; rename one", c.Name)
		}
		seen[c.Name] = true
		for _, v := range c.Variables {
			if _, err := deepCopy(v.Go, v.Name); err != nil {
				return nil, fmt.Errorf("eval: case %s: %w", c.Name, err)
			}
		}
		if set.Dir != "" && c.Cassette == nil && !opts.Record {
			if err := readCassette(set.Dir, c); err != nil {
				return nil, err
			}
		}
	}
	if opts.Repetitions <= 0 {
		opts.Repetitions = 1
	}
	if opts.K <= 0 || opts.K > opts.Repetitions {
		opts.K = opts.Repetitions
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	switch {
	case opts.ModelName != "":
	case opts.Model == nil:
		opts.ModelName = "cassette"
	default:
		opts.ModelName = fmt.Sprintf("%T", opts.Model)
	}
	agentOpts := set.Agent
	agentOpts.Model, agentOpts.Store, agentOpts.Answer = nil, run.NewMemoryStore(), nil
	rt, err := agent.New(agentOpts)
	if err != nil {
		return nil, fmt.Errorf("eval: the set's agent: %w", err)
	}
	defer rt.Close(context.WithoutCancel(ctx))

	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	r := &runner{set: set, opts: &opts, rt: rt}
	if opts.Record {
		r.recorders = make([]*Recorder, len(set.Cases))
		for i := range set.Cases {
			r.recorders[i] = Record(opts.Model, opts.ModelName)
		}
	}
	start := time.Now()
	total := len(set.Cases) * opts.Repetitions
	trials := make([]*Trial, total)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var progress sync.Mutex
	done := 0
	for range min(opts.Parallel, total) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ci, rep := j/opts.Repetitions, j%opts.Repetitions+1
				t := r.trial(ctx, ci, rep)
				trials[j] = t
				progress.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, total, t)
				}
				progress.Unlock()
			}
		}()
	}
	for j := range total {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if opts.Record {
		for i, c := range set.Cases {
			c.Cassette = r.recorders[i].Cassette()
			if set.Dir != "" {
				if err := writeCassette(set.Dir, c); err != nil {
					return nil, err
				}
			}
		}
	}
	return newReport(set, &opts, trials, start, time.Since(start)), nil
}

// runner is one Run's shared state.
type runner struct {
	set       *Set
	opts      *Options
	rt        *agent.Agent
	recorders []*Recorder
	tokens    atomic.Int64
}

// trial runs one repetition of case ci.
func (r *runner) trial(ctx context.Context, ci, rep int) *Trial {
	c := r.set.Cases[ci]
	t := &Trial{Case: c.Name, Repetition: rep}
	fail := func(msg string) *Trial {
		t.Error = msg
		t.Failures = append(t.Failures, Failure{Expectation: "the trial runs", Diff: msg})
		return t
	}
	if ctx.Err() != nil {
		return fail("not run: " + r.stopped(ctx))
	}
	if b := r.opts.TokenBudget; b > 0 && r.tokens.Load() >= b {
		return fail(fmt.Sprintf("not run: the token budget (%d) was spent", b))
	}
	var model llm.Model
	switch {
	case r.opts.Record:
		model = r.recorders[ci]
	case r.opts.Model != nil:
		model = r.opts.Model
	case c.Cassette != nil:
		model = c.Cassette.Player()
	default:
		return fail("the case has no cassette: record one with a real model (byref eval run SET --model provider:name --record, or Options.Record)")
	}
	obs := &observer{model: model, secrets: r.secrets(c)}
	opts, err := r.set.runOptions(c)
	if err != nil {
		return fail(err.Error())
	}
	opts.Model, opts.ModelName = obs, r.opts.ModelName
	answers := &answerer{c: c}
	var handle atomic.Pointer[agent.Handle]
	ready := make(chan struct{})
	opts.OnStatus = func(s run.StatusChanged) {
		if s.To == run.StatusAwaiting {
			go func() {
				<-ready
				answers.answer(ctx, handle.Load())
			}()
		}
	}
	began := time.Now()
	h, err := r.rt.Start(ctx, opts)
	if err != nil {
		return fail("the run did not start: " + err.Error())
	}
	handle.Store(h)
	close(ready)
	t.RunID = h.ID()
	o, err := h.Wait(ctx)
	if err != nil {
		_ = h.Cancel(context.WithoutCancel(ctx))
		o, _ = h.Wait(context.WithoutCancel(ctx))
		t.Error = r.stopped(ctx) + " while the run went on; it was canceled"
	}
	if name := answers.clientCall(); name != "" {
		t.Error = clientError(name)
	}
	t.Latency = time.Since(began)
	events, err := r.rt.Store().Read(context.WithoutCancel(ctx), h.ID(), 1, 0)
	if err != nil {
		return fail("reading the run's log: " + err.Error())
	}
	snap := run.Fold(events)
	t.events = events
	t.Status, t.FailureKind, t.Reason, t.Result = o.Status, snap.FailureKind, o.Reason, o.Result
	t.Steps, t.InputTokens, t.OutputTokens = o.Steps, o.Usage.InputTokens, o.Usage.OutputTokens
	t.CacheReadTokens, t.CacheWriteTokens = o.Usage.CacheReadTokens, o.Usage.CacheWriteTokens
	t.Cost = r.opts.Price.Cost(o.Usage)
	t.Trajectory = trajectory(events)
	t.leaks = obs.leaked()
	r.tokens.Add(int64(t.Tokens()))
	if t.Error != "" {
		t.Failures = append(t.Failures, Failure{Expectation: "the trial runs", Diff: t.Error})
	}
	if miss := obs.missed(); miss != nil {
		// The run stopped at the miss: what it shows says nothing of the
		// agent.
		t.Error = miss.Error()
		t.Failures = append(t.Failures, Failure{Expectation: "every request is in the cassette", Diff: miss.Diff})
		t.Skipped = append(t.Skipped, "every expectation: the run stopped at a request the cassette does not hold")
		return t
	}
	k := &checker{ctx: ctx, t: t, set: r.set, c: c, opts: r.opts}
	for _, e := range c.Expect {
		if d := checks[e.Kind].check(k, e); d != "" {
			t.Failures = append(t.Failures, Failure{Expectation: e.String(), Diff: d})
		}
	}
	t.Skipped = append(t.Skipped, k.skips...)
	t.Passed = len(t.Failures) == 0
	return t
}

// stopped says why ctx is done: the time budget, or the caller.
func (r *runner) stopped(ctx context.Context) string {
	if r.opts.Timeout > 0 && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return "the time budget (" + r.opts.Timeout.String() + ") was spent"
	}
	return "the eval was stopped (" + context.Cause(ctx).Error() + ")"
}

// secrets returns the values no request of case c may carry.
func (r *runner) secrets(c *Case) []string {
	out := r.set.secrets(c)
	for _, e := range c.Expect {
		if e.Kind == "no_secrets" {
			out = append(out, e.Values...)
		}
	}
	return out
}

// observer is the model a trial's run calls: it passes requests on, looks
// for secrets in them, and keeps the first cassette miss.
type observer struct {
	model   llm.Model
	secrets []string
	mu      sync.Mutex
	leaks   []string
	calls   int
	miss    *MissError
}

// Generate scans req for secrets, passes it on, and keeps a cassette miss.
func (o *observer) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	o.mu.Lock()
	o.calls++
	n := o.calls
	o.mu.Unlock()
	if len(o.secrets) > 0 {
		o.scan(n, req)
	}
	resp, err := o.model.Generate(ctx, req)
	var miss *MissError
	if errors.As(err, &miss) {
		o.mu.Lock()
		if o.miss == nil {
			o.miss = miss
		}
		o.mu.Unlock()
	}
	return resp, err
}

// scan records which secrets request n carries, and where.
func (o *observer) scan(n int, req llm.Request) {
	where := func(s string) {
		for i, secret := range o.secrets {
			if secret != "" && strings.Contains(s, secret) {
				o.mu.Lock()
				o.leaks = append(o.leaks, fmt.Sprintf("request %d carries secret %d (%s)", n, i+1, mask(secret)))
				o.mu.Unlock()
			}
		}
	}
	for _, m := range req.Messages {
		where(messageText(m))
	}
	for _, t := range req.Tools {
		where(t.Description + string(t.Parameters))
	}
}

// mask shows the start of a secret, enough to tell which.
func mask(s string) string {
	if len(s) <= 4 {
		return strings.Repeat("*", len(s))
	}
	return s[:3] + strings.Repeat("*", min(len(s)-3, 8))
}

func (o *observer) leaked() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.leaks...)
}

func (o *observer) missed() *MissError {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.miss
}

// maxAwaits is how many awaits of one trial the runner answers; past it,
// it denies, so that an action that asks for authorization again and
// again cannot keep a trial going for ever.
const maxAwaits = 100

// answerer answers a trial's awaits as its case says.
type answerer struct {
	c       *Case
	mu      sync.Mutex
	replies int
	awaits  int
	client  string // the client's tool the run called, if any
}

// clientCall is the tool of the run's client the run called, or "".
func (a *answerer) clientCall() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// clientError says why a trial whose run called a tool of its client
// (an AG-UI front end's) stopped.
func clientError(name string) string {
	return fmt.Sprintf("the run called %s, a tool its client runs and answers (an AG-UI front-end tool); an eval has no client to run it, so the run was canceled rather than given a made-up answer: give the set's agent a Go action %s that stands in for the front end", name, name)
}

func (a *answerer) answer(ctx context.Context, h *agent.Handle) {
	req, ok := h.Pending()
	if !ok {
		return
	}
	a.mu.Lock()
	a.awaits++
	n := a.awaits
	a.mu.Unlock()
	if req.Client && req.Call != nil {
		a.mu.Lock()
		a.client = req.Call.Name
		a.mu.Unlock()
		_ = h.Cancel(context.WithoutCancel(ctx))
		return
	}
	var ans run.Answer
	if n > maxAwaits && (req.Await == run.AwaitApproval || req.Await == run.AwaitAuthorization) {
		ans.Decision, ans.Reason = run.Denied, fmt.Sprintf("the eval answers at most %d awaits of a run", maxAwaits)
		_ = h.Resume(context.WithoutCancel(ctx), req.ID, ans)
		return
	}
	switch req.Await {
	case run.AwaitQuestion:
		a.mu.Lock()
		ans.Text = "no answer"
		if a.replies < len(a.c.Replies) {
			ans.Text = a.c.Replies[a.replies]
			a.replies++
		}
		a.mu.Unlock()
	case run.AwaitInput:
		ans.Input = []byte("null")
	default:
		ans.Decision = run.Approved
		if req.Call != nil {
			for _, d := range a.c.Deny {
				if d == req.Call.Name {
					ans.Decision, ans.Reason = run.Denied, "denied by the eval case"
				}
			}
		}
	}
	_ = h.Resume(context.WithoutCancel(ctx), req.ID, ans)
}
