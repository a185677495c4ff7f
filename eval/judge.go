package eval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
)

// judgeSystem tells the judge how to answer; the expectation's prompt
// follows it.
const judgeSystem = `You judge the answer an AI agent gave to a task. Reply with one JSON object and nothing else: {"pass": true or false, "reason": "one sentence"}. The criterion:
`

// checkJudge asks Options.Judge whether the trial's result meets the
// expectation's prompt; without a judge the expectation is skipped.
func checkJudge(k *checker, e Expectation) string {
	if k.opts.Judge == nil {
		k.skips = append(k.skips, "judge: "+e.Prompt+": skipped, the judge is off (set Options.Judge, or byref eval run --judge provider:name)")
		return ""
	}
	user := fmt.Sprintf("Task: %s\n\nStatus: %s\n\nResult (JSON): %s", k.c.Task, k.t.Status, string(k.t.Result))
	if k.t.Reason != "" {
		user += "\n\nReason given: " + k.t.Reason
	}
	resp, err := k.opts.Judge.Generate(k.ctx, llm.Request{Messages: []llm.Message{llm.SystemMessage(judgeSystem + e.Prompt), llm.UserMessage(user)}})
	if err != nil {
		return "the judge failed: " + err.Error()
	}
	var verdict struct {
		Pass   bool   `json:"pass"`
		Reason string `json:"reason"`
	}
	text := resp.Text
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i || json.Unmarshal([]byte(text[i:j+1]), &verdict) != nil {
		return "the judge did not answer with {\"pass\":…,\"reason\":…}: " + clip(text, 200)
	}
	if !verdict.Pass {
		return "the judge says: " + verdict.Reason
	}
	return ""
}
