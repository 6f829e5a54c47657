import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface DialogProps {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  /** The dialog's buttons, rendered in its footer. */
  actions: ReactNode;
}

/**
 * A modal built on the native <dialog> element (no antd on the landing page, to keep `/` light):
 * showModal() makes the rest of the page inert, moves focus into the dialog and gives Escape for
 * free; the browser returns focus to the opener when it closes. Clicking the backdrop closes it too.
 * Labelled by its title, described by its body.
 */
export function Dialog({ open, onClose, title, children, actions }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const titleId = `${id}-title`;
  const bodyId = `${id}-body`;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      // jsdom has no showModal(); fall back to the open attribute there.
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    } else if (!open && dialog.open) {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="landing-dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      // Escape (the "cancel" event) and close() both end in "close": keep React state in sync.
      onClose={onClose}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {open && (
        <div className="landing-dialog__panel">
          <h2 id={titleId} className="landing-dialog__title">
            {title}
          </h2>
          <div id={bodyId} className="landing-dialog__body">
            {children}
          </div>
          <div className="landing-dialog__actions">{actions}</div>
        </div>
      )}
    </dialog>
  );
}
