import { FileTextOutlined } from '@ant-design/icons';
import { formatPriceParts, formatUsage } from '../lib/format';
import type { Citation, Usage } from '../types';

interface AnswerFooterProps {
  citations: readonly Citation[];
  usage: Usage | null | undefined;
  /** The model that wrote the answer, when known. */
  model?: string;
}

/** Only http(s) URLs become links (a citation never carries a javascript: or data: URL into an href). */
export function safeHref(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** Citations of the answer by document, first occurrence first. */
export function uniqueCitations(citations: readonly Citation[]): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const c of citations) {
    const key = c.documentId || c.url || c.documentName;
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

/**
 * Under an answer: its citations as chips (the linked document's name, opening the Google Doc in a
 * new tab) and its cost, "812 tokens · $0.0009", with the model's name.
 */
export function AnswerFooter({ citations, usage, model }: AnswerFooterProps) {
  const chips = uniqueCitations(citations);
  const modelName = usage?.model || model;
  const parts = usage ? formatPriceParts(usage) : '';
  if (chips.length === 0 && !usage) return null;
  return (
    <div className="chat-answer-footer">
      {chips.length > 0 && (
        <ul className="chat-citations" aria-label="Sources">
          {chips.map((c) => {
            const href = safeHref(c.url);
            return (
              <li key={c.documentId || c.url}>
                {href ? (
                  <a
                    className="chat-citation"
                    href={href}
                    target="_blank"
                    rel="noopener noreferrer"
                    title={`Open ${c.documentName} in Google Docs (new tab)`}
                    data-testid="citation-chip"
                  >
                    <FileTextOutlined aria-hidden="true" />
                    <span>{c.documentName}</span>
                  </a>
                ) : (
                  <span className="chat-citation" data-testid="citation-chip">
                    <FileTextOutlined aria-hidden="true" />
                    <span>{c.documentName}</span>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {usage && (
        <p className="chat-usage">
          <span data-testid="answer-usage">{formatUsage(usage)}</span>
          {modelName && (
            <span className="chat-usage__model" data-testid="answer-model">
              {' '}
              · {modelName}
            </span>
          )}
        </p>
      )}
      {parts && (
        <p className="chat-usage chat-usage__parts" data-testid="answer-price-parts">
          {parts}
        </p>
      )}
    </div>
  );
}
