// An MCP client for the proxy's tests: the official TypeScript SDK's
// client over streamable HTTP. One command per run; prints its outcome as
// one line of JSON.
//
//   node mcp_client.mjs <url> <key> list
//   node mcp_client.mjs <url> <key> call <tool> <arguments-json>
//   node mcp_client.mjs <url> <key> cancel <tool> <arguments-json> <ms>
//   node mcp_client.mjs <url> <key> leave <tool> <arguments-json>
//                                               (asks, and once a line comes on
//                                                its standard input, goes away
//                                                as the SDK does: ends its
//                                                session, closes the server's
//                                                input, SIGTERM after 2 s)
//   node mcp_client.mjs <url> <key> changes      (the tools before and after
//                                                 the server says they changed)
//
// With AIRLOCK_BINARY set, the client starts `$AIRLOCK_BINARY mcp` and
// speaks to it over stdio instead, as a client that starts its servers as
// programs does; that program asks the Airlock at <url>, or, with
// AIRLOCK_MCP_CONFIG set too, is an Airlock itself with that configuration.
//
// With OPEN_REVIEW_LINKS=approve, the client says it can open links for its
// person (elicitation in URL mode), and its person approves each review
// link it is offered through the link's own API; the links are printed.
const sdk = new URL('../../end2end/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', sdk));

const [url, key, command, tool, args, ms] = process.argv.slice(2);
let transport;
if (process.env.STRAIGHT_TO) {
  // Straight to an MCP server (a JSON array: the command and its arguments),
  // to compare with what comes through Airlock.
  const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));
  const [command, ...rest] = JSON.parse(process.env.STRAIGHT_TO);
  transport = new StdioClientTransport({ command, args: rest });
} else if (process.env.AIRLOCK_BINARY) {
  const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));
  const config = process.env.AIRLOCK_MCP_CONFIG;
  transport = new StdioClientTransport({
    command: process.env.AIRLOCK_BINARY,
    args: config ? ['mcp', '--config', config] : ['mcp'],
    env: { ...process.env, AIRLOCK_URL: url.replace(/\/mcp$/, ''), AIRLOCK_API_KEY: key },
  });
} else {
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
}
const opensLinks = process.env.OPEN_REVIEW_LINKS === 'approve';
const client = new Client(
  { name: 'proxy-test', version: '1.0.0' },
  { capabilities: opensLinks ? { elicitation: { url: {} } } : {} },
);
const { ToolListChangedNotificationSchema, ElicitRequestSchema } = await import(new URL('types.js', sdk));
const links = [];
if (opensLinks) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const link = new URL(request.params.url);
    links.push(link.href);
    const caseId = link.pathname.split('/').pop();
    const token = link.searchParams.get('token');
    const answer = await fetch(`${link.origin}/api/v1/reviews/${caseId}/respond?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'approve', responded_by: 'the person at the client' }),
    });
    return { action: answer.ok ? 'accept' : 'cancel' };
  });
}
let told;
const changed = new Promise((resolve) => (told = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => told(true));
await client.connect(transport);

const progress = [];
// The SDK's default time-out (60 s), restarted by each progress note.
const options = {
  onprogress: (p) => progress.push(p.progress),
  resetTimeoutOnProgress: true,
};
let out;
if (command === 'list') {
  const { tools } = await client.listTools();
  out = tools.map((t) => t.name);
} else if (command === 'call') {
  out = { result: await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, options), progress, links };
} else if (command === 'changes') {
  const before = (await client.listTools()).tools.map((t) => t.name);
  const heard = await Promise.race([changed, new Promise((r) => setTimeout(() => r(false), 20_000))]);
  const after = (await client.listTools()).tools.map((t) => t.name);
  out = { before, heard, after };
} else if (command === 'cancel') {
  const controller = new AbortController();
  setTimeout(() => controller.abort('changed my mind'), Number(ms));
  try {
    await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, { ...options, signal: controller.signal });
    out = { cancelled: false };
  } catch (e) {
    out = { cancelled: true, error: String(e) };
  }
  // Let the cancellation reach the server before the session closes.
  await new Promise((r) => setTimeout(r, 300));
} else if (command === 'leave') {
  const asked = client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, options).catch((e) => String(e));
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const started = Date.now();
  if (transport.terminateSession) await transport.terminateSession();
  await client.close();
  out = { left: true, closed_ms: Date.now() - started, answered: await Promise.race([asked, 'not answered']) };
  process.stdin.destroy();
}
console.log(JSON.stringify(out));
await client.close();
// A timer still pending (the wait for a change) would hold the process.
process.exit(0);
