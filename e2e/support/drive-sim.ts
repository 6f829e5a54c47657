/**
 * The Drive simulator's JSON admin API (services/documents/internal/drivesim, a dev tool on
 * 127.0.0.1:8111 in the local stack): create Google Docs documents, share them with an address,
 * list them. The documents service reads them through the Drive API as the agent, so sharing here
 * is what gives an agent access, exactly as in Google Drive.
 */
import { expect, type APIRequestContext } from '@playwright/test';

export const DRIVE_SIM_URL = (process.env.DRIVE_SIM_URL ?? process.env.E2E_DRIVE_SIM_URL ?? 'http://127.0.0.1:8111').replace(/\/+$/, '');

/** The Google Docs URL of a document id (what a creator pastes into Add Document). */
export const simDocUrl = (id: string) => `https://docs.google.com/document/d/${id}/edit`;

export interface SimFile {
  id: string;
  title: string;
  text: string;
  mimeType: string;
  anyoneWithLink: boolean;
  sharedWith: string[] | null;
  version: number;
  /** The file's Google Docs URL, as the simulator prints it. */
  url: string;
}

export interface NewSimFile {
  title: string;
  text: string;
  /** Readable by every caller ("anyone with the link"). */
  anyoneWithLink?: boolean;
  /** Addresses the file is shared with. */
  sharedWith?: string[];
}

async function call<T>(request: APIRequestContext, method: 'GET' | 'POST', path: string, data?: unknown, expected = 200): Promise<T> {
  const url = `${DRIVE_SIM_URL}${path}`;
  let res;
  try {
    res = await request.fetch(url, { method, data });
  } catch (error) {
    throw new Error(`The Drive simulator is not reachable at ${DRIVE_SIM_URL} (set DRIVE_SIM_URL): ${String(error)}`);
  }
  expect(res.status(), `${method} ${url}: ${await res.text()}`).toBe(expected);
  return (await res.json()) as T;
}

/** POST /_sim/files → 201 with the new file. */
export function createSimFile(request: APIRequestContext, file: NewSimFile): Promise<SimFile> {
  return call<SimFile>(request, 'POST', '/_sim/files', file, 201);
}

/** POST /_sim/files/{id}/share: the file becomes readable by `email`. */
export function shareSimFile(request: APIRequestContext, id: string, email: string): Promise<SimFile> {
  return call<SimFile>(request, 'POST', `/_sim/files/${encodeURIComponent(id)}/share`, { email });
}

/** GET /_sim/files. */
export function listSimFiles(request: APIRequestContext): Promise<SimFile[]> {
  return call<SimFile[]>(request, 'GET', '/_sim/files');
}

/** A short run-unique word, so a test's document titles and sentences are its own. */
export function uniqueWord(prefix = 'e2e'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}
