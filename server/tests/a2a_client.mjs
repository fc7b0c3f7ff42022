// An A2A client of Airlock's agent: @a2a-js/sdk's, speaking A2A v1.0 as
// it picks from the card. The same run as a2a_client_03.py (decision parts,
// the HITL extension, a stream, get and cancel), printing the same line of
// JSON.
//
//   node a2a_client.mjs <base url> <bearer>

import { randomUUID } from 'node:crypto';

const sdk = new URL('../../end2end/node_modules/@a2a-js/sdk/dist/', import.meta.url);
const {
  ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory,
  ServiceParameters, withA2AExtensions,
} = await import(new URL('client/index.js', sdk));
const { Role, TaskState } = await import(new URL('index.js', sdk));

const HITL = 'https://kagent.dev/extensions/hitl/v1';
const [base, bearer] = process.argv.slice(2);

const authorized = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${bearer}`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: authorized })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl: authorized }),
}));
const client = await factory.createFromUrl(`${base}/`);

const text = (value) => ({ content: { $case: 'text', value } });
const data = (value) => ({ content: { $case: 'data', value }, mediaType: 'application/json' });
const message = (parts, task, extra = {}) => ({
  message: {
    messageId: randomUUID(), role: Role.ROLE_USER, parts,
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
    ...extra,
  },
});
const state = (task) => TaskState[task.status.state];
const asked = (task) => task.status.message.parts
  .map((part) => part.content)
  .filter((content) => content.$case === 'data' && content.value.name === 'adk_request_confirmation')
  .map((content) => content.value.args.originalFunctionCall.id);

const seen = { protocol: client.protocolVersion };
let waiting = await client.sendMessage(message([text('delete one.txt and two.txt')]));
const ids = asked(waiting);
seen.asked = { state: state(waiting), ids };
const decision = {
  decision_type: 'batch',
  decisions: { [ids[0]]: 'approve', [ids[1]]: 'reject' },
  rejection_reasons: { [ids[1]]: 'keep two' },
};
const done = await client.sendMessage(message([text('Batch decision'), data(decision)], waiting));
seen.decided = state(done);

const extension = { serviceParameters: ServiceParameters.create(withA2AExtensions(HITL)) };
waiting = await client.sendMessage(message([text('delete three.txt')]), extension);
const request = waiting.status.message.metadata[HITL];
const tool = request.tools[0].id;
seen.extension = { type: request.type, id: tool };
const response = {
  type: 'tool_approval_response',
  approvals: [{ id: tool, approved: false, rejection_reason: 'not three' }],
};
const refused = await client.sendMessage(
  message([text('0 approved, 1 rejected')], waiting, { metadata: { [HITL]: response }, extensions: [HITL] }),
  extension,
);
seen.refused = state(refused);

const events = [];
let last;
for await (const event of client.sendMessageStream(message([text('hello')]))) {
  const { $case, value } = event.payload;
  events.push($case);
  if (value.status) last = state(value);
}
seen.stream = { events, state: last };

seen.got = state(await client.getTask({ id: done.id, historyLength: 10 }));
waiting = await client.sendMessage(message([text('delete four.txt')]));
seen.canceled = state(await client.cancelTask({ id: waiting.id }));
console.log(JSON.stringify(seen));
