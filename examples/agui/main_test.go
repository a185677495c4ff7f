package main

import (
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	var out strings.Builder
	if err := walk(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"RUN_STARTED",
		`"api_key":{"type":"string","preview":"(secret)","secret":true}`,
		`TOOL_CALL_START toolCallName="forecast"`,
		`outcome={"type":"interrupt"`,
		"the front end approves",
		`ACTIVITY_SNAPSHOT content={"message":"asking the weather service"`,
		`TEXT_MESSAGE_CONTENT delta="Here "`,
		`TOOL_CALL_RESULT content="{\"success\":true,\"variables\":[{\"name\":\"forecast_result\"`,
		`outcome={"type":"success"}`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "sk-not-for-front-ends") {
		t.Errorf("the secret reached the front end:\n%s", out.String())
	}
}
