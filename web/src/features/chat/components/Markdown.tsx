import { XMarkdown, type ComponentProps } from '@ant-design/x-markdown';
import { useMemo } from 'react';
import { linkCitationMarkers, markerHrefNumbers } from '../lib/citations';
import { inlineImageSrc, linkTarget, textShowsDestination } from '../lib/remote-content';
import type { Citation } from '../types';
import { CitationContext, CitationMarker } from './CitationMarker';

interface MarkdownProps {
  content: string;
  /** True while more text is coming: incomplete Markdown is held back and a caret shows. */
  streaming?: boolean;
  /** The answer's citations: its [n] markers become buttons opening the cited passage. */
  citations?: readonly Citation[] | null;
}

/** The parts of html-react-parser's DOM node (domhandler) that are read here. */
interface TreeNode {
  type?: string;
  name?: string;
  data?: unknown;
  children?: TreeNode[];
  parent?: TreeNode | null;
}

function textOf(node: TreeNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return typeof node.data === 'string' ? node.data : '';
  return (node.children ?? []).map(textOf).join('');
}

function insideLink(node: TreeNode | undefined): boolean {
  for (let p = node?.parent; p; p = p.parent) {
    if (p.name === 'a') return true;
  }
  return false;
}

const LINK_REL = 'noopener noreferrer nofollow';

/**
 * A link: http(s) and mailto: only (anything else, e.g. javascript:, is its text), always in a new tab with
 * rel="noopener noreferrer nofollow", the full URL as its title, and its destination host shown after the text
 * unless the text already names it (or it is the app's own origin).
 */
function SafeLink({ href, children, domNode }: ComponentProps<{ href?: string }>) {
  const marker = markerHrefNumbers(href);
  if (marker) return <CitationMarker label={textOf(domNode as unknown as TreeNode)} numbers={marker} />;
  const target = linkTarget(href);
  if (!target) return <span className="chat-link-disabled">{children}</span>;
  const showDestination = !target.sameOrigin && !textShowsDestination(textOf(domNode as unknown as TreeNode), target);
  return (
    <a href={target.href} target="_blank" rel={LINK_REL} title={target.href}>
      {children}
      {showDestination && <span className="chat-link-destination"> ({target.destination})</span>}
    </a>
  );
}

/**
 * An image: rendered only from the app's own origin or a data:image URL. Any other image is never fetched: it
 * becomes a link "🖼 alt (host)" the reader may choose to open (plain text inside another link, or when its URL
 * is not http(s)).
 */
function SafeImage({ src, alt, title, domNode }: ComponentProps<{ src?: string; alt?: string }>) {
  const inline = inlineImageSrc(src);
  if (inline) return <img src={inline} alt={alt ?? ''} title={title} />;
  const target = linkTarget(src);
  const label = alt?.trim() || 'image';
  const content = (
    <>
      <span aria-hidden="true">🖼 </span>
      {label}
      {target && <span className="chat-link-destination"> ({target.destination})</span>}
    </>
  );
  if (!target || target.href.startsWith('mailto:') || insideLink(domNode as unknown as TreeNode)) {
    return <span className="chat-remote-image">{content}</span>;
  }
  return (
    <a className="chat-remote-image" href={target.href} target="_blank" rel={LINK_REL} title={`Image not loaded: ${target.href}`}>
      {content}
    </a>
  );
}

// Stable (module-level): XMarkdown rebuilds its parser when `components` changes.
const COMPONENTS = { a: SafeLink, img: SafeImage };

/**
 * An answer rendered as Markdown with Ant Design X's renderer (marked + DOMPurify). Raw HTML in the
 * model's output is shown as text, never parsed. Answers never load remote content (docs/web-chat.md,
 * "Remote content"): <a> and <img> are rendered by SafeLink and SafeImage above.
 */
export function Markdown({ content, streaming = false, citations }: MarkdownProps) {
  const cited = !!citations && citations.length > 0;
  const scope = useMemo(() => (citations && citations.length > 0 ? { citations, answer: content } : null), [citations, content]);
  const text = useMemo(() => (cited ? linkCitationMarkers(content) : content), [cited, content]);
  return (
    <CitationContext.Provider value={scope}>
      <XMarkdown
        className="chat-markdown"
        content={text}
        components={COMPONENTS}
        escapeRawHtml
        openLinksInNewTab
        streaming={{ hasNextChunk: streaming, tail: streaming }}
      />
    </CitationContext.Provider>
  );
}
