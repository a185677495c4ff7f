package server

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
)

// The wire types of the Agent Communication Protocol, as the acp-sdk 1.0.3
// clients validate them: times in UTC with a Z, slices never null, error codes
// from a closed set, await requests of type "message" only.

// ACP status names.
const (
	StatusCreated    = "created"
	StatusInProgress = "in-progress"
	StatusAwaiting   = "awaiting"
	StatusCancelling = "cancelling"
	StatusCancelled  = "cancelled"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// ACP error codes: the only three the TypeScript client accepts.
const (
	CodeServerError  = "server_error"
	CodeInvalidInput = "invalid_input"
	CodeNotFound     = "not_found"
)

// acpTime is a time written as RFC 3339 in UTC with a Z, the only form the
// TypeScript client accepts.
type acpTime time.Time

func (t acpTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Time(t).UTC().Format(time.RFC3339Nano))
}

func (t *acpTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var tt time.Time
	if err := json.Unmarshal(b, &tt); err != nil {
		return err
	}
	*t = acpTime(tt)
	return nil
}

// acpError is ACP's Error object.
type acpError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Data holds {"kind": run.FailureKind} for a failed run whose log
	// says why, with "refusal", what the model said, when it refused.
	Data json.RawMessage `json:"data,omitempty"`
}

// part is ACP's MessagePart.
type part struct {
	Name            *string         `json:"name,omitempty"`
	ContentType     *string         `json:"content_type"`
	Content         *string         `json:"content,omitempty"`
	ContentEncoding *string         `json:"content_encoding,omitempty"`
	ContentURL      *string         `json:"content_url,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
}

// message is ACP's Message.
type message struct {
	Role        string   `json:"role"`
	Parts       []part   `json:"parts"`
	CreatedAt   *acpTime `json:"created_at,omitempty"`
	CompletedAt *acpTime `json:"completed_at"`
}

// awaitRequest is ACP's AwaitRequest and AwaitResume: only the "message"
// type exists in practice.
type awaitRequest struct {
	Type    string   `json:"type"`
	Message *message `json:"message"`
}

// acpRun is ACP's Run.
type acpRun struct {
	RunID        string        `json:"run_id"`
	AgentName    string        `json:"agent_name"`
	SessionID    *string       `json:"session_id"`
	Status       string        `json:"status"`
	AwaitRequest *awaitRequest `json:"await_request"`
	Output       []message     `json:"output"`
	Error        *acpError     `json:"error"`
	CreatedAt    acpTime       `json:"created_at"`
	FinishedAt   *acpTime      `json:"finished_at"`
}

// clone returns a copy of r whose output slice can be appended to without
// changing r's. Messages are never modified once in Output.
func (r acpRun) clone() acpRun {
	r.Output = append([]message{}, r.Output...)
	return r
}

// acpEvent is ACP's Event: exactly one payload field is set.
type acpEvent struct {
	Type    string          `json:"type"`
	Run     *acpRun         `json:"run,omitempty"`
	Message *message        `json:"message,omitempty"`
	Part    *part           `json:"part,omitempty"`
	Generic json.RawMessage `json:"generic,omitempty"`
	Error   *acpError       `json:"error,omitempty"`
}

// manifest is ACP's AgentManifest.
type manifest struct {
	Name               string         `json:"name"`
	Description        *string        `json:"description"`
	InputContentTypes  []string       `json:"input_content_types"`
	OutputContentTypes []string       `json:"output_content_types"`
	Metadata           map[string]any `json:"metadata"`
}

// sessionDescriptor is ACP's Session.
type sessionDescriptor struct {
	ID      string   `json:"id"`
	History []string `json:"history"`
	State   *string  `json:"state"`
}

// createRequest is ACP's RunCreateRequest.
type createRequest struct {
	AgentName *string            `json:"agent_name"`
	Input     []message          `json:"input"`
	Mode      *string            `json:"mode"`
	SessionID *string            `json:"session_id"`
	Session   *sessionDescriptor `json:"session"`
}

// resumeRequest is ACP's RunResumeRequest (run_id, which no client sends,
// is ignored).
type resumeRequest struct {
	AwaitResume *awaitRequest `json:"await_resume"`
	Mode        *string       `json:"mode"`
}

var (
	agentNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	uuidRE      = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func ptr[T any](v T) *T { return &v }

// textPart returns a plain-text part.
func textPart(s string) part {
	return part{ContentType: ptr("text/plain"), Content: ptr(s), ContentEncoding: ptr("plain")}
}
