// A real OpenID provider on loopback for the tests of signing in with
// OpenID Connect: the `oidc-provider` package (certified by the OpenID
// Foundation) with its development login pages, where any name signs in.
//
//   node oidc-provider.mjs <redirect uri> [authorization code lifetime, seconds]
//
// Prints "issuer <url>" once it listens. The one client is `airlock` with
// the secret `airlock-test-secret`; PKCE is required, as Airlock sends it.
import Provider from 'oidc-provider';

const [redirectUri, codeTtl = '60'] = process.argv.slice(2);
if (!redirectUri) {
  console.error('usage: node oidc-provider.mjs <redirect uri> [code lifetime]');
  process.exit(2);
}

const server = (await import('node:http')).createServer();
await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'airlock',
      client_secret: 'airlock-test-secret',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  pkce: { required: () => true },
  claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'] },
  // Everyone who signs in is who they say, named after what they typed; an
  // address is verified unless the name starts with `unverified`.
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({
      sub: id,
      preferred_username: id,
      name: `${id[0].toUpperCase()}${id.slice(1)} Sso`,
      email: `${id}@example.com`,
      email_verified: !id.startsWith('unverified'),
    }),
  }),
  ttl: { AuthorizationCode: Number(codeTtl) },
  features: { devInteractions: { enabled: true } },
});
// Loopback over plain HTTP is what this is for.
provider.proxy = false;
server.on('request', provider.callback());
console.log(`issuer ${issuer}`);
