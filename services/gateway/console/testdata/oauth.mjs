// An MCP client on the official TypeScript SDK that knows only the server's
// URL (argv[2]) and signs in with the SDK's OAuth client provider:
// discovery, dynamic registration, authorization with PKCE in a browser
// (it prints "authorize: <URL>" on stderr for the test's Chromium to open,
// and takes the code at its loopback redirect URI), the token, then tool
// calls. It then renews its access token with its refresh token, and ends
// the grant as argv[3] says: "revoke" revokes its refresh token itself
// (RFC 7009); "console" prints "waiting" and waits for a line on stdin,
// while the person revokes it in the console. Last it calls a tool again,
// which must be refused. It prints one JSON line of what happened.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, discoverAuthorizationServerMetadata } from "@modelcontextprotocol/sdk/client/auth.js";

const [base, mode] = process.argv.slice(2);
const out = { registered: null, state_ok: false };

// The redirect URI: a loopback port of its own, as native apps do.
let gotCode;
const code = new Promise((resolve) => { gotCode = resolve; });
let expectedState;
const callback = http.createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  if (u.pathname !== "/callback") { res.writeHead(404).end(); return; }
  out.state_ok = u.searchParams.get("state") === expectedState;
  out.iss = u.searchParams.get("iss");
  res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Signed in</title><p>Signed in: you can close this tab.</p>");
  gotCode(u.searchParams.get("code") || "error: " + u.searchParams.get("error"));
});
await new Promise((r) => callback.listen(0, "127.0.0.1", r));
const redirect = `http://127.0.0.1:${callback.address().port}/callback`;

class Provider {
  constructor() { this.t = undefined; this.c = undefined; this.v = undefined; this.authorizations = 0; }
  get redirectUrl() { return redirect; }
  get clientMetadata() {
    return { client_name: "TS SDK test client", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() { expectedState = randomUUID(); return expectedState; }
  clientInformation() { return this.c; }
  saveClientInformation(c) { this.c = c; out.registered = c.client_id; }
  tokens() { return this.t; }
  saveTokens(t) { this.t = t; }
  redirectToAuthorization(url) { this.authorizations++; process.stderr.write("authorize: " + url.href + "\n"); }
  saveCodeVerifier(v) { this.v = v; }
  codeVerifier() { return this.v; }
  // Told its client is unknown (invalid_client), it forgets it and registers anew.
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") this.c = undefined;
    if (scope === "all" || scope === "tokens") this.t = undefined;
    if (scope === "all" || scope === "verifier") this.v = undefined;
  }
}
const provider = new Provider();
const url = new URL(base + "/mcp");

async function connected() {
  const client = new Client({ name: "TS SDK test client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

function text(result) { return (result.content || []).map((c) => c.text).join(" "); }

// Knowing only the URL: the first connect is refused and sends the person to sign in.
try {
  await connected();
  out.first = "connected without signing in";
} catch (e) {
  out.first = e instanceof UnauthorizedError ? "unauthorized" : String(e);
}
const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
await transport.finishAuth(await code);
out.scope = provider.t.scope;
let client = await connected();
out.tools = (await client.listTools()).tools.length;
out.fetch = await client.callTool({ name: "memory.fetch", arguments: { query: "zqoauthword" } });
try {
  out.learn = "stored: " + text(await client.callTool({ name: "memory.learn", arguments: { text: "The zqoauthword client may not write this." } }));
} catch (e) {
  out.learn = "refused: " + e.message;
}
await client.close();

// Refresh: the access token no longer works, the SDK renews it with its refresh token.
const before = provider.t.refresh_token;
provider.t = { ...provider.t, access_token: "ohat_expired" };
client = await connected();
out.after_refresh = text(await client.callTool({ name: "memory.fetch", arguments: { query: "zqoauthword" } }));
out.refreshed = provider.t.refresh_token !== before && provider.t.access_token !== "ohat_expired";
await client.close();

if (mode === "revoke") {
  const meta = await discoverAuthorizationServerMetadata(new URL(base));
  const res = await fetch(meta.revocation_endpoint, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: provider.t.refresh_token, token_type_hint: "refresh_token", client_id: provider.c.client_id }) });
  out.revoked = res.status;
} else {
  process.stderr.write("waiting\n");
  const rl = createInterface({ input: process.stdin });
  await new Promise((r) => rl.once("line", r));
  rl.close();
}

// After revocation: refused, and the SDK can only send the person to sign in again.
const asked = provider.authorizations;
const firstClient = provider.c.client_id;
try {
  const c = await connected();
  out.after_revoke = "called: " + text(await c.callTool({ name: "memory.fetch", arguments: { query: "zqoauthword" } }));
} catch (e) {
  out.after_revoke = (e instanceof UnauthorizedError ? "unauthorized: " : "error: ") + e.message;
}
out.asked_again = provider.authorizations > asked;
out.registered_again = provider.c !== undefined && provider.c.client_id !== firstClient;
console.log(JSON.stringify(out));
callback.close();
process.exit(0);
