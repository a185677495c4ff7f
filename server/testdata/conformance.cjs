// ACP conformance: the official TypeScript client (acp-sdk 1.0.3, its
// CommonJS build, loaded with createRequire: its ESM build fails on Node 20)
// against a byref server. Run by conformance_test.go with ACP_PREFIX (the
// npm --prefix directory acp-sdk is installed in) and ACP_URL (the server). Prints one
// line per case, "ok NAME (MS ms)" or "FAIL NAME: why", and exits 1 on any
// failure.
"use strict";
const assert = require("node:assert/strict");
const { setTimeout: sleep } = require("node:timers/promises");
const { createRequire } = require("node:module");
const path = require("node:path");
const { Client, ACPError } = createRequire(path.join(process.env.ACP_PREFIX, "package.json"))("acp-sdk");

const baseUrl = process.env.ACP_URL;
const client = new Client({ baseUrl });
const input = [{ parts: [{ content: "Hello!", content_type: "text/plain" }] }];
const say = (text) => ({ type: "message", message: { parts: text === "" ? [] : [{ content: text }] } });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function collect(gen) {
  const events = [];
  for await (const e of gen) events.push(e);
  return events;
}
const types = (events) => events.map((e) => e.type);
// settled drops what a stream shows of a message while it is written (its
// message.part events: the text as it streams; its message.created, with
// the message's one created_at, stays), and the generic live deltas: what
// is left is the run's record, the same streamed and read back with
// runEvents.
const settled = (events) => events.filter((e) => e.type !== "message.part" &&
  !(e.type === "generic" && e.generic && e.generic.type === "delta"));
const text = (run) => run.output.flatMap((m) => m.parts.map((p) => p.content)).join("\n");

async function until(runId, done, ms = 3000) {
  const end = Date.now() + ms;
  let run = await client.runStatus(runId);
  while (!done(run) && Date.now() < end) {
    await sleep(20);
    run = await client.runStatus(runId);
  }
  return run;
}

async function expectACPError(promise, code) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ACPError, `want ACPError, got ${e}`);
    assert.equal(e.code, code);
    return e;
  }
  assert.fail(`want ACPError ${code}, got success`);
}

const cases = {
  "ping": async () => {
    assert.equal(await client.ping(), undefined);
  },
  "agents": async () => {
    const names = (await client.agents()).map((a) => a.name);
    for (const n of ["echo", "slow_echo", "awaiter", "failer", "history_echo"]) assert.ok(names.includes(n), n);
    assert.equal((await client.agent("echo")).name, "echo");
  },
  "unknown agent": async () => {
    await expectACPError(client.agent("nobody"), "not_found");
    await expectACPError(client.runSync("nobody", input), "not_found");
  },
  "unknown run": async () => {
    await expectACPError(client.runStatus("7d0a1c1e-8c53-4bd6-a2f5-3c2b7a1e0b11"), "not_found");
  },
  "sync": async () => {
    const run = await client.runSync("echo", input);
    assert.equal(run.status, "completed");
    assert.match(run.run_id, UUID);
    assert.match(run.session_id, UUID);
    assert.equal(run.output.length, 1);
    assert.equal(run.output[0].role, "agent/echo");
    assert.equal(run.output[0].parts[0].content, "Hello!");
    assert.equal(run.output[0].parts[0].content_type, "text/plain");
    assert.ok(run.finished_at);
  },
  "async is created": async () => {
    const run = await client.runAsync("echo", input);
    assert.equal(run.status, "created");
  },
  "async with polling": async () => {
    let run = await client.runAsync("echo", input);
    while (run.status === "created" || run.status === "in-progress") run = await client.runStatus(run.run_id);
    assert.equal(run.status, "completed");
    assert.equal(text(run), "Hello!");
  },
  "stream": async () => {
    const events = await collect(client.runStream("echo", input));
    assert.deepEqual(types(events), ["run.created", "run.in-progress", "message.created", "message.part", "message.completed", "run.completed"]);
    assert.equal(text(events.at(-1).run), "Hello!");
  },
  "events equal the stream": async () => {
    const events = await collect(client.runStream("whole_echo", input));
    assert.deepEqual(await client.runEvents(events[0].run.run_id), events);
  },
  "streamed text: message parts as it is written, then the whole message": async () => {
    const events = await collect(client.runStream("streamer", [{ parts: [{ content: "Hello, streaming world!" }] }]));
    const parts = events.filter((e) => e.type === "message.part").map((e) => e.part.content);
    assert.ok(parts.length > 1, JSON.stringify(types(events)));
    assert.equal(parts.join(""), "Hello, streaming world!");
    const done = events.find((e) => e.type === "message.completed");
    assert.equal(done.message.parts[0].content, "Hello, streaming world!");
    assert.deepEqual(settled(await client.runEvents(events[0].run.run_id)), settled(events));
  },
  "events after sync": async () => {
    const run = await client.runSync("echo", input);
    const events = await client.runEvents(run.run_id);
    assert.equal(events.at(0).type, "run.created");
    assert.equal(events.at(-1).type, "run.completed");
  },
  "failure": async () => {
    const run = await client.runSync("failer", input);
    assert.equal(run.status, "failed");
    assert.equal(run.error.code, "server_error");
    assert.equal(run.error.data.kind, "model_error");
    assert.match(run.error.message, /Wrong question buddy!/);
    const events = await client.runEvents(run.run_id);
    assert.equal(events.at(-1).type, "run.failed");
  },
  "cancel async (slow_echo)": async () => {
    let run = await client.runAsync("slow_echo", input);
    run = await client.runCancel(run.run_id);
    assert.equal(run.status, "cancelling");
    await sleep(1000);
    run = await client.runStatus(run.run_id);
    assert.equal(run.status, "cancelled");
  },
  "cancel async (awaiter)": async () => {
    let run = await client.runAsync("awaiter", input);
    run = await client.runCancel(run.run_id);
    assert.equal(run.status, "cancelling");
    await sleep(1000);
    run = await client.runStatus(run.run_id);
    assert.equal(run.status, "cancelled");
  },
  "cancel while awaiting": async () => {
    let run = await client.runSync("awaiter", input);
    assert.equal(run.status, "awaiting");
    run = await client.runCancel(run.run_id);
    assert.equal(run.status, "cancelling");
    run = await until(run.run_id, (r) => r.status === "cancelled");
    assert.equal(run.status, "cancelled");
    await expectACPError(client.runCancel(run.run_id), "server_error");
  },
  "cancel mid-stream": async () => {
    let last;
    for await (const event of client.runStream("slow_echo", input)) {
      last = event;
      if (event.type === "run.created") {
        const run = await client.runCancel(event.run.run_id);
        assert.equal(run.status, "cancelling");
      }
    }
    assert.equal(last.type, "run.cancelled");
  },
  "client abort does not cancel": async () => {
    const ctrl = new AbortController();
    let runId;
    try {
      for await (const event of client.runStream("slow_echo", input, ctrl.signal)) {
        runId = event.run?.run_id ?? runId;
        if (event.type === "run.in-progress") ctrl.abort();
      }
      assert.fail("the stream ended without the abort");
    } catch (e) {
      assert.equal(e.name, "AbortError");
    }
    let run = await client.runStatus(runId);
    assert.equal(run.status, "in-progress");
    run = await until(runId, (r) => r.status === "completed");
    assert.equal(run.status, "completed");
  },
  "await, resume sync": async () => {
    let run = await client.runSync("awaiter", input);
    assert.equal(run.status, "awaiting");
    assert.equal(run.await_request.type, "message");
    assert.equal(run.await_request.message.parts[0].content, "What should I say?");
    run = await client.runResumeSync(run.run_id, say("blue"));
    assert.equal(run.status, "completed");
    assert.match(text(run), /blue/);
  },
  "await, resume sync with an empty message": async () => {
    let run = await client.runSync("awaiter", input);
    run = await client.runResumeSync(run.run_id, say(""));
    assert.equal(run.status, "completed");
    assert.match(text(run), /no answer/);
  },
  "await, resume async": async () => {
    let run = await client.runSync("awaiter", input);
    assert.equal(run.status, "awaiting");
    run = await client.runResumeAsync(run.run_id, say("green"));
    assert.equal(run.status, "in-progress");
    run = await until(run.run_id, (r) => r.status === "completed");
    assert.equal(run.status, "completed");
    assert.match(text(run), /green/);
  },
  "await, resume stream": async () => {
    const created = await collect(client.runStream("awaiter", input));
    assert.deepEqual(types(created).slice(0, 2), ["run.created", "run.in-progress"]);
    assert.equal(created.at(-1).type, "run.awaiting");
    const run = created.at(-1).run;
    assert.ok(run.await_request);
    const resumed = await collect(client.runResumeStream(run.run_id, say("red")));
    assert.equal(resumed.at(0).type, "run.in-progress");
    assert.equal(resumed.at(-1).type, "run.completed");
    assert.match(text(resumed.at(-1).run), /red/);
    assert.deepEqual(settled(await client.runEvents(run.run_id)), settled([...created, ...resumed]));
  },
  "resume without an await": async () => {
    const run = await client.runSync("echo", input);
    await expectACPError(client.runResumeSync(run.run_id, say("x")), "server_error");
  },
  "approval: approve, deny, edit": async () => {
    const start = async () => {
      const run = await client.runSync("approver", [{ parts: [{ content: "hi there" }] }]);
      assert.equal(run.status, "awaiting");
      assert.match(run.await_request.message.parts[0].content, /^Approve the call shout\(/);
      return run;
    };
    let run = await client.runResumeSync((await start()).run_id, say("approve"));
    assert.match(text(run), /HI THERE!/);
    run = await client.runResumeSync((await start()).run_id, say("deny: too loud"));
    assert.match(text(run), /too loud/);
    run = await client.runResumeSync((await start()).run_id, say('{"text":"edited","return":null}'));
    assert.match(text(run), /EDITED!/);
    await expectACPError(client.runResumeSync((await start()).run_id, say("perhaps")), "invalid_input");
  },
  "failure kinds: invalid input": async () => {
    const run = await client.runSync("invalid", input);
    assert.equal(run.status, "failed");
    assert.equal(run.error.code, "invalid_input");
    assert.equal(run.error.data.kind, "invalid_input");
    assert.match(run.error.message, /Wrong question buddy!/);
    const events = await collect(client.runStream("invalid", input));
    assert.equal(events.at(-1).type, "run.failed");
    assert.equal(events.at(-1).run.error.code, "invalid_input");
  },
  "failure kinds: timeout": async () => {
    let run = await client.runSync("impatient", input);
    assert.equal(run.status, "awaiting");
    run = await until(run.run_id, (r) => r.status === "failed");
    assert.equal(run.status, "failed");
    assert.equal(run.error.code, "server_error");
    assert.equal(run.error.data.kind, "timeout");
  },
  "manifest content types and metadata": async () => {
    const m = await client.agent("mime_types");
    assert.deepEqual(m.input_content_types, ["text/plain", "application/json"]);
    assert.deepEqual(m.output_content_types, ["text/html", "application/json", "application/javascript", "text/css"]);
    assert.equal(m.metadata.license, "Apache-2.0");
    assert.equal(m.metadata.framework, "byref");
    assert.deepEqual(m.metadata.capabilities, [{ name: "Types", description: "Answers in several media types." }]);
    assert.equal(m.metadata.links[0].type, "source-code");
    assert.equal(m.metadata.created_at, "2026-11-24T00:00:00Z");
    const o = await client.agent("outputs");
    assert.deepEqual(o.output_content_types, ["text/plain", "application/json", "image/png", "text/csv"]);
    const e = await client.agent("echo");
    assert.deepEqual(e.output_content_types, ["text/plain", "application/json"]);
    await expectACPError(client.runSync("mime_types", [{ parts: [{ content: "AA==", content_type: "image/png", content_encoding: "base64" }] }]), "invalid_input");
  },
  "artifacts: a multi-part message": async () => {
    const run = await client.runSync("artifacts", input);
    assert.equal(run.status, "completed");
    const msg = run.output.find((m) => m.parts.length === 4);
    assert.ok(msg, JSON.stringify(run.output));
    assert.equal(msg.parts[0].content, "Processing with artifacts");
    assert.equal(msg.parts[0].name ?? null, null);
    const byName = Object.fromEntries(msg.parts.filter((p) => p.name).map((p) => [p.name, p]));
    assert.equal(byName["text-result.txt"].content_type, "text/plain");
    assert.equal(byName["text-result.txt"].content_encoding, "plain");
    assert.equal(byName["data.json"].content_type, "application/json");
    assert.deepEqual(JSON.parse(byName["data.json"].content), { results: [1, 2, 3], status: "complete" });
    assert.equal(byName["image.png"].content_type, "image/png");
    assert.equal(byName["image.png"].content_encoding, "base64");
    assert.equal(Buffer.from(byName["image.png"].content, "base64").subarray(1, 4).toString(), "PNG");
  },
  "artifacts: streamed": async () => {
    const events = await collect(client.runStream("artifacts", input));
    assert.equal(events.at(0).type, "run.created");
    assert.equal(events.at(-1).type, "run.completed");
    const parts = events.filter((e) => e.type === "message.part").map((e) => e.part);
    assert.equal(parts.filter((p) => p.name).length, 3);
    assert.deepEqual(parts.filter((p) => p.name).map((p) => p.content_type), ["text/plain", "application/json", "image/png"]);
    assert.deepEqual(settled(await client.runEvents(events[0].run.run_id)), settled(events));
  },
  "outputs: a PNG and a CSV of the host's types": async () => {
    const run = await client.runSync("outputs", input);
    assert.equal(run.status, "completed");
    const parts = run.output.flatMap((m) => m.parts).filter((p) => p.name);
    assert.deepEqual(parts.map((p) => [p.name, p.content_type, p.content_encoding]),
      [["screenshot_result", "image/png", "base64"], ["export_result", "text/csv", "plain"]]);
    assert.equal(Buffer.from(parts[0].content, "base64").subarray(1, 4).toString(), "PNG");
    assert.equal(parts[1].content, "id,status\n1,late\n");
  },
  "outputs: a browser screenshot is an image/png artifact by default": async () => {
    const m = await client.agent("screenshots");
    assert.deepEqual(m.output_content_types, ["text/plain", "application/json", "image/png"], JSON.stringify(m));
    const run = await client.runSync("screenshots", input);
    assert.equal(run.status, "completed");
    const parts = run.output.flatMap((m) => m.parts).filter((p) => p.name);
    assert.deepEqual(parts.map((p) => [p.name, p.content_type, p.content_encoding]), [["screenshot_result", "image/png", "base64"]], JSON.stringify(run.output));
    assert.equal(Buffer.from(parts[0].content, "base64").subarray(1, 4).toString(), "PNG");
  },
  "inputs: declared image/png and named JSON parts reach the run as variables": async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64");
    const run = await client.runSync("inputs", [{ parts: [
      { content: "Describe these.", content_type: "text/plain" },
      { name: "photo.png", content: png, content_type: "image/png", content_encoding: "base64" },
      { name: "order.json", content: '{"id":1}', content_type: "application/json" },
    ] }]);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    const described = run.output.flatMap((m) => m.parts).find((p) => p.name === "described.txt");
    assert.ok(described, JSON.stringify(run.output));
    assert.equal(described.content, 'photo.png image/png 29 PNG\norder.json application/json 8 {"id":1}');
  },
  "inputs: an image alone is the task": async () => {
    const png = Buffer.from("89504e47", "hex").toString("base64");
    const run = await client.runSync("inputs", [{ parts: [
      { name: "photo.png", content: png, content_type: "image/png", content_encoding: "base64" },
      { name: "order.json", content: "[]", content_type: "application/json" },
    ] }]);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
  },
  "inputs: an undeclared type is refused, naming the accepted ones": async () => {
    const e = await expectACPError(client.runSync("echo", [{ parts: [{ content: "AA==", content_type: "image/png", content_encoding: "base64" }] }]), "invalid_input");
    assert.match(String(e.message), /image\/png; agent echo accepts text\/plain, application\/json/);
    const f = await expectACPError(client.runSync("inputs", [{ parts: [{ content: "AA==", content_type: "image/jpeg", content_encoding: "base64" }] }]), "invalid_input");
    assert.match(String(f.message), /accepts text\/\*, application\/json, image\/png/);
  },
  "session history": async () => {
    await client.withSession(async (session) => {
      let run = await session.runSync("history_echo", input);
      assert.equal(run.output.length, 1);
      run = await session.runSync("history_echo", input);
      assert.equal(run.output.length, 3);
    });
  },
};

(async () => {
  const only = process.env.ACP_CASES ? new RegExp(process.env.ACP_CASES) : null;
  let failed = 0;
  for (const [name, fn] of Object.entries(cases)) {
    if (only && !only.test(name)) continue;
    const t0 = Date.now();
    try {
      await fn();
      console.log(`ok ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 4).join(" | ") : e}`);
    }
  }
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
})();
