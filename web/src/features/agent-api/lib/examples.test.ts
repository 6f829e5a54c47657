import { describe, expect, it } from 'vitest';
import { apiBaseUrl, curlExample, EXAMPLE_QUESTION, modelName, pythonExample } from './examples';

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
});
