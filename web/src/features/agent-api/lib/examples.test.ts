import { describe, expect, it } from 'vitest';
import {
  aiSdkExample,
  apiBaseUrl,
  curlExample,
  EXAMPLE_QUESTION,
  modelName,
  pythonExample,
  responsesCurlExample,
  responsesExample,
} from './examples';

const base = 'http://localhost:8080/api/v1';
const model = 'agentic/0190aaaa-0000-7000-8000-000000000001';

describe('examples', () => {
  it('names the model and the base URL from the origin', () => {
    expect(modelName('0190aaaa-0000-7000-8000-000000000001')).toBe(model);
    expect(apiBaseUrl('http://localhost:8080')).toBe(base);
    expect(apiBaseUrl('https://app.example.com/')).toBe('https://app.example.com/api/v1');
    expect(apiBaseUrl()).toBe(`${window.location.origin}/api/v1`);
  });

  it('curl: a runnable request with the key, or the environment variable', () => {
    const withKey = curlExample(base, model, 'agk_abc123');
    expect(withKey).toContain(`curl ${base}/chat/completions`);
    expect(withKey).toContain('-H "Authorization: Bearer agk_abc123"');
    const body = withKey.match(/-d '(.*)'$/m)?.[1];
    expect(JSON.parse(body ?? 'null')).toEqual({ model, messages: [{ role: 'user', content: EXAMPLE_QUESTION }] });
    expect(curlExample(base, model)).toContain('Bearer $AGENTIC_API_KEY');
  });

  it('Python: the openai package pointed at the app', () => {
    const withKey = pythonExample(base, model, 'agk_abc123');
    expect(withKey).toContain('from openai import OpenAI');
    expect(withKey).toContain(`client = OpenAI(base_url="${base}", api_key="agk_abc123")`);
    expect(withKey).toContain(`model="${model}"`);
    expect(withKey).not.toContain('import os');
    const env = pythonExample(base, model);
    expect(env).toContain('import os');
    expect(env).toContain('api_key=os.environ["AGENTIC_API_KEY"]');
  });

  it('Responses API: the openai npm package calling client.responses.create', () => {
    const withKey = responsesExample(base, model, 'agk_abc123');
    expect(withKey).toContain("import OpenAI from 'openai';");
    expect(withKey).toContain(`new OpenAI({ baseURL: '${base}', apiKey: 'agk_abc123' })`);
    expect(withKey).toContain('client.responses.create({');
    expect(withKey).toContain(`model: '${model}',`);
    expect(withKey).toContain(`input: '${EXAMPLE_QUESTION}',`);
    expect(withKey).toContain('console.log(response.output_text);');
    expect(withKey).not.toContain('process.env');
    const env = responsesExample(base, model);
    expect(env).toContain(`new OpenAI({ baseURL: '${base}', apiKey: process.env.AGENTIC_API_KEY })`);
    expect(env).not.toContain('agk_');
  });

  it('Responses API: curl POSTs {model, input} to /responses', () => {
    const withKey = responsesCurlExample(base, model, 'agk_abc123');
    expect(withKey).toContain(`curl ${base}/responses \\`);
    expect(withKey).toContain('-H "Authorization: Bearer agk_abc123"');
    expect(withKey).toContain('-H "Content-Type: application/json"');
    const body = withKey.match(/-d '(.*)'$/m)?.[1];
    expect(JSON.parse(body ?? 'null')).toEqual({ model, input: EXAMPLE_QUESTION });
    const env = responsesCurlExample(base, model);
    expect(env).toContain('Bearer $AGENTIC_API_KEY');
    expect(env).not.toContain('agk_');
  });

  it('Vercel AI SDK: createOpenAI pointed at the app, generateText with the model', () => {
    const withKey = aiSdkExample(base, model, 'agk_abc123');
    expect(withKey).toContain("import { createOpenAI } from '@ai-sdk/openai';");
    expect(withKey).toContain("import { generateText } from 'ai';");
    expect(withKey).toContain(`const agentic = createOpenAI({ baseURL: '${base}', apiKey: 'agk_abc123' });`);
    expect(withKey).toContain(`model: agentic('${model}'),`);
    expect(withKey).toContain(`prompt: '${EXAMPLE_QUESTION}',`);
    expect(withKey).toContain('const { text } = await generateText({');
    expect(withKey).toContain('console.log(text);');
    expect(withKey).not.toContain('process.env');
    const env = aiSdkExample(base, model);
    expect(env).toContain(`createOpenAI({ baseURL: '${base}', apiKey: process.env.AGENTIC_API_KEY })`);
    expect(env).not.toContain('agk_');
  });
});
