// A stdio MCP server that does no work: it answers ping, and every
// tools/call with one recorded result read from the file named by its
// argument. Timed through the same client as the real servers, its
// tools/call less its ping is what the client itself spends on a reply of
// that size (reading, JSON.parse, the SDK's schemas): a part of every
// server's tool call that no server can make cheaper. It is written on
// bare JSON-RPC lines rather than on the SDK's Server, whose parsing and
// schema checks of each request would be counted as the client's.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const result = readFileSync(process.argv[2], "utf8");
const send = (id, res) => process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${res}}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.id === undefined) continue; // notifications
  switch (msg.method) {
    case "initialize":
      send(msg.id, JSON.stringify({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "recorded", version: "1" } }));
      break;
    case "tools/call":
      send(msg.id, result);
      break;
    default:
      send(msg.id, "{}");
  }
}
