package mcp

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/variable"
)

// DefaultMaxResource is the default of ResourceOptions.MaxBytes.
const DefaultMaxResource = 16 << 20

// Resource is the contents of an MCP resource, as a variable holds it:
// text or bytes, with its MIME type. The model sees its preview (type,
// size, the start of a text) and passes it by reference to actions that
// take a Resource; its bytes never enter the prompt.
type Resource struct {
	URI      string `json:"uri"`
	Name     string `json:"name,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	// Text is a text resource's contents; Blob a binary one's.
	Text string `json:"text,omitempty"`
	Blob []byte `json:"blob,omitempty"`
}

// Bytes returns the contents: the text's bytes, or the blob.
func (r Resource) Bytes() []byte {
	if r.Blob != nil {
		return r.Blob
	}
	return []byte(r.Text)
}

// Preview implements variable.Previewer: the MIME type, the size and the
// URI, and the start of a text.
func (r Resource) Preview(limit int) string {
	mt := r.MIMEType
	if mt == "" {
		mt = "application/octet-stream"
		if r.Blob == nil {
			mt = "text/plain"
		}
	}
	s := fmt.Sprintf("%s, %d bytes, %s", mt, len(r.Bytes()), r.URI)
	if r.Blob == nil && r.Text != "" {
		s += ": " + r.Text
	}
	if rs := []rune(s); limit > 0 && len(rs) > limit {
		s = string(rs[:limit]) + "…"
	}
	return s
}

// ResourceOptions configures Resources. The zero value reads every
// resource under its own name (made a Go identifier).
type ResourceOptions struct {
	// Prefix is put in front of every variable's name.
	Prefix string
	// Filter keeps the resources it returns true for. Nil keeps all.
	Filter func(*sdk.Resource) bool
	// MaxBytes bounds each resource's contents; a larger one is an error
	// that names it. Zero means DefaultMaxResource.
	MaxBytes int
}

// Resources reads the resources the session's server lists and returns
// them as starting variables of a run (agent.RunOptions.Variables), each
// a Resource named after the resource (a Go identifier, with
// ResourceOptions.Prefix) and described by its description.
func Resources(ctx context.Context, session *sdk.ClientSession, opts ResourceOptions) ([]variable.Spec, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxResource
	}
	var out []variable.Spec
	seen := map[string]string{}
	for res, err := range session.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: listing resources: %w", err)
		}
		if opts.Filter != nil && !opts.Filter(res) {
			continue
		}
		name, err := actionName(opts.Prefix + res.Name)
		if err != nil {
			return nil, fmt.Errorf("mcp: resource %s: %w", res.URI, err)
		}
		if other, ok := seen[name]; ok {
			return nil, fmt.Errorf("mcp: resources %s and %s are both named %s as variables; set ResourceOptions.Filter to keep one", other, res.URI, name)
		}
		seen[name] = res.URI
		r, err := readResource(ctx, session, res.URI, opts.MaxBytes)
		if err != nil {
			return nil, err
		}
		r.Name = res.Name
		if r.MIMEType == "" {
			r.MIMEType = res.MIMEType
		}
		desc := res.Description
		if desc == "" {
			desc = res.Title
		}
		out = append(out, variable.Spec{Name: name, Value: r, Description: desc})
	}
	return out, nil
}

// readResource reads a resource's first contents.
func readResource(ctx context.Context, session *sdk.ClientSession, uri string, max int) (Resource, error) {
	res, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return Resource{}, fmt.Errorf("mcp: reading resource %s: %w", uri, err)
	}
	if len(res.Contents) == 0 || res.Contents[0] == nil {
		return Resource{}, fmt.Errorf("mcp: resource %s has no contents", uri)
	}
	c := res.Contents[0]
	r := Resource{URI: uri, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
	if n := len(r.Bytes()); n > max {
		return Resource{}, fmt.Errorf("mcp: resource %s holds %d bytes, more than %d (ResourceOptions.MaxBytes)", uri, n, max)
	}
	return r, nil
}

var resourceType = reflect.TypeFor[Resource]()

// templateVar matches the variables of a URI template (RFC 6570): {name},
// and the operator forms {+name}, {#name}, {/name}, {?a,b}.
var templateVar = regexp.MustCompile(`\{([+#./;?&]?)([A-Za-z0-9_,]+)\}`)

// Templates returns one action per resource template of the session's
// server: its parameters are the template's variables (strings), and
// calling it reads the resource the filled-in URI names and returns it as
// a Resource, which the run keeps as a variable for later actions to take
// by reference. ImportOptions.Prefix and NeedsApproval apply
// (NeedsApproval is given a tool named after the template);
// Filter is not used.
func Templates(ctx context.Context, session *sdk.ClientSession, opts ImportOptions) ([]*action.Action, error) {
	var out []*action.Action
	for tmpl, err := range session.ResourceTemplates(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: listing resource templates: %w", err)
		}
		a, err := templateAction(session, tmpl, opts)
		if err != nil {
			return nil, fmt.Errorf("mcp: resource template %q: %w", tmpl.Name, err)
		}
		out = append(out, a)
	}
	return out, nil
}

func templateAction(session *sdk.ClientSession, tmpl *sdk.ResourceTemplate, opts ImportOptions) (*action.Action, error) {
	name, err := actionName(opts.Prefix + tmpl.Name)
	if err != nil {
		return nil, err
	}
	var params []action.Param
	seen := map[string]bool{}
	for _, m := range templateVar.FindAllStringSubmatch(tmpl.URITemplate, -1) {
		for _, v := range strings.Split(m[2], ",") {
			if seen[v] {
				continue
			}
			if n, err := actionName(v); err != nil || n != v {
				return nil, fmt.Errorf("the template variable %q is not a Go identifier, which a parameter's name must be", v)
			}
			seen[v] = true
			params = append(params, action.Param{Name: v, Description: "The " + v + " of the resource's URI."})
		}
	}
	in := []reflect.Type{ctxType}
	for range params {
		in = append(in, stringType)
	}
	ft := reflect.FuncOf(in, []reflect.Type{resourceType, errType}, false)
	uriTemplate := tmpl.URITemplate
	fn := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		ctx := args[0].Interface().(context.Context)
		values := map[string]string{}
		for i, p := range params {
			values[p.Name] = args[i+1].String()
		}
		r, err := readResource(ctx, session, expand(uriTemplate, values), DefaultMaxResource)
		ev := reflect.Zero(errType)
		if err != nil {
			ev = reflect.ValueOf(&err).Elem()
		}
		return []reflect.Value{reflect.ValueOf(r), ev}
	})
	desc := tmpl.Description
	if desc == "" {
		desc = tmpl.Title
	}
	if desc == "" {
		desc = "Reads the resource " + tmpl.URITemplate
	}
	return action.New(action.Spec{
		Name: name, Description: desc, Func: fn.Interface(), Params: params,
		Result:        "the resource (its MIME type, size and contents)",
		NeedsApproval: opts.NeedsApproval != nil && opts.NeedsApproval(&sdk.Tool{Name: tmpl.Name}),
	})
}

// expand fills in a URI template's variables, escaped; the operators of
// RFC 6570 level 2 and 3 ({+x} reserved, {#x} fragment, {/x} path, {?x}
// query) are honoured for single values.
func expand(tmpl string, values map[string]string) string {
	return templateVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := templateVar.FindStringSubmatch(m)
		op, names := sub[1], strings.Split(sub[2], ",")
		var parts []string
		for _, n := range names {
			v := values[n]
			switch op {
			case "+", "#":
				parts = append(parts, v)
			case "?", "&", ";":
				parts = append(parts, n+"="+url.QueryEscape(v))
			default:
				parts = append(parts, url.PathEscape(v))
			}
		}
		switch op {
		case "?":
			return "?" + strings.Join(parts, "&")
		case "&":
			return "&" + strings.Join(parts, "&")
		case "#", "/", ".", ";":
			return op + strings.Join(parts, map[string]string{"#": ",", "/": "/", ".": ".", ";": ";"}[op])
		}
		return strings.Join(parts, ",")
	})
}

// Prompt returns the text of the session's server's prompt name, filled
// in with args: its messages' text, joined by blank lines. Use it as a
// run's Task or Instructions (an MCP prompt is a template the user picks,
// not something the model calls, so prompts are not actions).
func Prompt(ctx context.Context, session *sdk.ClientSession, name string, args map[string]string) (string, error) {
	res, err := session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("mcp: prompt %s: %w", name, err)
	}
	var texts []string
	for _, m := range res.Messages {
		if t, ok := m.Content.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n\n"), nil
}
