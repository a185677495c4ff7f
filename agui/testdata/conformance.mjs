// Conformance of byref's AG-UI endpoint with the official client,
// @ag-ui/client 1.0.0: its HttpAgent runs each case against the server at
// AGUI_URL, validating every event against the protocol's schemas and
// rules (verifyEvents). Prints "ok NAME" or "FAIL NAME: why" per case.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.AGUI_PREFIX, 'node_modules', 'x.js'));
const { HttpAgent } = require('@ag-ui/client');

const base = process.env.AGUI_URL;
const secret = process.env.AGUI_SECRET;

function assert(cond, msg) { if (!cond) throw new Error(msg); }

// canonical is v as JSON with its objects' keys sorted.
function canonical(v) {
  return JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
}

// run runs the agent once, collecting the events it received. One truth:
// the messages the client folded from the stream, up to the
// MESSAGES_SNAPSHOT, are exactly the snapshot's.
async function run(agent, params) {
  const events = [];
  let folded;
  const res = await agent.runAgent(params, {
    onEvent: ({ event }) => { events.push(event); },
    onMessagesSnapshotEvent: ({ event, messages }) => { folded = { stream: canonical(messages), snapshot: canonical(event.messages) }; },
  });
  if (folded) assert(folded.stream === folded.snapshot, `the stream folds to ${folded.stream}\nbut MESSAGES_SNAPSHOT is ${folded.snapshot}`);
  return { events, res, types: events.map((e) => e.type) };
}

function finished(events) { return events.find((e) => e.type === 'RUN_FINISHED'); }
function texts(agent) { return agent.messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content); }
function noSecret(events) { assert(!JSON.stringify(events).includes(secret), 'an event holds the secret value'); }

async function acpRun(id) {
  const r = await fetch(`${base}/runs/${id}`);
  return r.json();
}

const cases = {
  async text_run() {
    const agent = new HttpAgent({ url: `${base}/agui/echo`, initialMessages: [{ id: 'u1', role: 'user', content: 'Hello there' }] });
    const { events, types } = await run(agent);
    assert(types[0] === 'RUN_STARTED' && types.at(-1) === 'RUN_FINISHED', `events ${types}`);
    for (const t of ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STEP_STARTED', 'STEP_FINISHED', 'MESSAGES_SNAPSHOT', 'STATE_SNAPSHOT']) {
      assert(types.includes(t), `no ${t} in ${types}`);
    }
    assert(finished(events).outcome?.type === 'success', 'not a success');
    assert(texts(agent).includes('Hello there'), `messages ${JSON.stringify(agent.messages)}`);
    assert(agent.messages.some((m) => m.id === 'u1'), 'the user message is gone');
    noSecret(events);
  },
  async tool_calls() {
    const agent = new HttpAgent({ url: `${base}/agui/weather`, initialMessages: [{ id: 'u1', role: 'user', content: 'Weather?' }] });
    const { events, types } = await run(agent);
    for (const t of ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'ACTIVITY_SNAPSHOT']) {
      assert(types.includes(t), `no ${t} in ${types}`);
    }
    const start = events.find((e) => e.type === 'TOOL_CALL_START');
    assert(start.toolCallName === 'forecast', `call ${JSON.stringify(start)}`);
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT');
    assert(result.toolCallId === start.toolCallId, 'the result names another call');
    const call = agent.messages.flatMap((m) => m.toolCalls || []).find((c) => c.id === start.toolCallId);
    assert(call && call.function.arguments.includes('<<var:city>>'), `calls in messages: ${JSON.stringify(agent.messages)}`);
    assert(agent.messages.some((m) => m.role === 'tool' && m.toolCallId === start.toolCallId), 'no tool message');
    const progress = events.find((e) => e.type === 'ACTIVITY_SNAPSHOT');
    assert(progress.content.message === 'asking the weather service', `progress ${JSON.stringify(progress)}`);
    assert(texts(agent).some((t) => t.startsWith('forecast: ')), `texts ${texts(agent)}`);
  },
  async streamed_text_and_arguments() {
    const agent = new HttpAgent({ url: `${base}/agui/streamer`, initialMessages: [{ id: 'u1', role: 'user', content: 'Weather?' }] });
    const { events } = await run(agent);
    const args = events.filter((e) => e.type === 'TOOL_CALL_ARGS');
    assert(args.length > 1 && new Set(args.map((e) => e.toolCallId)).size === 1, `arguments ${JSON.stringify(args)}`);
    assert(args.map((e) => e.delta).join('') === '{"city":"<<var:city>>","return":null}', 'the arguments do not add up');
    const content = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    assert(content.length > 1, `text ${JSON.stringify(content)}`);
    const said = texts(agent).find((t) => t.startsWith('The forecast says'));
    assert(said && content.map((e) => e.delta).join('') === said, `streamed ${JSON.stringify(content.map((e) => e.delta).join(''))}, message ${said}`);
    const call = agent.messages.flatMap((m) => m.toolCalls || []);
    assert(call.length === 1 && call[0].function.arguments === '{"city":"<<var:city>>","return":null}', `calls ${JSON.stringify(call)}`);
  },
  async state() {
    const agent = new HttpAgent({ url: `${base}/agui/login`, initialMessages: [{ id: 'u1', role: 'user', content: 'Log in' }] });
    const { events, types } = await run(agent);
    assert(types.includes('STATE_SNAPSHOT') && types.includes('STATE_DELTA'), `events ${types}`);
    const vars = agent.state.variables;
    assert(vars.city && vars.city.type === 'string' && vars.city.preview.includes('Paris'), `state ${JSON.stringify(agent.state)}`);
    assert(vars.pw && vars.pw.secret === true && vars.pw.preview === '(secret)', `secret ${JSON.stringify(vars.pw)}`);
    assert(Object.keys(vars).length > 2, `no variable from the call: ${JSON.stringify(vars)}`);
    noSecret(events);
    noSecret(agent.messages);
  },
  async two_turns() {
    // A thread's second run starts with the variables its first left: the
    // table loaded in turn 1 is filtered by reference in turn 2.
    const agent = new HttpAgent({ url: `${base}/agui/chat`, threadId: 'two-turns', initialMessages: [{ id: 'u1', role: 'user', content: 'load the orders' }] });
    await run(agent);
    assert(agent.state.variables?.orders, `state after turn 1: ${JSON.stringify(agent.state)}`);
    agent.messages.push({ id: 'u2', role: 'user', content: 'now only the late ones' });
    const { events } = await run(agent);
    const snap = events.find((e) => e.type === 'STATE_SNAPSHOT');
    assert(snap && snap.snapshot.variables.orders && snap.snapshot.variables.db, `turn 2's STATE_SNAPSHOT: ${JSON.stringify(snap)}`);
    const last = texts(agent).at(-1);
    assert(last.includes('{2, true}, {3, true}') && !last.includes('"error"'), `turn 2 said ${last}`);
  },
  async approval() {
    const agent = new HttpAgent({ url: `${base}/agui/approver`, initialMessages: [{ id: 'u1', role: 'user', content: 'Shout' }] });
    let { events } = await run(agent);
    const fin = finished(events);
    assert(fin.outcome?.type === 'interrupt', `outcome ${JSON.stringify(fin.outcome)}`);
    const it = fin.outcome.interrupts[0];
    assert(it.reason === 'byref.approval' && it.toolCallId && it.message.includes('shout'), `interrupt ${JSON.stringify(it)}`);
    assert(agent.pendingInterrupts.length === 1, 'the client keeps no pending interrupt');
    ({ events } = await run(agent, { resume: [{ interruptId: it.id, status: 'resolved', payload: { decision: 'approved' } }] }));
    assert(finished(events).outcome?.type === 'success', `after approval: ${events.map((e) => e.type)}`);
    assert(texts(agent).some((t) => t.startsWith('shouted: ') && t.includes('HELLO!')), `texts ${texts(agent)}`);
  },
  async question() {
    const agent = new HttpAgent({ url: `${base}/agui/awaiter`, initialMessages: [{ id: 'u1', role: 'user', content: 'Greet me' }] });
    let { events } = await run(agent);
    const it = finished(events).outcome?.interrupts?.[0];
    assert(it && it.reason === 'byref.question' && it.message === 'What is your name?', `interrupt ${JSON.stringify(it)}`);
    ({ events } = await run(agent, { resume: [{ interruptId: it.id, status: 'resolved', payload: { text: 'Ann' } }] }));
    assert(finished(events).outcome?.type === 'success', `after the answer: ${events.map((e) => e.type)}`);
    assert(texts(agent).some((t) => t.startsWith('Hello: ') && t.includes('Ann')), `texts ${texts(agent)}`);
  },
  async frontend_tool_round_trip() {
    const tools = [{ name: 'book', description: 'Book seats in a city; the user confirms it in the page.',
      parameters: { type: 'object', properties: { city: { type: 'string' }, seats: { type: 'integer', minimum: 1 } }, required: ['city', 'seats'] } }];
    const agent = new HttpAgent({ url: `${base}/agui/frontend`, initialMessages: [{ id: 'u1', role: 'user', content: 'Book two seats' }] });
    let { events } = await run(agent, { tools });
    const fin = finished(events);
    assert(fin.outcome?.type === 'success', `outcome ${JSON.stringify(fin.outcome)}`);
    const pending = fin.outcome.pendingToolCallIds ?? [];
    assert(pending.length === 1, `pending ${JSON.stringify(pending)}`);
    const start = events.find((e) => e.type === 'TOOL_CALL_START');
    assert(start && start.toolCallName === 'book' && start.toolCallId === pending[0], `call ${JSON.stringify(start)}`);
    assert(!events.some((e) => e.type === 'TOOL_CALL_RESULT'), 'the server answered the front end\'s tool itself');
    const call = agent.messages.flatMap((m) => m.toolCalls || []).find((c) => c.id === start.toolCallId);
    const args = JSON.parse(call.function.arguments);
    assert(args.city === 'Paris' && args.seats === 2, `the front end gets the arguments resolved: ${call.function.arguments}`);
    agent.addMessage({ id: 't1', role: 'tool', toolCallId: start.toolCallId, content: 'confirmed: 2 seats in Paris' });
    // (Without the tools this time: the run's log says the call is the
    // front end's.)
    ({ events } = await run(agent));
    assert(finished(events).outcome?.type === 'success', `after the result: ${events.map((e) => e.type)}`);
    assert(texts(agent).some((t) => t.startsWith('booked: ') && t.includes('confirmed: 2 seats in Paris')), `the run went on with the result: ${texts(agent)}`);
    assert(agent.messages.filter((m) => m.role === 'tool' && m.toolCallId === start.toolCallId).length === 1, `one tool message: ${JSON.stringify(agent.messages)}`);
  },
  async frontend_tool_bad_arguments() {
    // The schema refuses the model's arguments: the model hears why, and
    // the front end is not asked.
    const tools = [{ name: 'book', description: 'Book seats.', parameters: { type: 'object', properties: { city: { type: 'string' }, seats: { type: 'string', maxLength: 1 } }, required: ['city', 'seats'] } }];
    const agent = new HttpAgent({ url: `${base}/agui/frontend`, initialMessages: [{ id: 'u1', role: 'user', content: 'Book' }] });
    const { events } = await run(agent, { tools });
    const fin = finished(events);
    assert(fin.outcome?.type === 'success' && !(fin.outcome.pendingToolCallIds ?? []).length, `outcome ${JSON.stringify(fin.outcome)}`);
    assert(texts(agent).some((t) => t.startsWith('booked: ') && t.includes('seats')), `texts ${texts(agent)}`);
  },
  async context() {
    const agent = new HttpAgent({ url: `${base}/agui/echo`, initialMessages: [{ id: 'u1', role: 'user', content: 'What page am I on?' }] });
    await run(agent, { context: [{ description: 'the page the user is on', value: '/checkout' }] });
    assert(texts(agent).some((t) => t.includes('the page the user is on: /checkout')), `the model did not get the context: ${texts(agent)}`);
  },
  async usage() {
    const agent = new HttpAgent({ url: `${base}/agui/counter`, initialMessages: [{ id: 'u1', role: 'user', content: 'Count' }] });
    let { events } = await run(agent);
    const u = finished(events).usage;
    assert(Array.isArray(u) && u.length === 1, `usage ${JSON.stringify(u)}`);
    assert(u[0].provider === 'scripted' && u[0].model === 'counter' && u[0].inputTokens === 120 && u[0].outputTokens === 8 &&
      u[0].totalTokens === 128 && u[0].cachedInputTokens === 100 && u[0].cacheWriteInputTokens === 10, `usage ${JSON.stringify(u)}`);
    const quitter = new HttpAgent({ url: `${base}/agui/quitter`, initialMessages: [{ id: 'u1', role: 'user', content: 'Try' }] });
    ({ events } = await run(quitter).catch((e) => { throw e; }));
    const err = events.find((e) => e.type === 'RUN_ERROR');
    assert(err && err.usage?.[0]?.inputTokens === 50 && err.usage[0].cachedInputTokens === 40, `RUN_ERROR ${JSON.stringify(err)}`);
  },
  async subagents() {
    const agent = new HttpAgent({ url: `${base}/agui/parent`, initialMessages: [{ id: 'u1', role: 'user', content: 'Delegate' }] });
    const { events } = await run(agent);
    const started = events.find((e) => e.type === 'SUBAGENT_STARTED');
    const done = events.find((e) => e.type === 'SUBAGENT_FINISHED');
    const call = events.find((e) => e.type === 'TOOL_CALL_START');
    assert(started && started.name === 'helper' && started.parentToolCallId === call.toolCallId, `started ${JSON.stringify(started)}`);
    assert(done && done.subagentRunId === started.subagentRunId && JSON.stringify(done.result).includes('helped with the report'), `finished ${JSON.stringify(done)}`);
    assert((await acpRun(started.subagentRunId)).status === 'completed', 'the subagent is a byref run');
    // A subagent that fails: SUBAGENT_ERROR, and the parent run goes on.
    const parent = new HttpAgent({ url: `${base}/agui/parent_failing`, initialMessages: [{ id: 'u1', role: 'user', content: 'Delegate' }] });
    const failed = await run(parent);
    const err = failed.events.find((e) => e.type === 'SUBAGENT_ERROR');
    const began = failed.events.find((e) => e.type === 'SUBAGENT_STARTED');
    assert(err && began && err.subagentRunId === began.subagentRunId && err.message.includes('cannot do the impossible'), `error ${JSON.stringify(err)}`);
    assert(finished(failed.events)?.outcome?.type === 'success', 'the parent run goes on after its subagent failed');
  },
  async encrypted_reasoning() {
    const agent = new HttpAgent({ url: `${base}/agui/thinker`, initialMessages: [{ id: 'u1', role: 'user', content: 'Think' }] });
    const { events } = await run(agent);
    const enc = events.find((e) => e.type === 'REASONING_ENCRYPTED_VALUE');
    assert(enc && enc.encryptedValue === 'opaque-reasoning-blob' && enc.subtype === 'message', `events ${JSON.stringify(events)}`);
    assert(agent.messages.some((m) => m.id === enc.entityId), 'the value names a message of the run');
  },
  async cancel_by_abort() {
    const agent = new HttpAgent({ url: `${base}/agui/hang`, initialMessages: [{ id: 'u1', role: 'user', content: 'Wait' }] });
    let byref = '';
    const done = agent.runAgent({}, {
      onRunStartedEvent: ({ event }) => { byref = event.metadata['byref.run']; setTimeout(() => agent.abortRun(), 50); },
    }).catch(() => {});
    await done;
    assert(byref, 'no byref run in RUN_STARTED');
    let status = '';
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      status = (await acpRun(byref)).status;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert(status === 'cancelled', `the run is ${status} after abortRun`);
  },
  async cancel_interrupt() {
    const agent = new HttpAgent({ url: `${base}/agui/approver`, initialMessages: [{ id: 'u1', role: 'user', content: 'Shout' }] });
    let { events } = await run(agent);
    const it = finished(events).outcome.interrupts[0];
    ({ events } = await run(agent, { resume: [{ interruptId: it.id, status: 'cancelled' }] }));
    assert(finished(events).outcome?.type === 'cancelled', `outcome ${JSON.stringify(finished(events))}`);
    const byref = it.metadata['byref.run'];
    assert((await acpRun(byref)).status === 'cancelled', 'the run is not cancelled');
  },
};

for (const [name, fn] of Object.entries(cases)) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (e) {
    console.log(`FAIL ${name}: ${(e && e.stack) || e}`.replace(/\n/g, ' | '));
  }
}
