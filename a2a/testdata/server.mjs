// A small A2A agent built with the official JavaScript SDK (@a2a-js/sdk
// 1.3.0, express), for TestImportFromJSServer: it asks "Which city?"
// (input-required), then completes with a data artifact for the city.
// A2A_PREFIX is the npm prefix the SDK and express are installed under. It
// listens on 127.0.0.1 on a free port and prints its URL on one line.
import path from 'node:path';
import { randomUUID } from 'node:crypto';

const modules = path.join(process.env.A2A_PREFIX, 'node_modules');
const server = await import(path.join(modules, '@a2a-js', 'sdk', 'dist', 'server', 'index.js'));
const expressSDK = await import(path.join(modules, '@a2a-js', 'sdk', 'dist', 'server', 'express', 'index.js'));
const express = (await import(path.join(modules, 'express', 'index.js'))).default;

const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5, INPUT_REQUIRED: 6 };
const ROLE_AGENT = 2;

const app = express();
const listener = app.listen(0, '127.0.0.1');
await new Promise((resolve) => listener.once('listening', resolve));
const base = `http://127.0.0.1:${listener.address().port}`;

const card = {
  name: 'weather', description: 'Says the weather in a city it asks for.', version: '1.0.0',
  supportedInterfaces: [{ url: base + '/', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  defaultInputModes: ['text/plain'], defaultOutputModes: ['application/json'],
  skills: [{ id: 'weather', name: 'weather', description: 'The weather in a city.', tags: ['weather'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  securitySchemes: {}, securityRequirements: [], signatures: [],
};

const text = (m) => (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const agentMessage = (taskId, contextId, value) => ({
  messageId: randomUUID(), taskId, contextId, role: ROLE_AGENT,
  parts: [{ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});
const status = (taskId, contextId, state, msg) => server.AgentEvent.statusUpdate({
  taskId, contextId, status: { state, message: msg, timestamp: new Date().toISOString() }, metadata: undefined,
});

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    if (!ctx.task) {
      bus.publish(server.AgentEvent.task({
        id: taskId, contextId, status: { state: STATE.SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [], history: [ctx.userMessage], metadata: undefined,
      }));
      bus.publish(status(taskId, contextId, STATE.INPUT_REQUIRED, agentMessage(taskId, contextId, 'Which city?')));
      bus.finished();
      return;
    }
    const city = text(ctx.userMessage);
    bus.publish(server.AgentEvent.task(ctx.task));
    bus.publish(status(taskId, contextId, STATE.WORKING, undefined));
    bus.publish(server.AgentEvent.artifactUpdate({
      taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: {
        artifactId: randomUUID(), name: 'weather', description: '', extensions: [], metadata: undefined,
        parts: [{ content: { $case: 'data', value: { city, celsius: 21 } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
      },
    }));
    bus.publish(status(taskId, contextId, STATE.COMPLETED, agentMessage(taskId, contextId, 'Sunny in ' + city)));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(status(taskId, '', STATE.CANCELED, undefined));
    bus.finished();
  },
};

const handler = new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), executor);
app.use('/.well-known/agent-card.json', expressSDK.agentCardHandler({ agentCardProvider: async () => card }));
app.use('/', express.json(), expressSDK.jsonRpcHandler({ requestHandler: handler, userBuilder: expressSDK.UserBuilder.noAuthentication }));
console.log(base);
