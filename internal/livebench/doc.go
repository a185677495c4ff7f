// Package livebench measures live runs end to end, across the protocols:
// an httptest provider speaking OpenAI's streamed chat completions drips
// a 2,000-token answer at one delta per millisecond to byref's OpenAI
// client, and SSE clients of ACP, A2A and AG-UI read it as it is written.
//
//	go test ./internal/livebench -run '^$' -bench FirstDelta -benchtime 100x
//	go test ./internal/livebench -run '^$' -bench Load -benchtime 1x
//
// BenchmarkFirstDelta reports how long after the provider sent its first
// delta a client of each protocol had it (p50 and p99 over the runs);
// BenchmarkLoad runs 200 streaming runs at once, with and without 50
// stalled clients, and reports the ratio of their times, the goroutines
// left behind, and the log's bytes per run with and without streaming.
// It holds tests only.
package livebench
