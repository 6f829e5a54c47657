import { Button, Modal } from 'antd';
import { EDITOR_TEXTS } from './editor-texts';

interface DiscardChangesDialogProps {
  open: boolean;
  /** Stay in the editor with the changes (also Escape and the close button). */
  onKeep: () => void;
  /** Drop the changes (and their local draft) and leave. */
  onDiscard: () => void;
}

/** "Discard unsaved changes?" (Keep editing / Discard): asked before an editor with unsaved changes closes. */
export function DiscardChangesDialog({ open, onKeep, onDiscard }: DiscardChangesDialogProps) {
  // Mounted only while asked: a question answered is gone at once (no closing animation to wait for).
  if (!open) return null;
  return (
    <Modal
      open
      title={EDITOR_TEXTS.discardTitle}
      onCancel={onKeep}
      width={420}
      zIndex={1100}
      className="agent-discard-dialog"
      footer={
        <div className="agent-discard-dialog__actions">
          <Button onClick={onKeep} autoFocus>
            {EDITOR_TEXTS.keepEditing}
          </Button>
          <Button danger type="primary" onClick={onDiscard}>
            {EDITOR_TEXTS.discard}
          </Button>
        </div>
      }
    >
      <p>{EDITOR_TEXTS.discardBody}</p>
    </Modal>
  );
}
