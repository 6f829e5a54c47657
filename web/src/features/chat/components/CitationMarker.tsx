import { ExportOutlined, FileTextOutlined } from '@ant-design/icons';
import { Popover } from 'antd';
import { createContext, useContext, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { sourcesForMarker } from '../lib/citations';
import type { Citation } from '../types';
import { safeHref } from './AnswerFooter';

/** The answer being rendered: its citations and text (markers are matched against them). */
export interface CitationScope {
  citations: readonly Citation[];
  answer: string;
}

export const CitationContext = createContext<CitationScope | null>(null);

interface CitationMarkerProps {
  /** The marker as written, e.g. "[1]" or "[1, 3]". */
  label: string;
  numbers: readonly number[];
}

/**
 * A citation marker of an answer ([1]): a button opening the cited passage in a popover (Enter/Space opens it
 * and moves focus into it, Escape closes it and returns focus), or only the document's name when the agent hides
 * its sources.
 */
export function CitationMarker({ label, numbers }: CitationMarkerProps) {
  const scope = useContext(CitationContext);
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const sources = scope ? sourcesForMarker(numbers, scope.citations, scope.answer) : [];

  useEffect(() => {
    if (!open) return;
    const frame = requestAnimationFrame(() => contentRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, [open]);

  if (sources.length === 0) return <>{label}</>;

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation();
      close();
    }
  };

  const content = (
    <div
      ref={contentRef}
      className="chat-cite"
      role="dialog"
      aria-labelledby={titleId}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      data-testid="citation-popover"
    >
      <p id={titleId} className="sr-only">
        Source {label}
      </p>
      {sources.map(({ citation, passage, hidden }) => {
        const href = hidden ? undefined : safeHref(citation.url);
        return (
          <div key={citation.documentId || citation.documentName} className="chat-cite__source">
            <p className="chat-cite__doc">
              <FileTextOutlined aria-hidden="true" /> <span data-testid="citation-document">{citation.documentName}</span>
            </p>
            {passage && (
              <blockquote className="chat-cite__passage" data-testid="citation-passage">
                {passage}
              </blockquote>
            )}
            {href && (
              <a className="chat-cite__open" href={href} target="_blank" rel="noopener noreferrer">
                Open in Google Docs <ExportOutlined aria-hidden="true" />
                <span className="sr-only"> (new tab)</span>
              </a>
            )}
          </div>
        );
      })}
    </div>
  );

  return (
    <Popover
      content={content}
      trigger="click"
      open={open}
      onOpenChange={setOpen}
      placement="top"
      classNames={{ root: 'chat-cite-popover' }}
    >
      <button
        ref={buttonRef}
        type="button"
        className="chat-cite-marker"
        aria-label={`Source ${label}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        onKeyDown={onKeyDown}
        data-testid="citation-marker"
      >
        {label}
      </button>
    </Popover>
  );
}
