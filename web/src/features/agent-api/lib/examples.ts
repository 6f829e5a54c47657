/**
 * Ready-to-paste snippets for the agent API (docs/agent-api.md): the app's own origin + /api/v1 as the
 * OpenAI base URL and `agentic/<agent id>` as the model. A key just created is put in the snippets
 * (it is on screen anyway); otherwise they read it from the AGENTIC_API_KEY environment variable.
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

export function curlExample(baseUrl: string, model: string, key?: string): string {
  const auth = key ? key : `$${KEY_ENV}`;
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: EXAMPLE_QUESTION }] });
  return [
    `curl ${baseUrl}/chat/completions \\`,
    `  -H "Authorization: Bearer ${auth}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body}'`,
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
