// Tokenizes with Hugging Face's tokenizers in JavaScript, as the reference
// for the Go tokenizer. stdin: {tokenizer, config, cases: [{a, b}]};
// stdout: [{ids, types}], special tokens included.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const tools = process.env.MODEL_TOOLS;
const { Tokenizer } = await import(join(tools, "@huggingface/tokenizers/dist/tokenizers.mjs"));
const input = JSON.parse(readFileSync(0, "utf8"));
const tok = new Tokenizer(input.tokenizer, input.config);
const out = input.cases.map(({ a, b }) => {
  const e = tok.encode(a, { text_pair: b ?? null, return_token_type_ids: true });
  return { ids: e.ids, types: e.token_type_ids };
});
process.stdout.write(JSON.stringify(out));
