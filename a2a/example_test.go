package a2a_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
)

// Serve a byref agent over A2A beside ACP, and send it a task with the Go
// SDK's client.
func ExampleMount() {
	ag, _ := agent.New(agent.Options{Model: llm.NewScripted(llm.Text("Hello, A2A!"))})
	srv, _ := server.New(server.Options{Agents: []server.Agent{{
		Name: "echo", Description: "Says what it is told.", Agent: ag,
	}}})
	defer srv.Close()
	if _, err := a2a.Mount(srv, a2a.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv) // or srv.ListenAndServe(ctx, "127.0.0.1:8000")
	defer ts.Close()

	ctx := context.Background()
	client, card, err := a2a.NewClient(ctx, ts.URL+"/a2a/echo", a2a.ClientOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Destroy()
	res, err := client.SendMessage(ctx, &sdk.SendMessageRequest{
		Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("Say hello")),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	task := res.(*sdk.Task)
	fmt.Println(card.Name, task.Status.State, task.Artifacts[0].Name, task.Artifacts[0].Parts[0].Text())
	// Output: echo TASK_STATE_COMPLETED result Hello, A2A!
}

// Call a remote A2A agent as an action: its artifacts become a variable.
func ExampleImport() {
	remote, _ := agent.New(agent.Options{Model: llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":{"city":"Paris","celsius":21}}`))})
	srv, _ := server.New(server.Options{Agents: []server.Agent{{
		Name: "weather", Description: "Says the weather.", Agent: remote,
	}}})
	defer srv.Close()
	_, _ = a2a.Mount(srv, a2a.Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	ctx := context.Background()
	weather, err := a2a.Import(ctx, ts.URL+"/a2a/weather", a2a.ImportOptions{Name: "weather"})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := agent.New(agent.Options{
		Actions: action.MustSet(weather),
		Model: llm.NewScripted(
			llm.CallTool("weather", `{"task":"The weather in Paris?","return":null}`),
			llm.CallTool("terminate", `{"success":true,"result":"<<var:weather_result>>"}`),
		),
	})
	out, _ := a.Run(ctx, agent.RunOptions{Task: "What is the weather in Paris?"})
	fmt.Println(out.Status, string(out.Result))
	// Output: completed {"celsius":21,"city":"Paris"}
}
