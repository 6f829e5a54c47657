import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { expect, test } from '@playwright/test';
import { generateObject, generateText, streamText } from 'ai';
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { createAgentByApi, createApiKeyByApi, newAgent } from '../support/agents';
import { fundWallet } from '../support/chat';
import { newUser, registerByApi } from '../support/users';
import { allowTime } from '../support/timeouts';

// The agent API (docs/agent-api.md) driven by the client libraries people use with OpenAI-compatible
// endpoints: the official `openai` package (Chat Completions, Responses, models, typed errors), the Vercel
// AI SDK (its OpenAI provider on the Responses API and its OpenAI-compatible provider on Chat Completions)
// and LangChain's ChatOpenAI. API only: no page. One owner with a funded wallet, one agent and one key are
// shared by the tests; the answers come from the stack's LLM simulator.

const QUESTION = 'What can you help me with?';

/** The structured output every client asks for. */
const Answer = z.object({ summary: z.string(), confidence: z.number() });

/** The same schema written out, as a caller of the raw API sends it (strict structured outputs). */
const ANSWER_JSON_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, confidence: { type: 'number' } },
  required: ['summary', 'confidence'],
  additionalProperties: false,
} as const;

interface Setup {
  /** `${baseURL}/api/v1` */
  base: string;
  /** `agentic/<agent id>` */
  model: string;
  /** The agent API key (agk_…). */
  key: string;
}

let setup: Setup;

/** The error a call rejects with (fails the test when it succeeds). */
async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded; an error was expected');
}

/** Narrows to the openai package's APIError (rethrows anything else, e.g. a connection error). */
function asAPIError(error: unknown): APIError {
  if (error instanceof APIError) return error;
  throw error;
}

/** The text of a Responses API object, as the SDK's `output_text` is built: every output_text part of every message. */
function responseText(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

test.describe('the agent API with client libraries', () => {
  // One owner, agent and key for all the tests: run them one after the other in one worker
  // (the config's fullyParallel would give each test its own worker and its own setup).
  test.describe.configure({ mode: 'default' });

  test.beforeAll(async ({ request, baseURL }) => {
    allowTime(120_000);
    const owner = newUser('sdk');
    await registerByApi(request, owner);
    // $25: an agent's first answer may start its $10 monthly fee (see chat.spec.ts).
    const who = await fundWallet(request, owner.email, owner.password, 2500);
    const agent = await createAgentByApi(request, who, newAgent('Sdk'));
    const created = await createApiKeyByApi(request, who, agent.id, 'sdk');
    setup = {
      base: `${baseURL ?? 'http://localhost:8080'}/api/v1`,
      model: `agentic/${agent.id}`,
      key: created.key,
    };
  });

  test('the openai package: chat completions, streaming, structured output, Responses API, models, errors, idempotency', async () => {
    allowTime(180_000);
    const { base, model, key } = setup;
    const client = new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 });

    // Chat Completions, not streamed: an answer, its usage and the request id (x-request-id).
    const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
    expect(completion.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(typeof completion._request_id).toBe('string');
    expect(completion._request_id?.length).toBeGreaterThan(0);

    // Streamed without stream_options: no chunk carries usage.
    const plain = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: QUESTION }] });
    let plainText = '';
    let plainChunks = 0;
    const withUsage: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of plain) {
      plainChunks += 1;
      plainText += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage != null) withUsage.push(chunk);
    }
    expect(plainChunks).toBeGreaterThan(1);
    expect(plainText.length).toBeGreaterThan(0);
    expect(withUsage, 'usage chunks sent without stream_options.include_usage').toEqual([]);

    // Streamed with include_usage: the last chunk has the usage and no choices.
    const counted = await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: QUESTION }],
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of counted) chunks.push(chunk);
    const last = chunks[chunks.length - 1];
    expect(last.usage?.total_tokens).toBeGreaterThan(0);
    expect(last.choices).toEqual([]);
    expect(chunks.slice(0, -1).every((c) => c.usage == null)).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('').length).toBeGreaterThan(0);

    // JSON mode: the content is a JSON object.
    const jsonMode = await client.chat.completions.create({
      model,
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: `${QUESTION} Answer in JSON.` }],
    });
    const jsonObject: unknown = JSON.parse(jsonMode.choices[0].message.content ?? '');
    expect(typeof jsonObject).toBe('object');
    expect(jsonObject).not.toBeNull();
    expect(Array.isArray(jsonObject)).toBe(false);

    // Structured outputs: the content matches the schema.
    const structured = await client.chat.completions.create({
      model,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { ...ANSWER_JSON_SCHEMA }, strict: true },
      },
      messages: [{ role: 'user', content: QUESTION }],
    });
    const parsed = JSON.parse(structured.choices[0].message.content ?? '') as Record<string, unknown>;
    expect(typeof parsed.summary).toBe('string');
    expect(typeof parsed.confidence).toBe('number');

    // An unsupported parameter is a typed 400 naming it.
    const logprobs = asAPIError(
      await rejectionOf(client.chat.completions.create({ model, logprobs: true, messages: [{ role: 'user', content: QUESTION }] })),
    );
    expect(logprobs).toBeInstanceOf(OpenAI.BadRequestError);
    expect(logprobs.status).toBe(400);
    expect(logprobs.param).toBe('logprobs');

    // Responses API: create, retrieve, continue with previous_response_id.
    const first = await client.responses.create({ model, input: QUESTION });
    expect(first.object).toBe('response');
    expect(first.status).toBe('completed');
    expect(first.output_text.length).toBeGreaterThan(0);
    expect(first.usage?.input_tokens).toBeGreaterThan(0);
    expect(first.usage?.output_tokens).toBeGreaterThan(0);
    const again = await client.responses.retrieve(first.id);
    expect(again.id).toBe(first.id);
    expect(again.output_text).toBe(first.output_text);
    const followUp = await client.responses.create({ model, input: 'And in short?', previous_response_id: first.id });
    expect(followUp.status).toBe('completed');
    expect(followUp.id).not.toBe(first.id);
    expect(followUp.output_text.length).toBeGreaterThan(0);

    // Responses API, streamed: the event sequence and the deltas adding up to the completed response's text.
    const events = await client.responses.create({ model, input: 'Hello', stream: true });
    const types: string[] = [];
    let deltas = '';
    let doneText: string | undefined;
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of events) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
      if (event.type === 'response.output_text.done') doneText = event.text;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types).toContain('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.output_text.done');
    expect(types).toContain('response.completed');
    expect(types.indexOf('response.created')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(types.lastIndexOf('response.output_text.delta')).toBeLessThan(types.indexOf('response.output_text.done'));
    expect(types.indexOf('response.output_text.done')).toBeLessThan(types.indexOf('response.completed'));
    expect(deltas.length).toBeGreaterThan(0);
    expect(doneText).toBe(deltas);
    expect(completed?.status).toBe('completed');
    expect(responseText(completed!)).toBe(deltas);

    // Models: the key's agent, and any other model is a typed 404.
    const retrieved = await client.models.retrieve(model);
    expect(retrieved.id).toBe(model);
    expect(retrieved.object).toBe('model');
    const otherModel = asAPIError(await rejectionOf(client.models.retrieve('gpt-4o')));
    expect(otherModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect(otherModel.status).toBe(404);

    // Typed errors, each with the request id.
    const badKey = new OpenAI({ baseURL: base, apiKey: `agk_${'x'.repeat(32)}`, maxRetries: 0 });
    const unauthorized = asAPIError(await rejectionOf(badKey.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] })));
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized.status).toBe(401);
    const unknownRoute = asAPIError(await rejectionOf(client.get('/nope')));
    expect(unknownRoute).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownRoute.status).toBe(404);
    // The body's `error` object in OpenAI's shape (param and code may be null, but are there).
    expect(Object.keys(unknownRoute.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(typeof (unknownRoute.error as { message?: unknown }).message).toBe('string');
    for (const error of [logprobs, otherModel, unauthorized, unknownRoute]) {
      expect(typeof error.requestID, `${error.status} ${error.message}: requestID`).toBe('string');
      expect(error.requestID?.length).toBeGreaterThan(0);
    }
    // The same unknown route without the SDK: the raw body.
    const raw = await fetch(`${base}/nope`, { headers: { Authorization: `Bearer ${key}` } });
    expect(raw.status).toBe(404);
    const rawBody = (await raw.json()) as { error?: Record<string, unknown> };
    expect(Object.keys(rawBody.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);

    // Idempotency-Key: the same key and body answer once; the same key with another body is a 422.
    const idempotencyKey = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const post = (content: string) =>
      fetch(`${base}/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
      });
    const once = await post(QUESTION);
    const onceBody = (await once.json()) as { id?: string };
    expect(once.status, JSON.stringify(onceBody)).toBe(200);
    const twice = await post(QUESTION);
    const twiceBody = (await twice.json()) as { id?: string };
    expect(twice.status, JSON.stringify(twiceBody)).toBe(200);
    expect(onceBody.id).toBeTruthy();
    expect(twiceBody.id).toBe(onceBody.id);
    const mismatch = await post('Something else entirely?');
    const mismatchBody = (await mismatch.json()) as { error?: { code?: string } };
    expect(mismatch.status, JSON.stringify(mismatchBody)).toBe(422);
    expect(mismatchBody.error?.code).toBe('idempotency_key_mismatch');
  });

  test('the Vercel AI SDK: the OpenAI provider (Responses API) and the OpenAI-compatible provider (Chat Completions)', async () => {
    allowTime(120_000);
    const { base, model, key } = setup;

    // @ai-sdk/openai: provider(model) is the Responses API.
    const openai = createOpenAI({ baseURL: base, apiKey: key });
    const generated = await generateText({ model: openai(model), prompt: QUESTION, maxRetries: 0 });
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.usage.inputTokens).toBeGreaterThan(0);
    expect(generated.finishReason).toBe('stop');

    const streamErrors: unknown[] = [];
    const streamed = streamText({
      model: openai(model),
      prompt: QUESTION,
      maxRetries: 0,
      onError: ({ error }) => {
        streamErrors.push(error);
      },
    });
    let streamedText = '';
    for await (const delta of streamed.textStream) streamedText += delta;
    expect(streamErrors.map(String)).toEqual([]);
    expect(streamedText.length).toBeGreaterThan(0);
    // The SDK keeps the text only for deltas whose item_id is a message announced by response.output_item.added
    // (otherwise textStream still yields them but the result's text is empty, with no onError).
    expect(await streamed.text).toBe(streamedText);
    // 'stop' only once response.completed was received and understood.
    expect(await streamed.finishReason).toBe('stop');

    const object = await generateObject({ model: openai(model), schema: Answer, prompt: QUESTION, maxRetries: 0 });
    expect(typeof object.object.summary).toBe('string');
    expect(typeof object.object.confidence).toBe('number');

    // @ai-sdk/openai-compatible: Chat Completions.
    const compatible = createOpenAICompatible({ name: 'agentic', baseURL: base, apiKey: key, includeUsage: true });
    const compatText = await generateText({ model: compatible(model), prompt: QUESTION, maxRetries: 0 });
    expect(compatText.text.length).toBeGreaterThan(0);
    expect(compatText.usage.inputTokens).toBeGreaterThan(0);

    const compatErrors: unknown[] = [];
    const compatStream = streamText({
      model: compatible(model),
      prompt: QUESTION,
      maxRetries: 0,
      onError: ({ error }) => {
        compatErrors.push(error);
      },
    });
    let compatStreamed = '';
    for await (const delta of compatStream.textStream) compatStreamed += delta;
    expect(compatErrors.map(String)).toEqual([]);
    expect(compatStreamed.length).toBeGreaterThan(0);
    expect(await compatStream.text).toBe(compatStreamed);
    expect((await compatStream.usage).inputTokens).toBeGreaterThan(0);

    // With supportsStructuredOutputs the provider sends response_format json_schema: the object matches.
    const structuredProvider = createOpenAICompatible({
      name: 'agentic',
      baseURL: base,
      apiKey: key,
      supportsStructuredOutputs: true,
    });
    const compatObject = await generateObject({ model: structuredProvider(model), schema: Answer, prompt: QUESTION, maxRetries: 0 });
    expect(typeof compatObject.object.summary).toBe('string');
    expect(typeof compatObject.object.confidence).toBe('number');

    // Without it the provider sends response_format json_object and no schema at all (this version puts no
    // schema in the prompt either), so only "some JSON object" can be asked for: output 'no-schema'.
    const anyJson = await generateObject({ model: compatible(model), output: 'no-schema', prompt: `${QUESTION} Answer in JSON.`, maxRetries: 0 });
    expect(typeof anyJson.object).toBe('object');
    expect(anyJson.object).not.toBeNull();
  });

  test('LangChain ChatOpenAI: invoke, stream and structured output', async () => {
    allowTime(120_000);
    const { base, model, key } = setup;
    const chat = new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: base }, maxRetries: 0 });

    const message = await chat.invoke(QUESTION);
    expect(message.text.length).toBeGreaterThan(0);
    expect(message.usage_metadata?.total_tokens).toBeGreaterThan(0);

    let streamed = '';
    let streamedTokens = 0;
    for await (const chunk of await chat.stream(QUESTION)) {
      streamed += chunk.text;
      streamedTokens = Math.max(streamedTokens, chunk.usage_metadata?.total_tokens ?? 0);
    }
    expect(streamed.length).toBeGreaterThan(0);
    // LangChain asks for stream_options.include_usage: the usage chunk arrives.
    expect(streamedTokens).toBeGreaterThan(0);

    // response_format json_schema (the agent API takes no tools, so not function calling).
    const structured = await chat.withStructuredOutput(Answer, { method: 'jsonSchema' }).invoke(QUESTION);
    expect(typeof structured.summary).toBe('string');
    expect(typeof structured.confidence).toBe('number');
  });
});
