package server

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"

	"github.com/byref/byref/run"
)

// Resume and cancel of one run are linearizable: each takes the run's
// control lock, and each checks, under it, that the run is still where it
// was when the request arrived. Of a resume and a cancel that race for an
// awaiting run, exactly one wins; the other is answered 409 with the
// run's status (data.status):
//
//   - the cancel wins (it moved the run to cancelling first): the resume
//     finds the run no longer awaiting;
//   - the resume wins (it recorded the answer first): a cancel that found
//     the run awaiting when it arrived finds it has moved on, and is not
//     applied; cancel again to cancel the resumed run;
//   - a cancel that arrives once the resumed run goes on cancels it, and
//     then a sync resume, whose run did not go on to its next await or end
//     but was cancelled, is answered 409 too;
//   - a cancel that finds the run ended (a resumed run may end before the
//     cancel is read) is 409 too, with the status it ended in.
//
// A resume of a cancelled run is 409 as well (a resume of a run that
// awaits nothing else is 403, as ACP's reference server answers).

// controlLocks is how many locks the runs' IDs are spread over.
const controlLocks = 64

// lockRun takes the control lock of a run and returns its release.
func (s *Server) lockRun(id run.ID) func() {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	mu := &s.control[h.Sum32()%controlLocks]
	mu.Lock()
	return mu.Unlock
}

// lockForCancel takes the control lock of a run that a cancel found as
// sum, and reads the run again under it. When a resume answered the await
// the cancel was sent for in the meantime, it answers 409 and returns
// false, the lock released; otherwise the caller holds the lock until it
// calls unlock.
func (s *Server) lockForCancel(w http.ResponseWriter, r *http.Request, sum run.Summary) (now run.Summary, unlock func(), ok bool) {
	unlock = s.lockRun(sum.ID)
	now, err := s.store.Get(r.Context(), sum.ID)
	if err != nil {
		unlock()
		s.fail(w, r, sum.ID, err)
		return run.Summary{}, nil, false
	}
	if sum.Status == run.StatusAwaiting && now.Status != run.StatusAwaiting && now.Status != run.StatusCancelling {
		// A resume won the race: the await this cancel was sent for has
		// been answered.
		unlock()
		writeConflict(w, sum.ID, now.Status, "it was resumed as this cancel arrived, which was not applied; cancel it again to cancel it")
		return run.Summary{}, nil, false
	}
	return now, unlock, true
}

// writeConflict answers 409 with the run's status in the message and in
// data.status.
func writeConflict(w http.ResponseWriter, id run.ID, status run.Status, msg string) {
	data, _ := json.Marshal(struct {
		Status string `json:"status"`
	}{acpStatus(status)})
	b, _ := json.Marshal(acpError{Code: CodeServerError, Message: fmt.Sprintf("Run %s is %s: %s", id, acpStatus(status), msg), Data: data})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusConflict)
	_, _ = w.Write(b)
}
