/**
 * A small Server-Sent Events parser (the WHATWG "event stream" interpretation rules), fed with
 * text chunks that may split anywhere: mid-line, between CR and LF, or in the middle of an event.
 *
 * - Lines end with CRLF, LF or CR. A leading BOM is ignored.
 * - `event:` sets the type (default 'message'), `data:` lines are joined with '\n', `id:` sets the
 *   last event id (ignored when it contains NUL), `retry:` is ignored; one optional space after the
 *   colon is removed; lines starting with ':' are comments.
 * - A blank line dispatches the event when its data buffer is not empty.
 * - `end()` drops an event that was not terminated by a blank line (as browsers do), so a stream
 *   cut in the middle of an event never yields half a JSON payload.
 */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseParser {
  push(chunk: string): void;
  end(): void;
}

export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let started = false;
  let pendingCR = false;
  let eventType = '';
  let data: string[] = [];
  let lastId: string | undefined;

  const dispatch = () => {
    if (data.length > 0) {
      onEvent({ event: eventType || 'message', data: data.join('\n'), ...(lastId !== undefined ? { id: lastId } : {}) });
    }
    eventType = '';
    data = [];
  };

  const line = (text: string) => {
    if (text === '') {
      dispatch();
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) lastId = value;
        break;
      default:
        // 'retry' and unknown fields are ignored.
        break;
    }
  };

  return {
    push(chunk: string) {
      if (!chunk) return;
      let text = chunk;
      if (!started) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      // A CR ended the previous chunk: an LF starting this one belongs to the same line break.
      if (pendingCR) {
        pendingCR = false;
        if (text.startsWith('\n')) text = text.slice(1);
      }
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        line(buffer.slice(start, i));
        if (c === '\r') {
          if (i + 1 === buffer.length) {
            pendingCR = true;
          } else if (buffer[i + 1] === '\n') {
            i++;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    end() {
      // An unterminated line or event is discarded.
      buffer = '';
      eventType = '';
      data = [];
    },
  };
}

/**
 * Reads a response body as SSE events. Resolves when the stream ends; rejects with the reader's
 * error (an AbortError when the request's signal was aborted, a TypeError on a network failure).
 */
export async function readSseStream(body: ReadableStream<Uint8Array>, onEvent: (event: SseEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser(onEvent);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    // Stop reading (and let the connection go) whatever failed: the network, an abort or a handler.
    reader.cancel(error).catch(() => {});
    throw error;
  }
  parser.push(decoder.decode());
  parser.end();
  reader.releaseLock();
}
