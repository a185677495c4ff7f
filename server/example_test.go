package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
)

// An agent on a scripted model, served over ACP and run once in sync mode.
func Example() {
	model := llm.NewScripted(llm.Text("Hello from byref."))
	s, err := server.New(server.Options{Agents: []server.Agent{{
		Name:        "greeter",
		Description: "Says hello.",
		Agent:       must(agent.New(agent.Options{Model: model})),
	}}})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s) // in a program: s.ListenAndServe(ctx, "127.0.0.1:8000")
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/runs", "application/json", strings.NewReader(
		`{"agent_name":"greeter","mode":"sync","input":[{"parts":[{"content":"Hi!"}]}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"status":"completed"`))
	fmt.Println(strings.Contains(string(body), `"content":"Hello from byref."`))
	// Output:
	// 200 true
	// true
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
