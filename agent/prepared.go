package agent

import (
	"reflect"
	"sync"

	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// prepared is a call whose arguments are resolved and decoded: the one
// resolution of a call, made when it is scheduled for execution and carried
// through approval and execution. It is the call's scratch too: prepared
// values are pooled (newPrepared, putPrepared).
type prepared struct {
	row  *row
	args []reflect.Value
	// res is the resolution for the log; record is its Args.
	res    *run.Resolution
	record []run.Argument
	// tracked are the variables passed by reference that the call could
	// change in place, with their fingerprints before the call.
	tracked []trackedRef
	// target is the existing variable named in "return", or "".
	target string
	// tainted reports that the call was given a sensitive variable: its
	// result (unless the action declassifies it) and the variables it could
	// change in place are tainted.
	tainted bool
	// secretIn names the sensitive variables the call was given.
	secretIn []string
	// argsBuf holds args for actions of few parameters.
	argsBuf [4]reflect.Value
	// block holds the decoded raw arguments, one field per parameter: one
	// allocation for all of them.
	block reflect.Value
	// spare is an earlier call's block, zeroed, taken for the next call
	// of an action of the same parameters' types (a call passes its
	// arguments by value: the function keeps no hold on the block).
	spare reflect.Value
	// fields and at are prepare's scratch: the members of the arguments'
	// object, and the member of each parameter.
	fields fields
	at     []int
	// flight is the call as the watchdog sees it while it runs.
	flight inflight
}

type trackedRef struct {
	name   string
	before uint64
}

type callResult struct {
	value reflect.Value
	err   error
}

// preparedPool holds the prepared values of calls that are over.
var preparedPool = sync.Pool{New: func() any { return new(prepared) }}

// newPrepared takes a prepared value from the pool; putPrepared gives it
// back, cleared, its block kept for the next call. The function that calls
// one calls the other (runJob): a prepared value lives for one call, and
// nothing of it may be kept after.
func newPrepared() *prepared { return preparedPool.Get().(*prepared) }

func putPrepared(p *prepared) {
	p.reset()
	preparedPool.Put(p)
}

// reset clears p for another call, keeping its buffers.
func (p *prepared) reset() {
	spare := p.spare
	if p.block.IsValid() {
		spare = p.block
		spare.SetZero()
	}
	*p = prepared{tracked: p.tracked[:0], spare: spare, fields: p.fields[:0], at: p.at[:0]}
}

// arg returns a settable value for raw argument i: a field of the call's
// one block of decoded arguments (see row.argsType).
func (p *prepared) arg(i int) reflect.Value {
	if !p.block.IsValid() {
		t := p.row.argsType()
		if t == nil {
			return reflect.New(p.row.param(i).Type).Elem()
		}
		if p.spare.IsValid() && p.spare.Type() == t {
			p.block, p.spare = p.spare, reflect.Value{}
		} else {
			p.block = reflect.New(t).Elem()
		}
	}
	return p.block.Field(i)
}

// resolution is the record of p for the log.
func (p *prepared) resolution() *run.Resolution {
	p.res.Target = p.target
	return p.res
}

// newResolution returns a resolution of n arguments, in one allocation for
// up to four: the arguments are held in the resolution's own small array,
// as slog.Record holds its first attributes.
func newResolution(n int) *run.Resolution {
	if n > 4 {
		return &run.Resolution{Args: make([]run.Argument, n)}
	}
	r := new(struct {
		run.Resolution
		front [4]run.Argument
	})
	r.Args = r.front[:n:n]
	return &r.Resolution
}

// members returns, for each parameter of r, the index of its member in fs
// (-1 when it has none), in p's scratch; ok is false when a member names
// no parameter (checkNames says which).
func (p *prepared) members(r *row, fs fields, plain bool) (at []int, ok bool) {
	ps := r.parameters()
	at = p.at[:0]
	for range ps {
		at = append(at, -1)
	}
	p.at = at
	for k := range fs {
		key := fs[k].key
		j := -1
		for i := range ps { // by index: a Parameter is a large struct
			if ps[i].Name == string(key) {
				j = i
				break
			}
		}
		switch {
		case j >= 0:
			at[j] = k
		case plain || string(key) != schema.ReturnProperty:
			return nil, false
		}
	}
	return at, true
}
