package bedrock

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/auth/bearer"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Options configures [New]: a provider configuration ([llm.Config]) and
// what only Bedrock has. Model is required: a model ID or an inference
// profile ("us.anthropic.claude-sonnet-4-5-20250929-v1:0",
// "amazon.nova-micro-v1:0") or its ARN. The zero value of every other
// field works: credentials and region come from the AWS SDK's default
// chain. Of the configuration: APIKey is a Bedrock API key, sent as a
// bearer token instead of signing (empty: AWS_BEARER_TOKEN_BEDROCK, which
// the SDK reads itself, else SigV4 with the credentials); BaseURL is the
// endpoint, for a VPC endpoint or a test server (empty: the region's);
// HTTPClient sends the requests; Provider names the provider in errors,
// "bedrock" when empty; MaxTokens, Temperature and TopP apply to requests
// that leave theirs unset; Getenv is not read (the SDK reads the
// environment itself).
type Options struct {
	llm.Config
	// Region is the AWS region ("us-east-1"); empty means the SDK's
	// default chain (AWS_REGION, AWS_DEFAULT_REGION, the profile's).
	Region string
	// Profile is the shared-config profile to load; empty means
	// AWS_PROFILE, else "default".
	Profile string
	// Credentials, when set, replace the default chain (environment,
	// shared config and credentials files, SSO, web identity, container
	// and instance roles), for example
	// credentials.NewStaticCredentialsProvider in tests.
	Credentials aws.CredentialsProvider
	// CachePoints says where cachePoint blocks go; the zero value,
	// [CacheAuto], sends them to the models that take them.
	CachePoints CachePoints
}

// Model is a [llm.Model] and [llm.Streamer] over Bedrock Runtime's
// Converse and ConverseStream. It is safe for concurrent use.
type Model struct {
	opts     Options
	client   *bedrockruntime.Client
	provider string
	cache    cacheSites
	ids      atomic.Uint64
}

// New returns a Model for opts. It loads the AWS configuration (the
// environment and the shared config files) but does no network I/O:
// credentials are resolved at the first call.
func New(opts Options) (*Model, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("bedrock: Options.Model is empty; name a model ID or inference profile, e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	}
	var load []func(*config.LoadOptions) error
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(opts.Profile))
	}
	if opts.Credentials != nil {
		load = append(load, config.WithCredentialsProvider(opts.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(context.Background(), load...)
	if err != nil {
		return nil, fmt.Errorf("bedrock: load the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("bedrock: no AWS region; set AWS_REGION (or Options.Region, or a region in the profile)")
	}
	m := &Model{opts: opts, provider: opts.Provider, cache: cacheSitesFor(opts.CachePoints, opts.Model)}
	if m.provider == "" {
		m.provider = "bedrock"
	}
	m.client = bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) {
		// Retries are the caller's (llm.WithRetry, a run's limits), as
		// with every byref provider: the SDK makes one attempt.
		o.Retryer = aws.NopRetryer{}
		if opts.BaseURL != "" {
			o.BaseEndpoint = aws.String(opts.BaseURL)
		}
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		if o.HTTPClient == nil {
			o.HTTPClient = awshttp.NewBuildableClient()
		}
		o.HTTPClient = wholeBody{o.HTTPClient}
		if opts.APIKey != "" {
			key := opts.APIKey
			o.BearerAuthTokenProvider = bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
				return bearer.Token{Value: key}, nil
			})
			o.AuthSchemePreference = []string{"httpBearerAuth"}
		}
	})
	return m, nil
}

// wholeBody reads a request's body into memory before sending it. The SDK
// hands ConverseStream's request body to net/http as a stream that it
// closes once the answer starts; when that close comes before net/http's
// last read of the body (the one that returns io.EOF), net/http takes the
// failed read for a broken request and closes the connection under the
// answer being streamed ("use of closed network connection"), one stream
// in ten on a local server. A body in memory ends without a race.
type wholeBody struct {
	next bedrockruntime.HTTPClient
}

// Do implements bedrockruntime.HTTPClient.
func (c wholeBody) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the request body: %w", err)
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return c.next.Do(req)
}

// Generate implements [llm.Model] with Converse.
func (m *Model) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	in, err := m.input(req)
	if err != nil {
		return llm.Response{}, err
	}
	out, err := m.client.Converse(ctx, in)
	if err != nil {
		return llm.Response{}, m.failure(ctx, err)
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return llm.Response{}, wire.BadResponse(m.provider, fmt.Errorf("the output is a %T, not a message", out.Output))
	}
	var resp llm.Response
	for _, b := range msg.Value.Content {
		if err := m.addBlock(&resp, b); err != nil {
			return llm.Response{}, err
		}
	}
	resp.Usage = usage(out.Usage)
	m.finish(&resp, out.StopReason)
	return resp, nil
}

// addBlock folds one content block of the answer into resp.
func (m *Model) addBlock(resp *llm.Response, b types.ContentBlock) error {
	switch b := b.(type) {
	case *types.ContentBlockMemberText:
		resp.Text += b.Value
	case *types.ContentBlockMemberToolUse:
		args, err := documentText(b.Value.Input)
		if err != nil {
			return wire.BadResponse(m.provider, fmt.Errorf("tool use input: %w", err))
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: aws.ToString(b.Value.ToolUseId), Name: aws.ToString(b.Value.Name), Arguments: args})
	case *types.ContentBlockMemberReasoningContent:
		switch r := b.Value.(type) {
		case *types.ReasoningContentBlockMemberReasoningText:
			text := aws.ToString(r.Value.Text)
			resp.Reasoning += text
			resp.Thinking = append(resp.Thinking, llm.Thinking{Text: text, Signature: aws.ToString(r.Value.Signature)})
		case *types.ReasoningContentBlockMemberRedactedContent:
			resp.Thinking = append(resp.Thinking, llm.Thinking{Redacted: base64.StdEncoding.EncodeToString(r.Value)})
		}
	}
	return nil
}

// documentText writes a tool-use input document as the JSON text of a
// call's arguments: {} when there is none, and without the HTML escapes
// (\u003c for <) that the SDK's encoder writes, so that a reference reads
// <<var:name>> in the arguments as it does from every other provider.
func documentText(d document.Interface) (string, error) {
	if d == nil {
		return "{}", nil
	}
	raw, err := d.MarshalSmithyDocument()
	if err != nil {
		return "", err
	}
	v, err := decode(raw)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "{}", nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// finish gives calls without an ID a unique one and maps the stop reason.
func (m *Model) finish(resp *llm.Response, reason types.StopReason) {
	for i := range resp.ToolCalls {
		if resp.ToolCalls[i].ID == "" {
			resp.ToolCalls[i].ID = m.newID()
		}
	}
	switch reason {
	case "end_turn", "stop_sequence":
		resp.StopReason = llm.StopEnd
	case "tool_use":
		resp.StopReason = llm.StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		resp.StopReason = llm.StopMaxTokens
	case "guardrail_intervened", "content_filtered":
		resp.StopReason = llm.StopContentFilter
	default:
		resp.StopReason = llm.StopReason(reason)
	}
	if len(resp.ToolCalls) > 0 && (resp.StopReason == llm.StopEnd || resp.StopReason == "") {
		resp.StopReason = llm.StopToolCalls
	}
}

// newID returns a call ID for a call that came without one.
func (m *Model) newID() string {
	return "tooluse_byref_" + strconv.FormatUint(m.ids.Add(1), 10)
}

// usage maps Bedrock's usage, whose inputTokens leaves out the tokens read
// from and written to the prompt cache; llm.Usage counts them in
// InputTokens and apart.
func usage(u *types.TokenUsage) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	read, write := int(aws.ToInt32(u.CacheReadInputTokens)), int(aws.ToInt32(u.CacheWriteInputTokens))
	return llm.Usage{
		InputTokens: int(aws.ToInt32(u.InputTokens)) + read + write, OutputTokens: int(aws.ToInt32(u.OutputTokens)),
		CacheReadTokens: read, CacheWriteTokens: write,
	}
}

// exceptions gives the HTTP status Bedrock documents for each exception,
// for the ones that arrive inside a stream, without a status of their own.
var exceptions = map[string]int{
	"ThrottlingException":           http.StatusTooManyRequests,
	"ModelNotReadyException":        http.StatusTooManyRequests,
	"ServiceUnavailableException":   http.StatusServiceUnavailable,
	"InternalServerException":       http.StatusInternalServerError,
	"ModelStreamErrorException":     http.StatusServiceUnavailable,
	"ModelTimeoutException":         http.StatusRequestTimeout,
	"ModelErrorException":           http.StatusServiceUnavailable,
	"ValidationException":           http.StatusBadRequest,
	"AccessDeniedException":         http.StatusForbidden,
	"ResourceNotFoundException":     http.StatusNotFound,
	"ServiceQuotaExceededException": http.StatusBadRequest,
}

// sdkError says what Bedrock said (the exception's name and message) and
// unwraps to the SDK's error, so that errors.As finds its typed exception
// (*types.ThrottlingException, ...).
type sdkError struct {
	msg string
	err error
}

func (e sdkError) Error() string { return e.msg }
func (e sdkError) Unwrap() error { return e.err }

// failure turns an SDK error into an [*llm.ProviderError] classified by the
// HTTP status of the answer, or by the exception's name when it came in a
// stream; the context's own error when it is done.
func (m *Model) failure(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("llm: %s: %w", m.provider, ctxErr)
	}
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return err
	}
	msg := err
	var api smithy.APIError
	if errors.As(err, &api) {
		msg = sdkError{fmt.Sprintf("%s: %s", api.ErrorCode(), api.ErrorMessage()), err}
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 300 {
		return llm.StatusError(m.provider, re.HTTPStatusCode(), wire.RetryAfter(re.Response.Header.Get("Retry-After")), msg)
	}
	if api != nil {
		if status, ok := exceptions[api.ErrorCode()]; ok {
			e := llm.StatusError(m.provider, status, 0, msg)
			e.StatusCode = 0 // it came inside a 200 stream
			return e
		}
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return &llm.ProviderError{Provider: m.provider, Retryable: true, Kind: llm.ErrProviderUnavailable, Err: err}
	}
	if re == nil && (strings.Contains(err.Error(), "get identity") || strings.Contains(err.Error(), "sign request")) {
		// Nothing was sent: no credentials could be found, or the
		// request could not be signed with them.
		return &llm.ProviderError{Provider: m.provider, Kind: llm.ErrUnauthorized,
			Err: fmt.Errorf("%w; configure AWS credentials (environment, profile, SSO or role) or a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK, sent only over HTTPS)", err)}
	}
	return wire.BadResponse(m.provider, err)
}
