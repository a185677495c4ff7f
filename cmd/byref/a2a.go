package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
)

// a2aUsage is the help of byref a2a.
const a2aUsage = `byref a2a call URL "task" [flags]
                                 send a task to an A2A agent (URL: the agent's, or its card's)
                                 and show its progress as it streams; prints the task's
                                 artifacts, and how to answer when it asks for input
      --token secret             bearer token (default $BYREF_TOKEN)
      --task ID                  send the message on this task: the answer it awaits
      --context ID               start the task in this context: a follow-up
`

// a2aCmd is byref a2a.
func a2aCmd(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "call" {
		fmt.Fprint(stdout, a2aUsage)
		if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
			return nil
		}
		return usagef("unknown a2a command %q; the one command is call", args[0])
	}
	fs := newFlags("a2a call")
	token := fs.String("token", os.Getenv("BYREF_TOKEN"), "")
	taskID := fs.String("task", "", "")
	contextID := fs.String("context", "", "")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef(`byref a2a call takes the agent's URL and the task: byref a2a call URL "task"`)
	}
	url, text := pos[0], pos[1]
	c, card, err := a2a.NewClient(ctx, url, a2a.ClientOptions{Token: *token})
	if err != nil {
		return err
	}
	defer c.Destroy()
	fmt.Fprintf(stdout, "agent %s: %s\n", card.Name, card.Description)
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart(text))
	msg.TaskID, msg.ContextID = sdk.TaskID(*taskID), *contextID
	var (
		task   sdk.TaskInfo
		status sdk.TaskStatus
		arts   = map[sdk.ArtifactID]*sdk.Artifact{}
		order  []sdk.ArtifactID
	)
	for ev, err := range c.SendStreamingMessage(ctx, &sdk.SendMessageRequest{Message: msg}) {
		if err != nil {
			return fmt.Errorf("a2a: %w", err)
		}
		switch e := ev.(type) {
		case *sdk.Message:
			fmt.Fprintf(stdout, "message: %s\n", partsText(e.Parts))
			return nil
		case *sdk.Task:
			task, status = e.TaskInfo(), e.Status
			fmt.Fprintf(stdout, "task %s (context %s)\n", e.ID, e.ContextID)
			printStatus(stdout, status)
		case *sdk.TaskStatusUpdateEvent:
			task, status = e.TaskInfo(), e.Status
			printStatus(stdout, status)
		case *sdk.TaskArtifactUpdateEvent:
			task = e.TaskInfo()
			if _, ok := arts[e.Artifact.ID]; !ok {
				order = append(order, e.Artifact.ID)
			}
			arts[e.Artifact.ID] = e.Artifact
			fmt.Fprintf(stdout, "  artifact %s\n", e.Artifact.Name)
		}
	}
	for _, id := range order {
		a := arts[id]
		fmt.Fprintf(stdout, "artifact %s:\n%s\n", a.Name, partsText(a.Parts))
	}
	switch status.State {
	case sdk.TaskStateInputRequired, sdk.TaskStateAuthRequired:
		fmt.Fprintf(stdout, "to answer: byref a2a call %s --task %s \"ANSWER\"\n", url, task.TaskID)
	case sdk.TaskStateCompleted:
		fmt.Fprintf(stdout, "to follow up: byref a2a call %s --context %s \"MESSAGE\"\n", url, task.ContextID)
	case sdk.TaskStateFailed, sdk.TaskStateRejected, sdk.TaskStateCanceled:
		return fmt.Errorf("the task ended %s", stateWord(status.State))
	}
	return nil
}

// printStatus prints a task's state and its message.
func printStatus(w io.Writer, s sdk.TaskStatus) {
	if s.Message == nil {
		fmt.Fprintf(w, "  %s\n", stateWord(s.State))
		return
	}
	fmt.Fprintf(w, "  %s: %s\n", stateWord(s.State), strings.ReplaceAll(partsText(s.Message.Parts), "\n", "\n    "))
}

func stateWord(s sdk.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

// partsText renders parts: text as it is, data as indented JSON, other
// parts by kind.
func partsText(parts sdk.ContentParts) string {
	var out []string
	for _, p := range parts {
		switch c := p.Content.(type) {
		case sdk.Text:
			out = append(out, string(c))
		case sdk.Data:
			b, _ := json.MarshalIndent(c.Value, "", "  ")
			out = append(out, string(b))
		case sdk.URL:
			out = append(out, "file "+string(c))
		case sdk.Raw:
			out = append(out, fmt.Sprintf("(%d bytes of %s)", len(c), p.MediaType))
		}
	}
	return strings.Join(out, "\n")
}
