// The A2A conformance test: the official JavaScript SDK (@a2a-js/sdk 1.3.0)
// drives byref's A2A server. A2A_PREFIX is the npm prefix the SDK is
// installed under, A2A_URL the server. Every case prints "ok NAME" or
// "FAIL NAME: why"; the Go test (TestA2AConformance) counts them.
import path from 'node:path';
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const root = path.join(process.env.A2A_PREFIX, 'node_modules', '@a2a-js', 'sdk');
const client = await import(path.join(root, 'dist', 'client', 'index.js'));
const compat = await import(path.join(root, 'dist', 'compat', 'v0_3', 'client', 'index.js'));
const base = process.env.A2A_URL;

const ROLE_USER = 1;
const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, FAILED: 4, CANCELED: 5, INPUT_REQUIRED: 6 };

function message(text, extra = {}) {
  return {
    messageId: randomUUID(), contextId: '', taskId: '', role: ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
  };
}
const send = (m) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined });
const text = (m) => (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const isTask = (r) => r && typeof r === 'object' && 'status' in r && 'id' in r;

function check(cond, why) {
  if (!cond) throw new Error(why);
}

// code returns the JSON-RPC code of an error the client threw.
function code(err) {
  return err?.envelopeCode ?? err?.code;
}

let failed = 0;
async function run(name, fn) {
  try {
    await fn();
    console.log('ok ' + name);
  } catch (err) {
    failed++;
    console.log('FAIL ' + name + ': ' + (err?.stack ?? err));
  }
}

async function expectError(p, want) {
  try {
    await p;
  } catch (err) {
    check(code(err) === want, `error ${err?.constructor?.name} code ${code(err)} (${err?.message}), want ${want}`);
    return;
  }
  throw new Error(`no error, want ${want}`);
}

const factory = new client.ClientFactory();
const echo = await factory.createFromUrl(base + '/a2a/echo/');
const awaiter = await factory.createFromUrl(base + '/a2a/awaiter/');
const hang = await factory.createFromUrl(base + '/a2a/hang/');

await run('card', async () => {
  const card = await echo.getAgentCard();
  check(card.name === 'echo', 'name ' + card.name);
  check(card.capabilities?.streaming === true, 'streaming');
  check(card.skills.length > 0, 'skills');
  check(card.supportedInterfaces.some((i) => i.protocolVersion === '1.0'), 'a v1.0 interface');
  const rootResp = await fetch(base + '/.well-known/agent-card.json');
  const rootCard = await rootResp.json();
  check(rootCard.skills.some((s) => s.id === 'awaiter'), 'the root card lists the agents');
});

await run('send', async () => {
  const r = await echo.sendMessage(send(message('hello from node')));
  check(isTask(r), 'a task');
  check(r.status.state === STATE.COMPLETED, 'state ' + r.status.state);
  check(text(r.status.message) === 'hello from node', 'status message ' + text(r.status.message));
  check(r.artifacts.length === 1 && r.artifacts[0].name === 'result', 'the result artifact');
});

await run('stream', async () => {
  const seen = [];
  for await (const ev of echo.sendMessageStream(send(message('streamed')))) {
    seen.push(ev.payload?.$case + (ev.payload?.$case === 'statusUpdate' ? ':' + ev.payload.value.status.state : ''));
  }
  check(seen[0] === 'task', 'first ' + seen[0]);
  check(seen.includes('artifactUpdate'), 'an artifact update: ' + seen);
  check(seen[seen.length - 1] === 'statusUpdate:' + STATE.COMPLETED, 'last ' + seen[seen.length - 1]);
});

await run('streamed text: chunks of the answer artifact, then the whole text, folding to GetTask', async () => {
  const streamer = await factory.createFromUrl(base + '/a2a/streamer/');
  const chunks = [];
  let task;
  let final = '';
  for await (const ev of streamer.sendMessageStream(send(message('Hello, streaming world!')))) {
    const p = ev.payload;
    if (p?.$case === 'task') task = p.value;
    if (p?.$case === 'statusUpdate') {
      task.status = p.value.status;
      const m = p.value.status.message;
      if (m && !task.history.some((h) => h.messageId === m.messageId)) task.history.push(m);
      if (p.value.status.state === STATE.COMPLETED) final = text(m);
    }
    if (p?.$case === 'artifactUpdate') {
      const u = p.value;
      check(u.artifact.name === 'result', 'the answer artifact is named result: ' + u.artifact.name);
      const i = task.artifacts.findIndex((a) => a.artifactId === u.artifact.artifactId);
      if (u.append) {
        check(i >= 0, 'an append to an artifact the task has');
        task.artifacts[i].parts.push(...u.artifact.parts);
        chunks.push(text(u.artifact));
      } else if (i >= 0) {
        task.artifacts[i] = u.artifact;
      } else {
        task.artifacts.push(u.artifact);
        chunks.push(text(u.artifact));
      }
    }
  }
  check(chunks.length > 1, 'chunks ' + JSON.stringify(chunks));
  check(chunks.join('') === 'Hello, streaming world!', 'the chunks add up to ' + JSON.stringify(chunks.join('')));
  check(final === 'Hello, streaming world!', 'the completed status has the whole text: ' + final);
  check(task.artifacts.length === 1 && text(task.artifacts[0]) === 'Hello, streaming world!', 'the answer once: ' + JSON.stringify(task.artifacts));
  const got = await streamer.getTask({ tenant: '', id: task.id });
  check(JSON.stringify(got.artifacts) === JSON.stringify(task.artifacts), 'GetTask has the folded artifacts: ' + JSON.stringify(got.artifacts));
  check(JSON.stringify(got.history.map((m) => m.messageId)) === JSON.stringify(task.history.map((m) => m.messageId)), 'GetTask has the folded history');
});

let awaiting, asked, answered;
await run('input-required and the resume', async () => {
  asked = message('ask me', { metadata: { trace: 'conformance-1' } });
  const r = await awaiter.sendMessage(send(asked));
  check(r.status.state === STATE.INPUT_REQUIRED, 'state ' + r.status.state);
  check(text(r.status.message).includes('What should I say?'), 'the question');
  awaiting = r;
  answered = message('hi', { taskId: r.id, contextId: r.contextId });
  const done = await awaiter.sendMessage(send(answered));
  check(done.id === r.id, 'the same task');
  check(done.status.state === STATE.COMPLETED, 'state after the resume ' + done.status.state);
  check(text(done.status.message).includes('hi'), 'the answer passed: ' + text(done.status.message));
});

await run('get', async () => {
  const t = await awaiter.getTask({ tenant: '', id: awaiting.id });
  check(t.id === awaiting.id && t.status.state === STATE.COMPLETED, 'state ' + t.status?.state);
  check(t.history.length >= 2, 'history');
});

await run('history after a resume is the messages as sent', async () => {
  const t = await awaiter.getTask({ tenant: '', id: awaiting.id });
  const ids = t.history.map((m) => m.messageId);
  const first = t.history[0], answer = t.history.find((m) => m.messageId === answered.messageId);
  check(first.messageId === asked.messageId, 'the task message keeps its messageId: ' + ids);
  check(first.metadata?.trace === 'conformance-1', 'the task message keeps its metadata: ' + JSON.stringify(first.metadata));
  check(text(first) === 'ask me', 'the task message keeps its parts');
  check(answer && answer.role === ROLE_USER && text(answer) === 'hi', 'the answer to input-required is in the history: ' + ids);
  const question = t.history.findIndex((m) => text(m).includes('What should I say?'));
  check(question > 0 && question < t.history.indexOf(answer), 'the question comes before its answer: ' + ids);
  check(new Set(ids).size === ids.length, 'message IDs are unique: ' + ids);
  const last = await awaiter.getTask({ tenant: '', id: awaiting.id, historyLength: 1 });
  check(last.history.length === 1, 'historyLength 1: ' + last.history.length);
});

await run('cancel', async () => {
  const r = await hang.sendMessage({ ...send(message('wait')), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true } });
  check(!([STATE.COMPLETED, STATE.FAILED, STATE.CANCELED].includes(r.status.state)), 'state ' + r.status.state);
  const t = await hang.cancelTask({ tenant: '', id: r.id, metadata: undefined });
  check(t.status.state === STATE.CANCELED, 'state after cancel ' + t.status.state);
});

await run('subscribe again after a disconnect', async () => {
  const ac = new AbortController();
  let id;
  try {
    for await (const ev of awaiter.sendMessageStream(send(message('again')), { signal: ac.signal })) {
      if (ev.payload?.$case === 'task') {
        id = ev.payload.value.id;
        ac.abort();
        break;
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  }
  check(id, 'a task id');
  const states = [];
  for await (const ev of awaiter.resubscribeTask({ tenant: '', id })) {
    if (ev.payload?.$case === 'task') states.push(ev.payload.value.status.state);
    if (ev.payload?.$case === 'statusUpdate') states.push(ev.payload.value.status.state);
  }
  check(states[states.length - 1] === STATE.INPUT_REQUIRED, 'states ' + states);
});

await run('ListTasks: filters and paging', async () => {
  const first = await echo.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1, pageToken: '', statusTimestampAfter: undefined });
  check(first.tasks.length === 1 && first.totalSize >= 2 && first.nextPageToken, 'the first page: ' + JSON.stringify({ n: first.tasks.length, total: first.totalSize, next: first.nextPageToken }));
  const second = await echo.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1, pageToken: first.nextPageToken, statusTimestampAfter: undefined });
  check(second.tasks.length === 1 && second.tasks[0].id !== first.tasks[0].id, 'the second page is another task');
  const waiting = await awaiter.listTasks({ tenant: '', contextId: '', status: STATE.INPUT_REQUIRED, pageToken: '', statusTimestampAfter: undefined });
  check(waiting.tasks.length >= 1 && waiting.tasks.every((t) => t.status.state === STATE.INPUT_REQUIRED), 'by state: ' + waiting.tasks.map((t) => t.status.state));
  const inContext = await awaiter.listTasks({ tenant: '', contextId: awaiting.contextId, status: 0, pageToken: '', historyLength: 1, includeArtifacts: true, statusTimestampAfter: undefined });
  check(inContext.tasks.length === 1 && inContext.tasks[0].id === awaiting.id, 'by context');
  check(inContext.tasks[0].history.length === 1 && inContext.tasks[0].artifacts.length === 1, 'historyLength and includeArtifacts');
  await expectError(echo.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1000, pageToken: '', statusTimestampAfter: undefined }), -32602);
});

// A push notification receiver on 127.0.0.1 (the server allows loopback
// targets for this test).
const pushed = [];
let wake = () => {};
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    pushed.push({ headers: req.headers, body: JSON.parse(body) });
    res.writeHead(200);
    res.end();
    wake();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
async function pushedUntil(cond) {
  while (!pushed.some(cond)) await new Promise((resolve) => (wake = resolve));
}

await run('push notifications to a local receiver', async () => {
  const card = await awaiter.getAgentCard();
  check(card.capabilities?.pushNotifications === true, 'the card declares push notifications');
  const r = await awaiter.sendMessage(send(message('push me')));
  check(r.status.state === STATE.INPUT_REQUIRED, 'state ' + r.status.state);
  const made = await awaiter.createTaskPushNotificationConfig({ tenant: '', id: 'conformance-hook', taskId: r.id, url: hook, token: 'tok-c', authentication: { scheme: 'Bearer', credentials: 'cred-c' } });
  check(made.id === 'conformance-hook' && made.taskId === r.id, 'created ' + JSON.stringify(made));
  const got = await awaiter.getTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'conformance-hook' });
  check(got.url === hook, 'get ' + JSON.stringify(got));
  const list = await awaiter.listTaskPushNotificationConfig({ tenant: '', taskId: r.id, pageSize: 0, pageToken: '' });
  check(list.configs.length === 1 && list.configs[0].id === 'conformance-hook', 'list ' + JSON.stringify(list));
  await pushedUntil((p) => p.body.task?.id === r.id);
  await awaiter.sendMessage(send(message('pushed', { taskId: r.id, contextId: r.contextId })));
  await pushedUntil((p) => p.body.statusUpdate?.taskId === r.id && p.body.statusUpdate.status?.state === 'TASK_STATE_COMPLETED');
  const mine = pushed.filter((p) => (p.body.task?.id ?? p.body.statusUpdate?.taskId ?? p.body.artifactUpdate?.taskId) === r.id);
  check(mine[0].body.task?.status?.state === 'TASK_STATE_INPUT_REQUIRED', 'the first notification is the task as it was');
  check(mine.some((p) => p.body.artifactUpdate), 'the result artifact is notified');
  check(mine.every((p) => p.headers.authorization === 'Bearer cred-c' && p.headers['x-a2a-notification-token'] === 'tok-c'), 'authentication and token headers');
  await awaiter.deleteTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'conformance-hook' });
  // Deleting it again succeeds, as in the reference server.
  await awaiter.deleteTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'conformance-hook' });
  await expectError(awaiter.getTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'conformance-hook' }), -32602);
});
receiver.close();

await run('v0.3 compatibility layer', async () => {
  const card = await echo.getAgentCard();
  const legacy = new client.Client(new compat.LegacyJsonRpcTransport({ endpoint: base + '/a2a/echo' }), card);
  const r = await legacy.sendMessage(send(message('old times')));
  check(isTask(r) && r.status.state === STATE.COMPLETED, 'state ' + r?.status?.state);
  check(text(r.status.message) === 'old times', 'text ' + text(r.status.message));
  const t = await legacy.getTask({ tenant: '', id: r.id });
  check(t.id === r.id, 'get over v0.3');
});

await run('error: unknown task', async () => {
  await expectError(echo.getTask({ tenant: '', id: 'no-such-task' }), -32001);
});

await run('error: bad request', async () => {
  const resp = await fetch(base + '/a2a/echo', {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: '{"jsonrpc":"2.0","id":1,"method":',
  });
  const body = await resp.json();
  check(body.error?.code === -32700, 'code ' + body.error?.code);
  await expectError(echo.sendMessage(send({ ...message(''), parts: [] })), -32602);
});

await run('error: terminal task', async () => {
  await expectError(awaiter.cancelTask({ tenant: '', id: awaiting.id, metadata: undefined }), -32002);
  let err;
  try {
    for await (const ev of awaiter.resubscribeTask({ tenant: '', id: awaiting.id })) void ev;
  } catch (e) {
    err = e;
  }
  check(code(err) === -32004, 'subscribing to a completed task: ' + code(err) + ' ' + err?.message);
  await expectError(awaiter.sendMessage(send(message('more', { taskId: awaiting.id }))), -32004);
});

process.exit(failed ? 1 : 0);
