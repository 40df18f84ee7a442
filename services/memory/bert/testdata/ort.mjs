// Runs an ONNX model with ONNX Runtime, as the reference for the Go
// forward pass. stdin: {model (path), batch: [{ids, types}]}; the batch is
// padded to its longest sequence and masked. stdout: {embeddings (mean of
// the last hidden states over the mask, unit length), hidden (each
// sequence's unpadded last hidden states), logits (when the model has
// them)}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.MODEL_TOOLS, "x.js"));
const ort = require("onnxruntime-node");
const input = JSON.parse(readFileSync(0, "utf8"));
const session = await ort.InferenceSession.create(input.model);
const b = input.batch.length;
const n = Math.max(...input.batch.map((s) => s.ids.length));
const feed = (f) => {
  const data = new BigInt64Array(b * n);
  input.batch.forEach((s, i) => s.ids.forEach((_, j) => (data[i * n + j] = BigInt(f(s, j)))));
  return new ort.Tensor("int64", data, [b, n]);
};
const out = await session.run({
  input_ids: feed((s, j) => s.ids[j]),
  token_type_ids: feed((s, j) => s.types[j]),
  position_ids: feed((_, j) => j),
  attention_mask: feed(() => 1),
});
const hs = out.last_hidden_state;
const h = hs.dims[2];
const hidden = [], embeddings = [];
input.batch.forEach((s, i) => {
  const rows = [];
  const mean = new Float64Array(h);
  for (let j = 0; j < s.ids.length; j++) {
    const row = Array.from(hs.data.slice((i * n + j) * h, (i * n + j + 1) * h));
    rows.push(row);
    row.forEach((v, k) => (mean[k] += v));
  }
  const norm = Math.hypot(...mean);
  hidden.push(rows);
  embeddings.push(Array.from(mean, (v) => v / norm));
});
const result = { hidden, embeddings };
if (out.logits) result.logits = Array.from(out.logits.data);
process.stdout.write(JSON.stringify(result));
