import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import {
  activeQuery,
  applySuggestion,
  filterSuggestions,
  formatTokenEstimate,
  knownNamesOf,
  segmentInstructions,
  uniqueLabels,
  type Segment,
} from '../lib/references';
import type { AgentDocument } from '../types';

interface InstructionsEditorProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  documents: readonly AgentDocument[];
}

interface Position {
  top: number;
  left: number;
}

const POPUP_WIDTH_PX = 256; // 16rem at the default 16px root size; only used to keep it inside

/**
 * The 'Agent Instructions' text area with the ~N tokens estimate, @/# suggestions and the
 * highlight layer (a mirrored, aria-hidden div behind a transparent-text textarea).
 */
export function InstructionsEditor({ id, value, onChange, documents }: InstructionsEditorProps) {
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const layerRef = useRef<HTMLDivElement>(null);
  const anchorRef = useRef<HTMLSpanElement>(null);
  const wrapperRef = useRef<HTMLDivElement>(null);
  const popupRef = useRef<HTMLDivElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const [caret, setCaret] = useState(0);
  const [focused, setFocused] = useState(false);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [highlight, setHighlight] = useState<{ key: string; index: number }>({ key: '', index: 0 });
  const [position, setPosition] = useState<Position | null>(null);
  const [scrollTick, setScrollTick] = useState(0);

  const names = useMemo(() => knownNamesOf(documents), [documents]);
  const documentNames = useMemo(() => documents.map((d) => d.name), [documents]);
  const labels = useMemo(() => uniqueLabels(documents), [documents]);
  const segments = useMemo(() => segmentInstructions(value, names), [value, names]);

  const active = focused ? activeQuery(value, caret) : null;
  const open = active !== null && dismissedAt !== active.start;
  const kind = active?.sigil === '#' ? 'label' : 'document';
  const items = open ? filterSuggestions(kind === 'label' ? labels : documentNames, active.query) : [];
  const queryKey = active ? `${active.sigil}${active.start}:${active.query}` : '';
  const activeIndex = highlight.key === queryKey ? Math.min(highlight.index, Math.max(items.length - 1, 0)) : 0;
  const listId = `${id}-suggestions`;
  const optionId = (i: number) => `${id}-option-${i}`;

  const syncCaret = (el: HTMLTextAreaElement) => {
    const next = el.selectionStart ?? el.value.length;
    setCaret(next);
    const nextActive = activeQuery(el.value, next);
    if (!nextActive || nextActive.start !== dismissedAt) setDismissedAt(null);
  };

  // After choosing a suggestion, put the caret after the inserted name and space.
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (el && pendingCaret.current !== null && el.value === value) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      setCaret(pendingCaret.current);
      pendingCaret.current = null;
    }
  }, [value]);

  // Place the suggestion list under the sigil, using the marker span in the mirrored layer.
  useLayoutEffect(() => {
    const anchor = anchorRef.current;
    const layer = layerRef.current;
    const wrapper = wrapperRef.current;
    if (!open || !anchor || !layer || !wrapper) {
      setPosition(null);
      return;
    }
    const lineHeight = anchor.offsetHeight || parseFloat(getComputedStyle(layer).lineHeight) || 22;
    const popupHeight = popupRef.current?.offsetHeight ?? 0;
    const maxLeft = Math.max(0, wrapper.clientWidth - POPUP_WIDTH_PX);
    const lineTop = Math.min(Math.max(anchor.offsetTop - layer.scrollTop, 0), layer.clientHeight - lineHeight);
    const below = lineTop + lineHeight + 4;
    const above = lineTop - popupHeight - 4;
    // Below the line, unless it would leave the text area and there is room above it.
    const top = below + popupHeight > layer.clientHeight && above >= 0 ? above : below;
    setPosition({ top, left: Math.min(Math.max(anchor.offsetLeft - layer.scrollLeft, 0), maxLeft) });
  }, [open, active?.start, value, scrollTick, items.length]);

  const choose = (name: string) => {
    if (!active) return;
    const result = applySuggestion(value, active, name);
    pendingCaret.current = result.caret;
    onChange(result.text);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open || !active || event.nativeEvent.isComposing) return;
    const n = items.length;
    switch (event.key) {
      case 'ArrowDown':
        if (n === 0) return;
        event.preventDefault();
        setHighlight({ key: queryKey, index: (activeIndex + 1) % n });
        break;
      case 'ArrowUp':
        if (n === 0) return;
        event.preventDefault();
        setHighlight({ key: queryKey, index: (activeIndex - 1 + n) % n });
        break;
      case 'Enter':
        if (n === 0) return;
        event.preventDefault();
        choose(items[activeIndex]!);
        break;
      case 'Escape':
        // Close the list only; the editor (a drawer listening on window) must stay open.
        event.preventDefault();
        event.stopPropagation();
        setDismissedAt(active.start);
        break;
      default:
    }
  };

  const countId = `${id}-tokens`;
  const helpId = `${id}-help`;

  return (
    <div className="form-field instructions-editor">
      <div className="instructions-editor__top">
        <label htmlFor={id} className="form-field__label">
          Agent Instructions
        </label>
        <span id={countId} className="documents-muted instructions-editor__tokens" data-testid="token-count">
          {formatTokenEstimate(value)}
        </span>
      </div>
      <div className="instructions-editor__field" ref={wrapperRef}>
        <div className="instructions-editor__layer" ref={layerRef} aria-hidden="true" data-testid="instructions-highlight">
          {renderSegments(segments, open && active ? active.start : null, anchorRef)}
          {/* Keeps a trailing newline's line box, so both scroll heights match. */}
          {'\u200b'}
        </div>
        <textarea
          ref={textareaRef}
          id={id}
          className="instructions-editor__textarea"
          value={value}
          spellCheck={false}
          placeholder="Describe how the agent should behave. Type @ to reference a document, # for a label."
          aria-describedby={`${countId} ${helpId}`}
          aria-autocomplete="list"
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open && items.length > 0 ? optionId(activeIndex) : undefined}
          onChange={(e) => {
            onChange(e.target.value);
            syncCaret(e.target);
          }}
          onSelect={(e) => syncCaret(e.currentTarget)}
          onKeyDown={onKeyDown}
          onFocus={(e) => {
            setFocused(true);
            syncCaret(e.currentTarget);
          }}
          onBlur={() => setFocused(false)}
          onScroll={(e) => {
            if (layerRef.current) {
              layerRef.current.scrollTop = e.currentTarget.scrollTop;
              layerRef.current.scrollLeft = e.currentTarget.scrollLeft;
            }
            setScrollTick((t) => t + 1);
          }}
        />
        {open && (
          <div
            ref={popupRef}
            className="instructions-suggestions"
            style={position ? { top: position.top, left: position.left } : { top: '100%', left: 0 }}
            data-kind={kind}
          >
            {items.length > 0 ? (
              <ul
                id={listId}
                role="listbox"
                aria-label={kind === 'label' ? 'Label suggestions' : 'Document suggestions'}
                className="instructions-suggestions__list"
              >
                {items.map((name, i) => (
                  <li
                    key={name}
                    id={optionId(i)}
                    role="option"
                    aria-selected={i === activeIndex}
                    className="instructions-suggestions__option"
                    // Keep the focus (and the caret) in the text area.
                    onMouseDown={(e) => e.preventDefault()}
                    onMouseEnter={() => setHighlight({ key: queryKey, index: i })}
                    onClick={() => choose(name)}
                  >
                    {name}
                  </li>
                ))}
              </ul>
            ) : (
              <p id={listId} role="status" className="instructions-suggestions__empty">
                {kind === 'label' ? 'No labels found' : 'No documents found'}
              </p>
            )}
          </div>
        )}
      </div>
      <div id={helpId} className="instructions-help" role="note" aria-label="Reference syntax">
        <p>
          Type <code>@</code> followed by a document name (for example <code>@Syllabus</code>) to point the agent at
          that document, or <code>#</code> followed by a label (for example <code>#week1</code>) to point it at every
          document with that label. Pick a suggestion with the arrow keys and Enter; Escape closes the list.
        </p>
        <p>
          Known documents are shown in <span className="ref-sample ref-sample--document">blue</span>, known labels in{' '}
          <span className="ref-sample ref-sample--label">green</span> and unknown references in{' '}
          <span className="ref-sample ref-sample--unknown">red</span>.
        </p>
      </div>
    </div>
  );
}

/** The layer's spans; the sigil at `anchorAt` gets a zero-width marker for the popup position. */
function renderSegments(
  segments: readonly Segment[],
  anchorAt: number | null,
  anchorRef: RefObject<HTMLSpanElement | null>,
): ReactNode[] {
  return segments.map((segment) => {
    const inside = anchorAt !== null && anchorAt >= segment.start && anchorAt < segment.start + segment.text.length;
    const content = inside ? (
      <>
        {segment.text.slice(0, anchorAt - segment.start)}
        <span ref={anchorRef} className="instructions-editor__anchor" />
        {segment.text.slice(anchorAt - segment.start)}
      </>
    ) : (
      segment.text
    );
    if (segment.kind === 'text') {
      return inside ? <span key={segment.start}>{content}</span> : segment.text;
    }
    return (
      <span
        key={segment.start}
        className={`instructions-ref instructions-ref--${segment.kind} ${segment.known ? 'instructions-ref--known' : 'instructions-ref--unknown'}`}
        data-ref={segment.kind}
        data-known={segment.known}
      >
        {content}
      </span>
    );
  });
}
