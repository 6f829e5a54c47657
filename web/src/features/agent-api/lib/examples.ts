/**
 * Ready-to-paste snippets for the agent API (docs/agent-api.md): the app's own origin + /api/v1 as the
 * OpenAI base URL and `agentic/<agent id>` as the model. A key just created is put in the snippets
 * (it is on screen anyway); otherwise they read it from the AGENTIC_API_KEY environment variable.
 * Chat Completions (curl, Python), the Responses API (the `openai` npm package, curl) and the Vercel AI SDK
 * (whose default OpenAI provider calls the Responses API).
 */

export const KEY_ENV = 'AGENTIC_API_KEY';
export const EXAMPLE_QUESTION = 'What can you help me with?';

/** The model name of an agent in the agent API. */
export function modelName(agentId: string): string {
  return `agentic/${agentId}`;
}

/** The OpenAI-compatible base URL of this app (e.g. http://localhost:8080/api/v1). */
export function apiBaseUrl(origin: string = window.location.origin): string {
  return `${origin.replace(/\/+$/, '')}/api/v1`;
}

/** A JSON POST to `<baseUrl><path>` with the key (or the environment variable) as the Bearer token. */
function curlPost(baseUrl: string, path: string, body: unknown, key?: string): string {
  const auth = key ? key : `$${KEY_ENV}`;
  return [
    `curl ${baseUrl}${path} \\`,
    `  -H "Authorization: Bearer ${auth}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');
}

/** The key as a JavaScript expression: the literal, or the environment variable. */
function jsApiKey(key?: string): string {
  return key ? `'${key}'` : `process.env.${KEY_ENV}`;
}

export function curlExample(baseUrl: string, model: string, key?: string): string {
  const body = { model, messages: [{ role: 'user', content: EXAMPLE_QUESTION }] };
  return curlPost(baseUrl, '/chat/completions', body, key);
}

/** The Responses API (`POST /responses`) with curl. */
export function responsesCurlExample(baseUrl: string, model: string, key?: string): string {
  return curlPost(baseUrl, '/responses', { model, input: EXAMPLE_QUESTION }, key);
}

/** The Responses API with the `openai` npm package (an ES module: top-level await). */
export function responsesExample(baseUrl: string, model: string, key?: string): string {
  return [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: ${jsApiKey(key)} });`,
    '',
    'const response = await client.responses.create({',
    `  model: '${model}',`,
    `  input: '${EXAMPLE_QUESTION}',`,
    '});',
    'console.log(response.output_text);',
  ].join('\n');
}

/** The Vercel AI SDK: its OpenAI provider pointed at the app (the default provider calls the Responses API). */
export function aiSdkExample(baseUrl: string, model: string, key?: string): string {
  return [
    "import { createOpenAI } from '@ai-sdk/openai';",
    "import { generateText } from 'ai';",
    '',
    `const agentic = createOpenAI({ baseURL: '${baseUrl}', apiKey: ${jsApiKey(key)} });`,
    '',
    'const { text } = await generateText({',
    `  model: agentic('${model}'),`,
    `  prompt: '${EXAMPLE_QUESTION}',`,
    '});',
    'console.log(text);',
  ].join('\n');
}

export function pythonExample(baseUrl: string, model: string, key?: string): string {
  const apiKey = key ? `"${key}"` : `os.environ["${KEY_ENV}"]`;
  return [
    ...(key ? [] : ['import os', '']),
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url="${baseUrl}", api_key=${apiKey})`,
    '',
    'response = client.chat.completions.create(',
    `    model="${model}",`,
    `    messages=[{"role": "user", "content": "${EXAMPLE_QUESTION}"}],`,
    ')',
    'print(response.choices[0].message.content)',
    'print("cost: $", response.usage.model_extra.get("cost"))',
  ].join('\n');
}
