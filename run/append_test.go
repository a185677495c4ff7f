package run

import (
	"errors"
	"testing"
	"time"
)

func TestPrepareAppend(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	e, sum, err := PrepareCreate(Event{RunID: "r", Payload: RunCreated{Name: "n"}}, now)
	if err != nil || e.Seq != 1 || e.Time.Location() != time.UTC || !e.Time.Equal(now) || sum.Status != StatusCreated {
		t.Fatalf("PrepareCreate = %+v, %+v, %v", e, sum, err)
	}
	dst := []Event{e}
	dst, next, err := PrepareAppend(dst, sum, 1, []Event{
		{Payload: StatusChanged{From: StatusCreated, To: StatusRunning, Reason: "go"}},
		{Payload: Usage{InputTokens: 1}},
	}, now)
	if err != nil || len(dst) != 3 || next.LastSeq != 3 || next.Status != StatusRunning || next.Reason != "go" ||
		dst[2].Seq != 3 || dst[2].RunID != "r" {
		t.Fatalf("PrepareAppend = %+v, %+v, %v", dst, next, err)
	}
	// A refused batch leaves dst and the summary as they were.
	got, same, err := PrepareAppend(dst, next, 3, []Event{{Payload: Usage{}}, {Payload: StatusChanged{From: StatusRunning, To: StatusCreated}}}, now)
	if !errors.Is(err, ErrIllegalTransition) || len(got) != 3 || same.LastSeq != 3 || same.Status != StatusRunning {
		t.Fatalf("refused batch: %d events, %+v, %v", len(got), same, err)
	}
}
