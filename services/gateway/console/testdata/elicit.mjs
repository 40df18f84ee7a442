// An MCP client on the official TypeScript SDK that declares elicitation,
// runs a sub-agent on the server at argv[2] (bearer token argv[3]) and
// answers the server's approval question as argv[4] says: approve, deny,
// or wait (never answer; the question may be withdrawn). It prints one
// JSON line: the questions asked, those withdrawn, and the tool result.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, token, answer, prompt] = process.argv.slice(2);
const asked = [];
let withdrawn = 0;
const client = new Client({ name: "VS Code", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
  asked.push({ message: req.params.message, schema: req.params.requestedSchema });
  process.stderr.write("asked: " + req.params.message + "\n");
  if (answer === "approve") return { action: "accept", content: { approve: true } };
  if (answer === "deny") return { action: "accept", content: { approve: false, note: "not from VS Code" } };
  return new Promise((resolve) => {
    extra.signal.addEventListener("abort", () => { withdrawn++; resolve({ action: "cancel" }); });
  });
});
const transport = new StreamableHTTPClientTransport(new URL(url + "/mcp"), {
  requestInit: { headers: { Authorization: "Bearer " + token } },
});
await client.connect(transport);
const result = await client.callTool({ name: "agent.run_subagent", arguments: { agent_id: "note_taker", prompt } }, undefined, { timeout: 60000 });
console.log(JSON.stringify({ asked, withdrawn, result }));
await client.close();
