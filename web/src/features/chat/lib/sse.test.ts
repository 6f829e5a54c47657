import { describe, expect, it } from 'vitest';
import { createSseParser, readSseStream, type SseEvent } from './sse';

function parseChunks(chunks: string[]) {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  chunks.forEach((c) => parser.push(c));
  parser.end();
  return events;
}

const STREAM =
  'event: start\ndata: {"userMessageId":"u1","assistantMessageId":"a1","model":"agentic-sim","simulated":true}\n\n' +
  'event: delta\ndata: {"text":"Hel"}\n\n' +
  'event: delta\ndata: {"text":"lo – ünïcode ✓"}\n\n' +
  'event: citations\ndata: [{"documentId":"d1","documentName":"Syllabus","url":"https://docs.google.com/document/d/x/edit","labels":[]}]\n\n' +
  'event: usage\ndata: {"inputTokens":800,"outputTokens":12,"costMicros":874,"feeMicros":27,"totalMicros":901,"model":"agentic-sim"}\n\n' +
  'event: done\ndata: {"messageId":"a1"}\n\n';

describe('createSseParser', () => {
  it('parses several named events in one chunk', () => {
    const events = parseChunks([STREAM]);
    expect(events.map((e) => e.event)).toEqual(['start', 'delta', 'delta', 'citations', 'usage', 'done']);
    expect(JSON.parse(events[2].data)).toEqual({ text: 'lo – ünïcode ✓' });
  });

  it('gives the same events however the text is split (every split point, mid-line and mid-event)', () => {
    const whole = parseChunks([STREAM]);
    for (let i = 1; i < STREAM.length; i++) {
      expect(parseChunks([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(whole);
    }
    // One character at a time.
    expect(parseChunks([...STREAM])).toEqual(whole);
  });

  it('accepts CRLF and CR line ends, also split between CR and LF', () => {
    const crlf = 'event: delta\r\ndata: {"text":"a"}\r\n\r\nevent: done\r\ndata: {}\r\n\r\n';
    const expected = [
      { event: 'delta', data: '{"text":"a"}' },
      { event: 'done', data: '{}' },
    ];
    expect(parseChunks([crlf])).toEqual(expected);
    expect(parseChunks(['event: delta\r', '\ndata: {"text":"a"}\r', '\n\r', '\nevent: done\r\ndata: {}\r\n\r\n'])).toEqual(expected);
    expect(parseChunks(['event: delta\rdata: {"text":"a"}\r\revent: done\rdata: {}\r\r'])).toEqual(expected);
  });

  it('joins data lines, ignores comments, unknown fields and the optional space; defaults to message', () => {
    const events = parseChunks([': keep-alive\n\nretry: 1000\nfoo: bar\ndata:one\ndata: two\ndata\n\n', 'id: 7\ndata: x\n\n']);
    expect(events).toEqual([
      { event: 'message', data: 'one\ntwo\n' },
      { event: 'message', data: 'x', id: '7' },
    ]);
  });

  it('does not dispatch an event without data, and drops an unterminated one at the end', () => {
    expect(parseChunks(['event: ping\n\n'])).toEqual([]);
    expect(parseChunks(['event: delta\ndata: {"text":"a"}\n\nevent: delta\ndata: {"te'])).toEqual([{ event: 'delta', data: '{"text":"a"}' }]);
    expect(parseChunks(['event: done\ndata: {}\n'])).toEqual([]);
  });

  it('strips a leading byte-order mark', () => {
    expect(parseChunks(['\uFEFFdata: a\n\n'])).toEqual([{ event: 'message', data: 'a' }]);
  });
});

describe('readSseStream', () => {
  it('decodes UTF-8 split inside a character across chunks', async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"text":"é✓"}\n\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside "é"
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut, cut + 3));
        controller.enqueue(bytes.slice(cut + 3));
        controller.close();
      },
    });
    const events: SseEvent[] = [];
    await readSseStream(body, (e) => events.push(e));
    expect(events).toEqual([{ event: 'delta', data: '{"text":"é✓"}' }]);
  });

  it('rejects with the stream error', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(new TextEncoder().encode('data: a\n\n'));
        else controller.error(new TypeError('network error'));
      },
    });
    const events: SseEvent[] = [];
    await expect(readSseStream(body, (e) => events.push(e))).rejects.toThrow('network error');
    expect(events).toEqual([{ event: 'message', data: 'a' }]);
  });
});
