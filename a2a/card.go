package a2a

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/byref/byref/action"
	"github.com/byref/byref/server"
)

// BearerScheme is the name of the security scheme cards declare when the
// server wants a token.
const BearerScheme = "bearer"

// modes are the input and output media types of every agent.
var modes = []string{"text/plain", "application/json"}

// agentSkills returns the declared skills of an agent, else one per action
// of its runtime, else one for the agent.
func (s *Server) agentSkills(a server.Agent) []sdk.AgentSkill {
	if skills, ok := s.opts.Skills[a.Name]; ok {
		return skills
	}
	if a.Agent != nil {
		var skills []sdk.AgentSkill
		for _, act := range a.Agent.Actions().All() {
			if act == action.Terminate() || act == action.AskUser() {
				continue
			}
			skills = append(skills, sdk.AgentSkill{ID: act.Name(), Name: act.Name(), Description: act.Description(), Tags: []string{"action"}})
		}
		if len(skills) > 0 {
			return skills
		}
	}
	return []sdk.AgentSkill{agentSkill(a)}
}

// agentSkill is the skill an agent is on the root card.
func agentSkill(a server.Agent) sdk.AgentSkill {
	return sdk.AgentSkill{ID: a.Name, Name: a.Name, Description: describe(a), Tags: []string{"agent"},
		Examples: []string{"card: /a2a/" + a.Name + "/.well-known/agent-card.json"}}
}

func describe(a server.Agent) string {
	if a.Description != "" {
		return a.Description
	}
	return "The byref agent " + a.Name
}

// Card returns the card of the named agent, or the root card for "": the
// root card lists the agents as skills and its endpoint is the first
// agent's. base is the server's public URL.
func (s *Server) Card(base, agent string) (*sdk.AgentCard, error) {
	var card sdk.AgentCard
	if agent == "" {
		first := s.agents[0]
		card = sdk.AgentCard{Name: "byref", Description: "byref agents: each skill is an agent with its own card; this card's endpoint is the agent " + first.Name}
		for _, a := range s.agents {
			card.Skills = append(card.Skills, agentSkill(a))
		}
		agent = first.Name
	} else {
		var a *server.Agent
		for i := range s.agents {
			if s.agents[i].Name == agent {
				a = &s.agents[i]
			}
		}
		if a == nil {
			return nil, fmt.Errorf("a2a: no agent %q", agent)
		}
		card = sdk.AgentCard{Name: a.Name, Description: describe(*a), Skills: s.skills[a.Name]}
	}
	url := strings.TrimRight(base, "/") + "/a2a/" + agent
	card.SupportedInterfaces = []*sdk.AgentInterface{
		{URL: url, ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: Version},
		{URL: url, ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: LegacyVersion},
	}
	card.Version = s.opts.Version
	card.Capabilities = sdk.AgentCapabilities{Streaming: true, PushNotifications: s.push != nil}
	card.DefaultInputModes, card.DefaultOutputModes = modes, modes
	card.Provider = &sdk.AgentProvider{Org: "byref", URL: "https://github.com/byref/byref"}
	if s.opts.Token {
		card.SecuritySchemes = sdk.NamedSecuritySchemes{BearerScheme: sdk.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "The server's token: Authorization: Bearer <token>"}}
		card.SecurityRequirements = sdk.SecurityRequirementsOptions{{BearerScheme: sdk.SecuritySchemeScopes{}}}
	}
	return &card, nil
}

type baseKey struct{}

// cardHandler serves the card of the agent ("" for the root card) in the
// union of the v1.0 and v0.3 shapes, so that clients of either version
// read it.
func (s *Server) cardHandler(agent string) http.Handler {
	producer := a2av0.NewAgentCardProducer(a2asrv.AgentCardProducerFn(func(ctx context.Context) (*sdk.AgentCard, error) {
		base, _ := ctx.Value(baseKey{}).(string)
		return s.Card(base, agent)
	}))
	h := a2asrv.NewAgentCardHandler(producer)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), baseKey{}, s.base(r))))
	})
}

// base is the public URL of the server: Options.BaseURL, else the
// request's host.
func (s *Server) base(r *http.Request) string {
	if s.opts.BaseURL != "" {
		return s.opts.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
