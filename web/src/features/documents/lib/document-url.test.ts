import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_MESSAGES as M,
  documentNameError,
  documentUrlError,
  extractDriveFileId,
  isGoogleDocsUrl,
  parseDocumentUrl,
} from './document-url';
import { rng } from './random.test-util';

const ID = '1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde';
const GOOD = `https://docs.google.com/document/d/${ID}/edit`;

describe('documentNameError', () => {
  it('applies the spec messages', () => {
    expect(documentNameError('')).toBe(M.nameRequired);
    expect(documentNameError('   ')).toBe(M.nameRequired);
    expect(documentNameError('My Doc')).toBe(M.nameSpaces);
    expect(documentNameError(' Syllabus')).toBe(M.nameSpaces);
    expect(documentNameError('a\u00a0b')).toBe(M.nameSpaces);
    expect(documentNameError('x'.repeat(101))).toBe(M.nameTooLong);
    expect(documentNameError('Syllabus')).toBeNull();
  });
});

describe('URL rules', () => {
  it('field checks in order', () => {
    expect(documentUrlError('')).toBe(M.urlRequired);
    expect(documentUrlError('  ')).toBe(M.urlRequired);
    expect(documentUrlError('not a url')).toBe(M.urlInvalid);
    expect(documentUrlError('docs.google.com/document/d/x')).toBe(M.urlInvalid);
    expect(documentUrlError('https:///document/d/x')).toBe(M.urlInvalid);
    expect(documentUrlError('mailto:a@b.c')).toBe(M.urlInvalid);
    expect(documentUrlError('https://example.com/file')).toBe(M.urlNotDocument);
    expect(documentUrlError('https://DOCS.GOOGLE.COM/document/d/x')).toBe(M.urlNotDocument);
    expect(documentUrlError(`  ${GOOD}  `)).toBeNull();
  });

  it('extracts the first run of 25+ id characters', () => {
    expect(extractDriveFileId(GOOD)).toBe(ID);
    expect(extractDriveFileId('https://docs.google.com/document/d/short/edit')).toBeNull();
    expect(extractDriveFileId(`https://docs.google.com/document/${'a'.repeat(30)}/d/${ID}`)).toBe('a'.repeat(30));
    expect(extractDriveFileId(`https://docs.google.com/document/?id=${ID}`)).toBe(ID);
  });

  it('accepts only the Google Docs service', () => {
    expect(isGoogleDocsUrl(GOOD)).toBe(true);
    expect(isGoogleDocsUrl(GOOD.replace('https', 'HTTP'))).toBe(true);
    expect(isGoogleDocsUrl(`https://evil.example/docs.google.com/document/d/${ID}`)).toBe(false);
    expect(isGoogleDocsUrl(`https://docs.google.com:443/document/d/${ID}`)).toBe(false);
    expect(isGoogleDocsUrl(`https://user@docs.google.com/document/d/${ID}`)).toBe(false);
    expect(isGoogleDocsUrl(`ftp://docs.google.com/document/d/${ID}`)).toBe(false);
  });

  it('parseDocumentUrl runs every check in the server order', () => {
    expect(parseDocumentUrl(`  ${GOOD} `)).toEqual({ ok: true, url: GOOD, driveFileId: ID });
    expect(parseDocumentUrl('https://docs.google.com/document/d/short/edit')).toEqual({ ok: false, message: M.noDocumentId });
    expect(parseDocumentUrl(`https://evil.example/docs.google.com/document/d/${ID}`)).toEqual({
      ok: false,
      message: M.notGoogleDocs,
    });
    expect(parseDocumentUrl('')).toEqual({ ok: false, message: M.urlRequired });
  });

  it('property: an accepted URL has an id of 25+ id characters that occurs in it', () => {
    const parts = ['https://', 'http://', 'docs.google.com', '/document/', 'd/', ID, 'abc', '/edit', '?id=', '#x', 'évil', ' ', ':443', 'a'.repeat(26)];
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      let url = '';
      for (let i = r.int(8); i >= 0; i--) url += r.pick(parts);
      const result = parseDocumentUrl(url);
      if (result.ok) {
        expect(result.driveFileId).toMatch(/^[A-Za-z0-9_-]{25,}$/);
        expect(url).toContain(result.driveFileId);
        expect(result.url).toContain('docs.google.com/document/');
        expect(parseDocumentUrl(result.url)).toEqual(result);
      } else {
        expect(Object.values(M)).toContain(result.message);
      }
    }
  });
});

describe('nameFromTitle', () => {
  it('turns white space into underscores and keeps the name rules', async () => {
    const { nameFromTitle, documentNameError } = await import('./document-url');
    expect(nameFromTitle('CS 101 Syllabus')).toBe('CS_101_Syllabus');
    expect(nameFromTitle('  Week\t1 \n notes  ')).toBe('Week_1_notes');
    expect(nameFromTitle('Q&A: Café')).toBe('Q&A:_Café');
    expect(nameFromTitle('   ')).toBe('');
    const long = nameFromTitle('word '.repeat(40));
    expect(long.length).toBeLessThanOrEqual(100);
    expect(documentNameError(long)).toBeNull();
    expect(long.endsWith('_')).toBe(false);
  });
});
