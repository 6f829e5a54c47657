/** Test helpers: an SSE response whose events the test pushes one by one, honouring the request's abort signal. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function controllableSse(signal?: AbortSignal | null) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  signal?.addEventListener('abort', () => {
    if (closed) return;
    closed = true;
    controller.error(new DOMException('The operation was aborted.', 'AbortError'));
  });
  return {
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    /** Pushes raw text (any split). */
    raw(text: string) {
      if (!closed) controller.enqueue(encoder.encode(text));
    },
    send(event: string, data: unknown) {
      this.raw(sseFrame(event, data));
    },
    close() {
      if (closed) return;
      closed = true;
      controller.close();
    },
    fail(error: unknown = new TypeError('network error')) {
      if (closed) return;
      closed = true;
      controller.error(error);
    },
  };
}

export { json } from '@/test/fake-api';

export const START = { userMessageId: 'm-u1', assistantMessageId: 'm-a1', model: 'agentic-sim', simulated: true };
export const USAGE = { inputTokens: 800, outputTokens: 12, costMicros: 874, feeMicros: 27, totalMicros: 901, model: 'agentic-sim' };
export const CITATION = {
  documentId: 'd1',
  documentName: 'Calculus Syllabus',
  url: 'https://docs.google.com/document/d/1aBcD/edit',
  labels: ['week1'],
};
