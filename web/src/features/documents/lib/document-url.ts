/**
 * Spec §5 "Add document" / "Edit document" rules for the name and the Google Docs URL, mirroring
 * the documents service (docs/documents.md, `googledocs.ParseDocumentURL`). Pure functions.
 */

export const DOCUMENT_MESSAGES = {
  nameRequired: 'Document name is required',
  nameSpaces: 'Document name cannot contain spaces.',
  nameTooLong: 'Document name must be at most 100 characters',
  urlRequired: 'Document URL is required',
  urlTooLong: 'Document URL must be at most 2048 characters',
  urlInvalid: 'Please enter a valid URL',
  urlNotDocument: 'URL must be a document URL (docs.google.com/document/...)',
  noDocumentId: 'Invalid Google Docs URL: Could not extract document ID from the provided URL.',
  notGoogleDocs: 'Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported.',
} as const;

export const MAX_NAME_LENGTH = 100;
export const MAX_URL_LENGTH = 2048;
export const DOCUMENT_PATH = 'docs.google.com/document/';

const SPACE = /\s/;
// eslint-disable-next-line no-control-regex
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/;
const ABSOLUTE_URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/** The Document Name rule (add and edit): the first problem, or null. Not trimmed, like the server. */
export function documentNameError(name: string): string | null {
  if (name.trim() === '') return DOCUMENT_MESSAGES.nameRequired;
  if (SPACE.test(name)) return DOCUMENT_MESSAGES.nameSpaces;
  if (name.length > MAX_NAME_LENGTH) return DOCUMENT_MESSAGES.nameTooLong;
  return null;
}

/**
 * A valid URL: an absolute URL with a scheme and a non-empty authority (`scheme://host...`), no
 * white space or control characters inside, that the browser's URL parser accepts.
 */
export function isValidUrl(url: string): boolean {
  if (SPACE_OR_CONTROL.test(url)) return false;
  const match = ABSOLUTE_URL.exec(url);
  if (!match || !match[2]) return false;
  try {
    return new URL(url).host !== '';
  } catch {
    return false;
  }
}

/**
 * The field-level URL checks shown while filling the form (on the trimmed URL): required, length,
 * valid URL, contains `docs.google.com/document/` (case-sensitive). Null when they pass.
 */
export function documentUrlError(rawUrl: string): string | null {
  const url = rawUrl.trim();
  if (url === '') return DOCUMENT_MESSAGES.urlRequired;
  if (url.length > MAX_URL_LENGTH) return DOCUMENT_MESSAGES.urlTooLong;
  if (!isValidUrl(url)) return DOCUMENT_MESSAGES.urlInvalid;
  if (!url.includes(DOCUMENT_PATH)) return DOCUMENT_MESSAGES.urlNotDocument;
  return null;
}

/** The document id: the first run of 25 or more [A-Za-z0-9_-] anywhere in the URL, or null. */
export function extractDriveFileId(url: string): string | null {
  return /[A-Za-z0-9_-]{25,}/.exec(url)?.[0] ?? null;
}

/**
 * On the Google Docs service: scheme http(s), authority exactly `docs.google.com` (any case; no
 * user info, no port), path starting with `/document/`.
 */
export function isGoogleDocsUrl(url: string): boolean {
  const match = ABSOLUTE_URL.exec(url.trim());
  if (!match) return false;
  const [, scheme = '', authority = '', rest = ''] = match;
  return /^https?$/i.test(scheme) && authority.toLowerCase() === 'docs.google.com' && rest.startsWith('/document/');
}

export type ParsedDocumentUrl = { ok: true; url: string; driveFileId: string } | { ok: false; message: string };

/**
 * Every URL check in the server's order: the field checks, then (on submit) the document id and
 * the service. Returns the trimmed URL and the Drive file id.
 */
export function parseDocumentUrl(rawUrl: string): ParsedDocumentUrl {
  const fieldError = documentUrlError(rawUrl);
  if (fieldError) return { ok: false, message: fieldError };
  const url = rawUrl.trim();
  const driveFileId = extractDriveFileId(url);
  if (!driveFileId) return { ok: false, message: DOCUMENT_MESSAGES.noDocumentId };
  if (!isGoogleDocsUrl(url)) return { ok: false, message: DOCUMENT_MESSAGES.notGoogleDocs };
  return { ok: true, url, driveFileId };
}

/**
 * A Document Name from a Google Docs title (the add form's pre-fill): white space runs become
 * underscores (a name has no spaces), control characters go, and it is cut to 100 characters.
 * '' when nothing usable remains.
 */
export function nameFromTitle(title: string): string {
  const name = title
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g, '')
    .trim()
    .replace(/\s+/g, '_');
  // Cut like the length rule counts (UTF-16 units), never inside a surrogate pair.
  let cut = name.slice(0, MAX_NAME_LENGTH);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.replace(/_+$/, '');
}
