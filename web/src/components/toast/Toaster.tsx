import { CloseOutlined } from '@ant-design/icons';
import { useEffect, useRef } from 'react';
import { pauseToasts, resumeToasts } from './toast-store';
import { useToast } from './use-toast';
import './toaster.css';

/**
 * Renders the open toasts, newest first, in a labelled region (F8 moves focus to it).
 * Each toast is an <li> holding a <div data-toast> with role "status" (role "alert" when destructive)
 * whose accessible name is its title and whose description is its description, followed by
 * "Reference: <request id>" when the toast reports a failed call that had one (toast-store).
 */
export function Toaster() {
  const { toasts, dismiss } = useToast();
  const regionRef = useRef<HTMLOListElement>(null);
  const open = toasts.filter((t) => t.open);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'F8') regionRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  return (
    <section aria-label="Notifications (F8)" className="toaster">
      <ol
        ref={regionRef}
        tabIndex={-1}
        className="toaster__list"
        onMouseEnter={pauseToasts}
        onMouseLeave={resumeToasts}
        onFocus={pauseToasts}
        onBlur={resumeToasts}
      >
        {open.map((t) => {
          const titleId = `${t.id}-title`;
          const descriptionId = `${t.id}-description`;
          const referenceId = `${t.id}-reference`;
          const describedBy = [t.description && descriptionId, t.requestId && referenceId].filter(Boolean).join(' ');
          return (
            // The <li> stays a plain list item (an <ol> may only hold list items: axe "list");
            // the live region with the toast's name is the element inside it.
            <li key={t.id} className="toaster__item">
              <div
                role={t.variant === 'destructive' ? 'alert' : 'status'}
                aria-atomic="true"
                aria-labelledby={t.title ? titleId : undefined}
                aria-describedby={describedBy || undefined}
                className={`toast toast--${t.variant}`}
                data-toast=""
                data-variant={t.variant}
              >
                <div className="toast__body">
                  {t.title && (
                    <div id={titleId} className="toast__title" data-toast-title="">
                      {t.title}
                    </div>
                  )}
                  {t.description && (
                    <div id={descriptionId} className="toast__description" data-toast-description="">
                      {t.description}
                    </div>
                  )}
                  {t.requestId && (
                    <div id={referenceId} className="toast__reference" data-toast-reference="">
                      {`Reference: ${t.requestId}`}
                    </div>
                  )}
                </div>
                <button
                  type="button"
                  className="toast__close"
                  aria-label="Close notification"
                  onClick={() => dismiss(t.id)}
                >
                  <CloseOutlined aria-hidden="true" />
                </button>
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
