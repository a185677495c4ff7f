package a2a

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// Page sizes of ListTasks, as the specification sets them.
const (
	DefaultListPageSize = 50
	MaxListPageSize     = 100
)

// statusesOf maps a task state filter onto the run statuses that may
// have it (input-required and auth-required are both awaiting, told apart
// by the await).
var statusesOf = map[sdk.TaskState][]run.Status{
	sdk.TaskStateSubmitted:     {run.StatusCreated},
	sdk.TaskStateWorking:       {run.StatusRunning, run.StatusCancelling},
	sdk.TaskStateInputRequired: {run.StatusAwaiting},
	sdk.TaskStateAuthRequired:  {run.StatusAwaiting},
	sdk.TaskStateCompleted:     {run.StatusCompleted},
	sdk.TaskStateFailed:        {run.StatusFailed},
	sdk.TaskStateCanceled:      {run.StatusCanceled},
}

// ListTasks implements a2asrv.RequestHandler: the agent's A2A tasks,
// newest first, filtered by context, state and time (statusTimestampAfter
// keeps the tasks whose run recorded an event after it, so every task
// whose status changed after it), a page of pageSize (1 to 100, default
// 50) at a time. The page token is the ID of the last task of the page
// before; totalSize counts every task that passes the filters. Each task
// has its history cut to historyLength (all when unset) and its artifacts
// only with includeArtifacts.
//
// Listing scans the summaries of the agent's runs in the store, so its
// cost grows with the number of the agent's tasks; only the tasks of the
// page are folded.
func (h *handler) ListTasks(ctx context.Context, req *sdk.ListTasksRequest) (*sdk.ListTasksResponse, error) {
	size := req.PageSize
	switch {
	case size == 0:
		size = DefaultListPageSize
	case size < 0 || size > MaxListPageSize:
		return nil, fmt.Errorf("%w: pageSize %d is out of range; send 1 to %d (default %d)", sdk.ErrInvalidParams, size, MaxListPageSize, DefaultListPageSize)
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return nil, fmt.Errorf("%w: historyLength %d is negative; send 0 or more, or leave it out for the whole history", sdk.ErrInvalidParams, *req.HistoryLength)
	}
	q := run.Query{Tags: map[string]string{server.TagAgent: h.agent, TagProtocol: "a2a"}, Session: run.SessionID(req.ContextID), Limit: run.MaxListLimit}
	if req.Status != sdk.TaskStateUnspecified && req.Status != "" {
		statuses, ok := statusesOf[req.Status]
		if !ok {
			return nil, fmt.Errorf("%w: status %q is not a task state this agent's tasks take; send one of TASK_STATE_SUBMITTED, _WORKING, _INPUT_REQUIRED, _AUTH_REQUIRED, _COMPLETED, _FAILED or _CANCELED", sdk.ErrInvalidParams, req.Status)
		}
		q.Statuses = statuses
	}
	after := ""
	if req.PageToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(req.PageToken)
		if err != nil || !strings.HasPrefix(string(b), "after:") {
			return nil, fmt.Errorf("%w: pageToken %q is not one this server handed out; send the nextPageToken of the previous page, or none for the first page", sdk.ErrInvalidParams, req.PageToken)
		}
		after = strings.TrimPrefix(string(b), "after:")
	}
	resp := &sdk.ListTasksResponse{Tasks: []*sdk.Task{}}
	skipping := after != ""
	for {
		page, next, err := h.runs.Store().List(ctx, q)
		if err != nil {
			return nil, h.internal("listing tasks", err)
		}
		for _, sum := range page {
			if skipping {
				skipping = sum.ID != run.ID(after)
				if ok, err := h.listed(ctx, sum, req); err != nil {
					return nil, err
				} else if ok {
					resp.TotalSize++
				}
				continue
			}
			ok, err := h.listed(ctx, sum, req)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			resp.TotalSize++
			if len(resp.Tasks) == size {
				if resp.NextPageToken == "" {
					last := resp.Tasks[len(resp.Tasks)-1].ID
					resp.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte("after:" + string(last)))
				}
				continue
			}
			p, _, err := h.task(ctx, sdk.TaskID(sum.ID), nil)
			if err != nil {
				return nil, err
			}
			t := p.snapshot(req.HistoryLength)
			if !req.IncludeArtifacts {
				t.Artifacts = nil
			}
			resp.Tasks = append(resp.Tasks, t)
		}
		if next == "" {
			break
		}
		q.Cursor = next
	}
	if skipping {
		return nil, fmt.Errorf("%w: pageToken %q names no task of this listing; list again from the first page", sdk.ErrInvalidParams, req.PageToken)
	}
	resp.PageSize = len(resp.Tasks)
	return resp, nil
}

// listed reports whether a run passes the filters the store cannot apply:
// the time of its latest status, and auth-required apart from
// input-required (which needs the run's await, so its log).
func (h *handler) listed(ctx context.Context, sum run.Summary, req *sdk.ListTasksRequest) (bool, error) {
	if req.StatusTimestampAfter != nil && !sum.UpdatedAt.After(*req.StatusTimestampAfter) {
		return false, nil
	}
	if sum.Status != run.StatusAwaiting || (req.Status != sdk.TaskStateInputRequired && req.Status != sdk.TaskStateAuthRequired) {
		return true, nil
	}
	p, _, err := h.task(ctx, sdk.TaskID(sum.ID), nil)
	if err != nil {
		return false, err
	}
	return p.task.Status.State == req.Status, nil
}
