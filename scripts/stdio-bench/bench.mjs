// Latency of memory.fetch as an MCP client meets it: the official
// TypeScript SDK's client over stdio, against one or more builds of
// openhuman-core and the reference knowledge-graph memory server
// (@modelcontextprotocol/server-memory), each holding the same notes. The
// servers are measured in turn, round after round, so that a busy machine
// slows all of them alike; the figures that matter are the ratios.
//
//   node bench.mjs --core old=/path/a --core new=/path/b --reference /path/to/server-memory/dist/index.js
//          [--notes 3000] [--calls 300] [--rounds 5]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    core: { type: "string", multiple: true, default: [] },
    reference: { type: "string" },
    notes: { type: "string", default: "3000" },
    calls: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
  },
});
const notes = Number(opt.notes), calls = Number(opt.calls), rounds = Number(opt.rounds);
if (opt.core.length === 0) throw new Error("--core NAME=PATH is needed at least once");

const topics = ["deploy", "billing", "postgres", "editor", "release", "standup", "kubernetes", "invoice", "holiday", "design"];
const people = ["Ana", "Bo", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kemal", "Lea"];
// teams is chosen so that a query naming one team matches notes/teams of them.
// BenchmarkStdio (services/gateway/mcpserver) learns and fetches the same: change both together.
const teams = Math.max(1, Math.floor(notes / 10));
const note = (i) =>
  `Note ${i}: the ${topics[i % topics.length]} decision for team ${i % teams} was recorded after the ` +
  `${topics[Math.floor(i / 10) % topics.length]} review with ${people[i % people.length]} on day ${i % 28 + 1}.`;
const team = Math.floor(teams / 2);
const fetchArgs = { query: `${topics[team % topics.length]} decision for team ${team}`, limit: 10 };
// server-memory matches the query as a substring of names, types and observations.
const searchArgs = { query: `for team ${team} was` };

const homes = [];
async function connect(command, args, env) {
  const client = new Client({ name: "stdio-bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: "ignore" }));
  return client;
}

async function startCore(name, bin, held = notes) {
  const home = mkdtempSync(join(tmpdir(), "stdio-bench-"));
  homes.push(home);
  const client = await connect(bin, ["mcp"], { OPENHUMAN_HOME: home });
  for (let i = 0; i < held; i += 32) {
    const batch = [];
    for (let j = i; j < Math.min(held, i + 32); j++) {
      batch.push(client.callTool({ name: "memory.learn", arguments: { text: note(j), kind: "fact" } }));
    }
    for (const r of await Promise.all(batch)) if (r.isError) throw new Error(`${name}: learn failed: ${JSON.stringify(r)}`);
  }
  const probe = await client.callTool({ name: "memory.fetch", arguments: fetchArgs });
  const hits = probe.structuredContent?.hits?.length ?? 0;
  return { name, client, probe, call: () => client.callTool({ name: "memory.fetch", arguments: fetchArgs }), tool: "memory.fetch", hits };
}

async function startReference(script) {
  const dir = mkdtempSync(join(tmpdir(), "stdio-bench-ref-"));
  homes.push(dir);
  const client = await connect(process.execPath, [script], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") });
  for (let i = 0; i < notes; i += 100) {
    const entities = [];
    for (let j = i; j < Math.min(notes, i + 100); j++) entities.push({ name: `note-${j}`, entityType: "note", observations: [note(j)] });
    await client.callTool({ name: "create_entities", arguments: { entities } });
  }
  const probe = await client.callTool({ name: "search_nodes", arguments: searchArgs });
  const hits = JSON.parse(probe.content[0].text).entities.length;
  return { name: "server-memory", client, call: () => client.callTool({ name: "search_nodes", arguments: searchArgs }), tool: "search_nodes", hits };
}

async function time(fn) {
  const out = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const targets = [];
for (const spec of opt.core) {
  const eq = spec.indexOf("=");
  targets.push(await startCore(spec.slice(0, eq), spec.slice(eq + 1)));
}
// The floor under a fetch: the last build's fetch in a memory of one note
// (which the query's words match), where retrieval has next to nothing to
// do and what is left is the tool call itself.
{
  const spec = opt.core[opt.core.length - 1], eq = spec.indexOf("=");
  const floor = await startCore(spec.slice(0, eq), spec.slice(eq + 1), 1);
  floor.name += ", 1 note";
  targets.push(floor);
}
// The client's own floor: a server that answers the last build's fetch
// reply, recorded, without doing anything.
{
  const last = targets[opt.core.length - 1];
  const dir = mkdtempSync(join(tmpdir(), "stdio-bench-recorded-"));
  homes.push(dir);
  const file = join(dir, "reply.json");
  writeFileSync(file, JSON.stringify(last.probe));
  const script = new URL("./recorded.mjs", import.meta.url).pathname;
  const client = await connect(process.execPath, [script, file], {});
  const args = { name: last.tool, arguments: fetchArgs };
  targets.push({ name: "recorded reply", client, call: () => client.callTool(args), tool: last.tool, hits: last.hits });
}
if (opt.reference) targets.push(await startReference(opt.reference));
for (const t of targets) {
  await time(t.call); // warm caches and the JIT before anything counts
  t.ping = []; t.tool_ms = [];
}
for (let r = 0; r < rounds; r++) {
  for (const t of targets) {
    t.ping.push(...(await time(() => t.client.ping())));
    t.tool_ms.push(...(await time(t.call)));
  }
}
const ref = targets.find((t) => t.name === "server-memory");
console.log(`${notes} notes, ${rounds} rounds of ${calls} calls each, servers in turn; medians in ms`);
console.log(`memory.fetch ${JSON.stringify(fetchArgs)}; search_nodes ${JSON.stringify(searchArgs)}`);
console.log(["server", "tool", "hits", "ping", "tool_call", "tool/ping", "tool/search_nodes"].join("\t"));
for (const t of targets) {
  const p = median(t.ping), c = median(t.tool_ms);
  console.log([t.name, t.tool, t.hits, p.toFixed(3), c.toFixed(3), (c / p).toFixed(2), ref ? (c / median(ref.tool_ms)).toFixed(3) : "-"].join("\t"));
}
for (const t of targets) await t.client.close();
for (const h of homes) rmSync(h, { recursive: true, force: true });
