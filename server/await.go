package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// NoAnswer is the text a question is answered with when the resume message
// has no text (the TypeScript client's examples resume with parts: []).
const NoAnswer = "(the user gave no answer)"

// awaitParts describes an await as the parts of an ACP await request: a
// text/plain part saying what is asked and how to answer, then an
// application/json part named "await.json" holding the byref await itself.
func awaitParts(d run.AwaitRequested) []part {
	raw, _ := marshal(d)
	return []part{
		textPart(awaitText(d)),
		{Name: ptr("await.json"), ContentType: ptr("application/json"), Content: ptr(string(raw)), ContentEncoding: ptr("plain")},
	}
}

const replyApproval = `Reply "approve", or "deny: <reason>"`

// awaitText says what an await asks, with the call's references resolved.
func awaitText(d run.AwaitRequested) string {
	var b strings.Builder
	switch d.Await {
	case run.AwaitApproval:
		switch {
		case d.Call != nil:
			fmt.Fprintf(&b, "Approve the call %s(%s)?\n", d.Call.Name, d.Call.Arguments)
			b.WriteString(d.Call.DescribeReferences())
			b.WriteString(replyApproval + `, or the edited arguments as a JSON object.`)
		case d.Snippet != nil:
			fmt.Fprintf(&b, "Approve running this Go code?\n\n%s\n\n", strings.TrimSpace(d.Snippet.Code))
			if len(d.Snippet.Reads) > 0 {
				fmt.Fprintf(&b, "It reads %s.\n", strings.Join(d.Snippet.Reads, ", "))
			}
			if len(d.Snippet.Writes) > 0 {
				fmt.Fprintf(&b, "It writes %s.\n", strings.Join(d.Snippet.Writes, ", "))
			}
			b.WriteString(replyApproval + ".")
		default:
			msg := d.Message
			if msg == "" {
				msg = "Approve?"
			}
			b.WriteString(msg + "\n" + replyApproval + ".")
		}
	case run.AwaitQuestion:
		b.WriteString(d.Message)
	case run.AwaitAuthorization:
		msg := d.Message
		if msg == "" && d.Call != nil {
			msg = "The call of " + d.Call.Name + " needs your authorization."
		}
		b.WriteString(msg + "\n")
		if d.Link != "" {
			fmt.Fprintf(&b, "Authorize at: %s\n", d.Link)
		}
		b.WriteString(`Reply "done" once you have authorized, or "deny: <reason>".`)
	case run.AwaitInput:
		b.WriteString(d.Message + "\nReply with the input as JSON (an application/json part, or JSON text).")
	default:
		b.WriteString(d.Message)
	}
	return b.String()
}

// answerFor maps the message of an ACP await resume onto the answer of the
// pending await (see the package documentation for the mapping).
func answerFor(d run.AwaitRequested, m *message) (run.Answer, error) {
	text, jsonText, err := resumeContent(m)
	if err != nil {
		return run.Answer{}, err
	}
	t := strings.TrimSpace(text)
	switch d.Await {
	case run.AwaitQuestion:
		if t == "" {
			return run.Answer{Text: NoAnswer}, nil
		}
		return run.Answer{Text: t}, nil
	case run.AwaitInput:
		switch {
		case jsonText != "":
			return run.Answer{Input: json.RawMessage(jsonText)}, nil
		case json.Valid([]byte(t)) && t != "":
			return run.Answer{Input: json.RawMessage(t)}, nil
		}
		b, _ := json.Marshal(t)
		return run.Answer{Input: b}, nil
	case run.AwaitApproval, run.AwaitAuthorization:
		args := jsonText
		if args == "" && strings.HasPrefix(t, "{") {
			args = t
		}
		if args != "" {
			if d.Call == nil || d.Await != run.AwaitApproval {
				return run.Answer{}, fmt.Errorf("only the approval of a tool call takes edited arguments; %s", replyApproval)
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(args), &obj); err != nil {
				return run.Answer{}, fmt.Errorf("edited arguments must be a JSON object: %v", err)
			}
			return run.Answer{Decision: run.Approved, Arguments: args}, nil
		}
		word, rest := t, ""
		if i := strings.IndexAny(t, ": \n"); i >= 0 {
			word, rest = t[:i], strings.TrimLeft(t[i:], ": \n\t")
		}
		switch strings.ToLower(strings.TrimRight(word, ".!")) {
		case "approve", "approved", "yes", "y", "ok", "allow", "done", "authorized":
			return run.Answer{Decision: run.Approved}, nil
		case "deny", "denied", "no", "n", "reject", "rejected":
			return run.Answer{Decision: run.Denied, Reason: rest}, nil
		}
		if t == "" {
			return run.Answer{}, fmt.Errorf("the resume message is empty, and an %s needs a decision; %s", d.Await, replyApproval)
		}
		return run.Answer{}, fmt.Errorf("%q is not a decision; %s", t, replyApproval)
	}
	return run.Answer{}, fmt.Errorf("the run awaits %q, which this server cannot answer", d.Await)
}

// resumeContent returns the text of a message's text parts (joined by
// newlines) and the content of its first application/json part.
func resumeContent(m *message) (text, jsonText string, err error) {
	if m == nil {
		return "", "", nil
	}
	var texts []string
	for _, p := range m.Parts {
		s, ct, err := partText(p)
		if err != nil {
			return "", "", err
		}
		if ct == "application/json" && jsonText == "" {
			jsonText = s
			continue
		}
		texts = append(texts, s)
	}
	return strings.Join(texts, "\n"), jsonText, nil
}

// partText returns a part's content as text, and its media type.
func partText(p part) (string, string, error) {
	ct := partType(p)
	b, err := partContent(p)
	if err != nil {
		return "", ct, err
	}
	if !strings.HasPrefix(ct, "text/") && ct != "application/json" {
		return "", ct, fmt.Errorf("a part of type %s is not supported; send text/* or application/json", ct)
	}
	if ct == "application/json" && !json.Valid(b) {
		return "", ct, fmt.Errorf("an application/json part holds invalid JSON")
	}
	return string(b), ct, nil
}

// roleRE is the pattern of ACP message roles: user, agent or
// agent/<name>.
var roleRE = regexp.MustCompile(`^(user|agent(/[a-zA-Z0-9_-]+)?)$`)

// inputText splits a run's input into the task, the text of the user
// messages after the last agent message (the parts of a message joined by
// newlines, the messages by blank lines), and the history before them,
// which continues the run's session history: user messages as the user's,
// agent messages as the model's. An empty role is "user", ACP's default. A role that is not user, agent or
// agent/<name>, or an input that does not end with a user message, is
// refused.
func inputText(msgs []message) (task string, history []llm.Message, err error) {
	last := -1 // the last agent message
	texts := make([]string, len(msgs))
	for i := range msgs {
		if msgs[i].Role == "" {
			msgs[i].Role = "user" // ACP's default
		}
		m := msgs[i]
		if !roleRE.MatchString(m.Role) {
			return "", nil, fmt.Errorf("input[%d].role %q is not an ACP role; send \"user\" (or \"agent\", \"agent/NAME\" for earlier agent replies)", i, m.Role)
		}
		var parts []string
		for j, p := range m.Parts {
			if attachment(p) {
				continue // a variable (inputVariables)
			}
			s, _, err := partText(p)
			if err != nil {
				return "", nil, fmt.Errorf("input[%d].parts[%d]: %w", i, j, err)
			}
			parts = append(parts, s)
		}
		texts[i] = strings.Join(parts, "\n")
		if m.Role != "user" {
			last = i
		}
	}
	var out []string
	for _, s := range texts[last+1:] {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		if last >= 0 {
			return "", nil, fmt.Errorf("input ends with an agent message (input[%d]); end it with a user message with a text part", last)
		}
		return "", nil, errNoText
	}
	for i, m := range msgs[:last+1] {
		if strings.TrimSpace(texts[i]) == "" {
			continue
		}
		if m.Role == "user" {
			history = append(history, llm.UserMessage(texts[i]))
		} else {
			history = append(history, llm.Message{Role: llm.RoleAssistant, Text: texts[i]})
		}
	}
	return strings.Join(out, "\n\n"), history, nil
}

// errNoText is inputText's error for an input with no text.
var errNoText = errors.New("input has no text; send at least one message with a text part")

// DescribeAwait says what an await asks and how to answer it: the text of
// the await request's text/plain part.
func DescribeAwait(a run.AwaitRequested) string { return awaitText(a) }

// ParseAnswer maps the text of a reply onto the answer to a, as a resume
// message holding that text is mapped (see the package documentation). The
// error says which replies are accepted.
func ParseAnswer(a run.AwaitRequested, text string) (run.Answer, error) {
	m := &message{Parts: []part{}}
	if text != "" {
		m.Parts = append(m.Parts, textPart(text))
	}
	return answerFor(a, m)
}
